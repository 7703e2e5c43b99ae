package groot2

import (
	"encoding/binary"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"
	"go.uber.org/goleak"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(endsGroot2Client{m})
}

// endsGroot2Client runs the tests, then ends the client.py they shared,
// so that no Python outlives the run.
type endsGroot2Client struct{ m *testing.M }

func (e endsGroot2Client) Run() int {
	defer stopGroot2Client()
	return e.m.Run()
}

// served is a patrol tree behind a Server, with a libzmq client.
type served struct {
	tree   *runtime.Tree
	clock  *runtime.ManualClock
	server *Server
	client *client
	id     uuid.UUID
	pauses chan bool
}

func serve(t *testing.T, heartbeat time.Duration) *served {
	t.Helper()
	rostest.Require(t, "zmq") // libzmq's Python binding, as Groot2 links libzmq
	tree, doc, clock := patrol(t)
	port := rostest.FreePortPair(t)
	s := &served{tree: tree, clock: clock, id: uuid.New(), pauses: make(chan bool, 16)}
	srv, err := New(Conf{Tree: tree, Document: doc, Host: "127.0.0.1", Port: port, TreeID: s.id, MaxHeartbeatDelay: heartbeat,
		OnPause: func(_ *runtime.Base, paused bool) { s.pauses <- paused }})
	require.NoError(t, err)
	s.server = srv
	detach := srv.Attach()
	t.Cleanup(func() {
		require.NoError(t, srv.Close())
		detach()
	})
	s.client = startClient(t, port)
	return s
}

func (s *served) tick(t *testing.T) runtime.Status {
	t.Helper()
	st, err := s.tree.TickExactlyOnce()
	require.NoError(t, err)
	s.clock.Advance(10 * time.Millisecond)
	return st
}

// Every request Groot2 sends, answered as BT.CPP 4.10's Groot2Publisher
// answers it, checked through libzmq.
func TestRequests(t *testing.T) {
	cases := []struct {
		name  string
		ticks int
		run   func(t *testing.T, s *served)
	}{
		{"the full tree: its XML with _uid and _fullpath", 0, func(t *testing.T, s *served) {
			r := s.client.request('T', 42)
			require.Len(t, r, 2)
			assert.Equal(t, replyHeader('T', 42, s.id), r[0])
			xml := string(r[1])
			assert.Contains(t, xml, `<BehaviorTree ID="Patrol" _fullpath="">`)
			assert.Contains(t, xml, `<BehaviorTree ID="Step" _fullpath="Patrol/patrol/forever/Step">`)
			assert.Contains(t, xml, `<Sleep name="drive" _uid="6" msec="20"/>`)
			assert.Contains(t, xml, `<SubTree ID="Step" _fullpath="Patrol/patrol/forever/Step" _uid="4"/>`)
		}},
		{"statuses: UID and status per node, BT.CPP's order, IDLE after X as 10+X", 2, func(t *testing.T, s *served) {
			r := s.client.request('S', 7)
			require.Len(t, r, 2)
			assert.Equal(t, replyHeader('S', 7, s.id), r[0])
			status := func(pairs ...[2]int) []byte {
				out := []byte{}
				for _, us := range pairs {
					out = binary.LittleEndian.AppendUint16(out, uint16(us[0]))
					out = append(out, byte(us[1]))
				}
				return out
			}
			assert.Equal(t, status([2]int{1, 1}, [2]int{2, 2}, [2]int{3, 1}, [2]int{4, 1}, [2]int{5, 1}, [2]int{6, 1}, [2]int{7, 0}), r[1])
			s.tick(t) // drive ends, count runs, the step starts again
			r = s.client.request('S', 8)
			assert.Equal(t, status([2]int{1, 1}, [2]int{2, 2}, [2]int{3, 1}, [2]int{4, 1}, [2]int{5, 1}, [2]int{6, 1}, [2]int{7, 12}), r[1], "count: IDLE after SUCCESS")
		}},
		{"blackboards by name, msgpack; a subtree's scope brings ROOT", 1, func(t *testing.T, s *served) {
			r := s.client.request('B', 9, "Patrol;Patrol/patrol/forever/Step;nobody")
			require.Len(t, r, 2)
			assert.Equal(t, replyHeader('B', 9, s.id), r[0])
			var dump map[string]map[string]any
			require.NoError(t, msgpack.Unmarshal(r[1], &dump))
			assert.Equal(t, map[string]map[string]any{
				"Patrol":                     {"visits": int8(0), "battery": float32(100), "place": "dock"},
				"ROOT":                       {"visits": int8(0), "battery": float32(100), "place": "dock"},
				"Patrol/patrol/forever/Step": nil,
			}, dump)
		}},
		{"a request without its argument", 0, func(t *testing.T, s *served) {
			for _, typ := range []byte{'B', 'I', 'U', 'R', 'r'} {
				assert.Equal(t, [][]byte{[]byte("error"), []byte("must be 2 parts message")}, s.client.request(typ, 1), "type %c", typ)
			}
		}},
		{"a wrong header, an unknown request", 0, func(t *testing.T, s *served) {
			assert.Equal(t, [][]byte{[]byte("error"), []byte("wrong request header")}, s.client.raw([]byte{2, 'T'}))
			assert.Equal(t, [][]byte{[]byte("error"), []byte("Request not recognized")}, s.client.request('?', 1))
		}},
		{"hooks: insert one and a list, dump, remove, remove all", 0, func(t *testing.T, s *served) {
			r := s.client.request('I', 1, `{"enabled":true,"uid":6,"mode":1,"once":false,"desired_status":"FAILURE","position":0}`)
			assert.Equal(t, [][]byte{replyHeader('I', 1, s.id)}, r)
			s.client.request('I', 2, `[{"enabled":true,"uid":2,"mode":0,"once":true,"desired_status":"SKIPPED","position":1},{"enabled":true,"uid":999,"mode":0,"once":true,"desired_status":"SKIPPED","position":0}]`)
			r = s.client.request('D', 3)
			require.Len(t, r, 2)
			assert.Equal(t, `[{"desired_status":"FAILURE","enabled":true,"mode":1,"once":false,"position":0,"uid":6},{"desired_status":"SKIPPED","enabled":true,"mode":0,"once":true,"position":1,"uid":2}]`, string(r[1]))
			assert.Equal(t, [][]byte{replyHeader('R', 4, s.id)}, s.client.request('R', 4, `{"uid":6,"position":0}`))
			assert.Equal(t, [][]byte{[]byte("error"), []byte("Node ID not found")}, s.client.request('R', 5, `{"uid":6,"position":0}`))
			s.client.request('A', 6)
			assert.Equal(t, "[]", string(s.client.request('D', 7)[1]))
		}},
		{"a replace hook: the node returns the status asked for, untouched", 0, func(t *testing.T, s *served) {
			s.client.request('I', 1, `{"enabled":true,"uid":6,"mode":1,"once":false,"desired_status":"FAILURE","position":0}`)
			assert.Equal(t, runtime.Failure, s.tick(t), "drive replaced by FAILURE fails the patrol")
			note := s.client.published()
			require.Len(t, note, 2)
			assert.Equal(t, byte('N'), note[0][1])
			assert.Equal(t, "6", string(note[1]))
			assert.False(t, s.server.Paused())
		}},
		{"recording: start answers the time, transitions come 9 bytes each", 0, func(t *testing.T, s *served) {
			r := s.client.request('r', 1, "start")
			require.Len(t, r, 2)
			assert.Regexp(t, `^\d{16}$`, string(r[1]))
			s.tick(t)
			r = s.client.request('t', 2)
			require.Len(t, r, 2)
			require.Equal(t, 6*9, len(r[1]), "six nodes started")
			assert.Equal(t, []byte{1, 0, 1}, r[1][6:9], "first: node 1 RUNNING")
			assert.Empty(t, s.client.request('t', 3)[1], "taken")
			s.client.request('r', 4, "stop")
			s.tick(t)
			assert.Empty(t, s.client.request('t', 5)[1], "stopped")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, 0)
			for range tc.ticks {
				s.tick(t)
			}
			tc.run(t, s)
		})
	}
}

// A breakpoint holds the tick until Groot2 unlocks it; the loop owner sees
// the pause; the status Groot2 asks for replaces the node's.
func TestBreakpoint(t *testing.T) {
	cases := []struct {
		name    string
		release func(s *served)
		want    runtime.Status // the root's status after the tick
	}{
		{"unlocked with FAILURE", func(s *served) {
			s.client.request('U', 1, `{"uid":6,"desired_status":"FAILURE","position":0,"remove_when_done":true}`)
		}, runtime.Failure},
		{"unlocked to run on", func(s *served) {
			s.client.request('U', 1, `{"uid":6,"desired_status":"SKIPPED","position":0,"remove_when_done":true}`)
		}, runtime.Running},
		{"released when the hooks are removed", func(s *served) { s.client.request('A', 1) }, runtime.Running},
		{"released when Groot2 falls silent", func(s *served) {}, runtime.Running},
		{"released when the server closes", func(s *served) { s.server.Close() }, runtime.Running},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, 300*time.Millisecond)
			s.client.request('I', 1, `{"enabled":true,"uid":6,"mode":0,"once":false,"desired_status":"SKIPPED","position":0}`)
			var wg sync.WaitGroup
			var st runtime.Status
			var err error
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err = s.tree.TickExactlyOnce()
			}()
			note := s.client.published()
			assert.Equal(t, "6", string(note[1]))
			require.True(t, <-s.pauses)
			assert.True(t, s.server.Paused())
			tc.release(s)
			select {
			case p := <-s.pauses:
				assert.False(t, p)
			case <-time.After(5 * time.Second):
				require.FailNow(t, "the breakpoint was not released")
			}
			wg.Wait()
			require.NoError(t, err)
			assert.Equal(t, tc.want, st)
			assert.False(t, s.server.Paused())
		})
	}
}

// A tree past Groot2's 16-bit UIDs is refused with a clear error.
func TestTooManyNodes(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<root BTCPP_format="4"><BehaviorTree ID="Big"><Sequence>`)
	for range record.MaxNodes + 1 {
		b.WriteString(`<AlwaysSuccess/>`)
	}
	b.WriteString(`</Sequence></BehaviorTree></root>`)
	doc, err := trees.Parse("big.xml", []byte(b.String()))
	require.NoError(t, err)
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{})
	require.NoError(t, err)
	_, err = New(Conf{Tree: tree, Document: doc, Host: "127.0.0.1", Port: rostest.FreePortPair(t)})
	var tooMany *record.TooManyNodesError
	require.ErrorAs(t, err, &tooMany)
	assert.Equal(t, "groot2: the tree has 65537 nodes; BT.CPP's .btlog and Groot2 number nodes in 16 bits (at most 65535): split the mission or record it as SQLite (.db3)", err.Error())
}

var _ = json.Marshal

// A silent Groot2 has its hooks disabled (a replace-hook no longer
// replaces); they are enabled again when it speaks, as in BT.CPP.
func TestHeartbeat(t *testing.T) {
	s := serve(t, 300*time.Millisecond)
	s.client.request('I', 1, `{"enabled":true,"uid":6,"mode":1,"once":false,"desired_status":"FAILURE","position":0}`)
	time.Sleep(600 * time.Millisecond)
	assert.Equal(t, runtime.Running, s.tick(t), "silent: drive ticks as usual")
	require.Eventually(t, func() bool {
		return strings.Contains(string(s.client.request('D', 3)[1]), `"enabled":true`)
	}, 2*time.Second, 20*time.Millisecond)
	s.tree.Halt()
	assert.Equal(t, runtime.Failure, s.tick(t), "heard again: drive replaced by FAILURE")
}

// The server listens on loopback unless told otherwise (Conf.Host), both
// its ports.
func TestListensOnLoopbackByDefault(t *testing.T) {
	cases := []struct {
		name string
		host string
		want []string // the listening hosts allowed
	}{
		{"no host: loopback", "", []string{"127.0.0.1"}},
		{"every interface when told", "0.0.0.0", []string{"0.0.0.0", "::"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree, doc, _ := patrol(t)
			srv, err := New(Conf{Tree: tree, Document: doc, Host: c.host, Port: rostest.FreePortPair(t)})
			require.NoError(t, err)
			defer func() { require.NoError(t, srv.Close()) }()
			for _, addr := range []string{srv.rep.addr().String(), srv.pub.addr().String()} {
				host, _, err := net.SplitHostPort(addr)
				require.NoError(t, err)
				assert.Contains(t, c.want, host, addr)
			}
		})
	}
}
