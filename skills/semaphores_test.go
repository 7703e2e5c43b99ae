package skills

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// participant is one process's view of the graph's semaphores in a test:
// its own ROS node and table.
type participant struct {
	name  string
	conn  *ros.Conn
	table *GraphSemaphores
}

// holder is a semaphore holder that counts its wakes.
func holder(who string) (*runtime.SemaphoreHolder, *atomic.Int64) {
	var woken atomic.Int64
	return &runtime.SemaphoreHolder{Who: who, Wake: func() { woken.Add(1) }}, &woken
}

// participants joins n participants to one master and waits until each
// hears the others.
func participants(t *testing.T, conf GraphSemaphoresConf, names ...string) []*participant {
	t.Helper()
	uri := rostest.StartMaster(t)
	var out []*participant
	for _, name := range names {
		c := connectAs(t, uri, "/"+name, "btrobot")
		conf.Conn = c
		g, err := NewGraphSemaphores(conf)
		require.NoError(t, err)
		t.Cleanup(g.Close)
		require.NoError(t, g.Join())
		out = append(out, &participant{name: name, conn: c, table: g})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, p := range out {
		require.NoError(t, p.conn.WaitSubscribers(ctx, DefaultSemaphoreTopic, len(out)))
	}
	return out
}

// granted waits until h holds a slot of res at p.
func granted(t *testing.T, p *participant, res string, h *runtime.SemaphoreHolder, within time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool { return p.table.Granted(res, h) }, within, 10*time.Millisecond,
		"%s: no slot of %s within %v", h.Who, res, within)
}

// TestGraphSemaphores: the slots of a resource are shared by participants
// that are separate ROS nodes on one master (as separate processes are),
// first come first served, and come back when a holder gives its slot back,
// leaves, or dies without a word.
func TestGraphSemaphores(t *testing.T) {
	fast := GraphSemaphoresConf{Beat: 100 * time.Millisecond, Lease: 2 * time.Second, Listen: 500 * time.Millisecond}
	cases := []struct {
		name string
		conf GraphSemaphoresConf
		run  func(t *testing.T, ps []*participant)
	}{
		{"one slot: the second waits, named the holder, and is woken when it is given back", fast, func(t *testing.T, ps []*participant) {
			a, wa := holder("robot1: Main/Dock")
			b, wb := holder("robot2: Main/Dock")
			_, err := ps[0].table.Request("dock", 1, a)
			require.NoError(t, err)
			granted(t, ps[0], "dock", a, 10*time.Second)
			require.Eventually(t, func() bool {
				holders, _ := ps[1].table.State("dock", nil)
				return len(holders) == 1
			}, 10*time.Second, 10*time.Millisecond, "robot2 never heard robot1 hold the dock")
			ok, err := ps[1].table.Request("dock", 1, b)
			require.NoError(t, err)
			assert.False(t, ok, "two holders of a one-slot semaphore")
			holders, before := ps[1].table.State("dock", b)
			assert.Equal(t, []string{"robot1: Main/Dock"}, holders)
			assert.Zero(t, before)
			assert.False(t, ps[1].table.Granted("dock", b))
			woken := wb.Load()
			ps[0].table.Release("dock", a)
			require.Eventually(t, func() bool { return wb.Load() > woken }, 10*time.Second, 10*time.Millisecond, "robot2 not woken")
			granted(t, ps[1], "dock", b, 10*time.Second)
			assert.False(t, ps[0].table.Granted("dock", a), "a released slot still held")
			_ = wa
		}},
		{"first come, first served across three participants", fast, func(t *testing.T, ps []*participant) {
			hs := make([]*runtime.SemaphoreHolder, 3)
			for i, p := range ps {
				hs[i], _ = holder(p.name)
			}
			_, err := ps[0].table.Request("lift", 1, hs[0])
			require.NoError(t, err)
			granted(t, ps[0], "lift", hs[0], 10*time.Second)
			// robot3 asks before robot2; each waits until every
			// participant heard its request, and robot1 hold. (Counting
			// the waiting requests was not enough: robot1's own, heard
			// before its slot, counted for robot3's at robot2, which then
			// asked before it heard robot3 — and came first, rightly.)
			var asked []string
			for _, i := range []int{2, 1} {
				_, err := ps[i].table.Request("lift", 1, hs[i])
				require.NoError(t, err)
				asked = append(asked, ps[i].name)
				for _, p := range ps {
					require.Eventually(t, func() bool {
						return slices.Equal(holdersOf(p.table, "lift"), []string{"robot1"}) &&
							slices.Equal(waitingOf(p.table, "lift"), slices.Sorted(slices.Values(asked)))
					}, 10*time.Second, 10*time.Millisecond, "%s never heard %s ask while robot1 held", p.name, ps[i].name)
				}
			}
			_, before := ps[1].table.State("lift", hs[1])
			assert.Equal(t, 1, before, "robot2 waits behind robot3")
			ps[0].table.Release("lift", hs[0])
			granted(t, ps[2], "lift", hs[2], 10*time.Second)
			assert.False(t, ps[1].table.Granted("lift", hs[1]), "robot2 went before robot3, who asked first")
			ps[2].table.Release("lift", hs[2])
			granted(t, ps[1], "lift", hs[1], 10*time.Second)
		}},
		{"two slots: two hold at once, the third waits", fast, func(t *testing.T, ps []*participant) {
			hs := make([]*runtime.SemaphoreHolder, 3)
			for i, p := range ps {
				hs[i], _ = holder(p.name)
				_, err := p.table.Request("corridor", 2, hs[i])
				require.NoError(t, err)
			}
			require.Eventually(t, func() bool {
				n := 0
				for i, p := range ps {
					if p.table.Granted("corridor", hs[i]) {
						n++
					}
				}
				return n == 2
			}, 10*time.Second, 10*time.Millisecond, "two of three never held the corridor")
			for range 5 { // the third stays out while both hold
				n := 0
				for i, p := range ps {
					if p.table.Granted("corridor", hs[i]) {
						n++
					}
				}
				require.Equal(t, 2, n)
			}
		}},
		{"every holder must ask the same capacity", fast, func(t *testing.T, ps []*participant) {
			a, _ := holder("robot1: Main/Dock")
			_, err := ps[0].table.Request("dock", 1, a)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return len(waitingOf(ps[1].table, "dock"))+len(holdersOf(ps[1].table, "dock")) == 1 },
				10*time.Second, 10*time.Millisecond)
			b, _ := holder("robot2: Main/Dock")
			_, err = ps[1].table.Request("dock", 2, b)
			require.ErrorContains(t, err, "semaphore dock has capacity 1 (robot1: Main/Dock says so), not 2")
		}},
		{"a holder that closes gives its slot back at once (well within the lease)",
			GraphSemaphoresConf{Beat: 100 * time.Millisecond, Lease: time.Minute, Listen: 500 * time.Millisecond},
			func(t *testing.T, ps []*participant) {
				a, _ := holder("robot1: Main/Dock")
				b, _ := holder("robot2: Main/Dock")
				_, err := ps[0].table.Request("dock", 1, a)
				require.NoError(t, err)
				granted(t, ps[0], "dock", a, 10*time.Second)
				require.Eventually(t, func() bool { return len(holdersOf(ps[1].table, "dock")) == 1 }, 10*time.Second, 10*time.Millisecond)
				_, err = ps[1].table.Request("dock", 1, b)
				require.NoError(t, err)
				ps[0].table.Close()
				// A lease of a minute: only the goodbye frees the slot
				// within the wait.
				granted(t, ps[1], "dock", b, 20*time.Second)
			}},
		{"a holder that dies without a word: its slot comes back a lease after its last word, not before", fast, func(t *testing.T, ps []*participant) {
			a, _ := holder("robot1: Main/Dock")
			b, _ := holder("robot2: Main/Dock")
			_, err := ps[0].table.Request("dock", 1, a)
			require.NoError(t, err)
			granted(t, ps[0], "dock", a, 10*time.Second)
			require.Eventually(t, func() bool { return len(holdersOf(ps[1].table, "dock")) == 1 }, 10*time.Second, 10*time.Millisecond)
			_, err = ps[1].table.Request("dock", 1, b)
			require.NoError(t, err)
			died := time.Now()
			ps[0].table.leave(false) // as a killed process: no goodbye
			granted(t, ps[1], "dock", b, 20*time.Second)
			assert.GreaterOrEqual(t, time.Since(died), fast.Lease-fast.Beat,
				"the slot came back before the holder's lease was over")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := participants(t, tc.conf, "robot1", "robot2", "robot3")
			tc.run(t, ps)
		})
	}
}

// waitingOf returns who waits for res in g's view, sorted by name.
func waitingOf(g *GraphSemaphores, res string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, e := range g.entriesLocked(res, g.livePeersLocked(time.Now())) {
		if !e.Holding {
			out = append(out, e.Who)
		}
	}
	slices.Sort(out)
	return out
}

func holdersOf(g *GraphSemaphores, res string) []string {
	holders, _ := g.State(res, nil)
	return holders
}

// TestGraphSemaphoresIgnoreBadMessages: what a peer sends that is not a
// state — not JSON, too large, too many entries, no participant — changes
// nothing.
func TestGraphSemaphoresIgnoreBadMessages(t *testing.T) {
	ps := participants(t, GraphSemaphoresConf{Beat: 100 * time.Millisecond, Lease: 2 * time.Second, Listen: 300 * time.Millisecond}, "robot1")
	g := ps[0].table
	many := `{"peer":"x","clock":1,"entries":[` + repeatJoin(`{"res":"dock","cap":1,"who":"x","stamp":1,"serial":1,"holding":true}`, maxSemaphoreEntries+1) + `]}`
	for _, data := range []string{
		"not json",
		`{"clock":5,"entries":[{"res":"dock","cap":1,"who":"x","stamp":1,"serial":1,"holding":true}]}`,
		many,
		`{"peer":"x","clock":1,"entries":[],"pad":"` + string(make([]byte, maxSemaphoreMessage)) + `"}`,
	} {
		g.receive(stringMsg(data))
	}
	assert.Empty(t, holdersOf(g, "dock"))
	g.mu.Lock()
	assert.Empty(t, g.peers)
	g.mu.Unlock()
}

func repeatJoin(s string, n int) string {
	out := make([]byte, 0, (len(s)+1)*n)
	for i := range n {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, s...)
	}
	return string(out)
}

func stringMsg(s string) *std_msgs.String { return &std_msgs.String{Data: s} }
