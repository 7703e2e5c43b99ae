package studio_test

import (
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

// TestABusyTreeCostsTheTickNoMemory: a tree whose 5,000 nodes all change
// on every tick (about 10,000 transitions a tick), with the studio
// attached. However late the pump (here it never runs), the tick keeps
// the newest transitions in bounded lists and the run's state in lists of
// the tree's size: it allocates nothing, and what a page then gets is the
// tree as it is (here, as the run that ends leaves it).
func TestABusyTreeCostsTheTickNoMemory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration
		ticks int
		bound float64 // bytes allocated a tick, by the process
	}{
		// The tick's own: the tree's and this test's helper, a little.
		{name: "the pump never comes", every: time.Hour, ticks: 60, bound: 16 << 10},
		// The pump's too: each of its rounds reads the blackboard and
		// the debugger (with no page it encodes nothing), whatever the
		// tree did.
		{name: "the pump keeps up", every: time.Millisecond, ticks: 60, bound: 96 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{PumpEvery: tc.every})
			tree := bigTree(t, 5000)
			tree.SetExplaining(true)
			// Every transition, as the tree makes them (never removed:
			// Tree.Observe's remove panics on a func).
			var made atomic.Int64
			tree.Observe(runtime.ObserverFunc(func(runtime.Transition) { made.Add(1) }))
			dbg, detach := attach(srv, tree)
			defer detach()
			tick(t, tree, dbg, 5) // the first ticks size what is reused
			var before, after goruntime.MemStats
			goruntime.ReadMemStats(&before)
			tick(t, tree, dbg, tc.ticks)
			goruntime.ReadMemStats(&after)
			perTick := float64(after.TotalAlloc-before.TotalAlloc) / float64(tc.ticks)
			// 10,000 transitions kept one by one would be about 480 KB a tick.
			assert.Less(t, perTick, tc.bound, "bytes allocated per tick with the studio attached")

			page := openEvents(t, srv, "")
			snap := page.next()
			require.Equal(t, "snapshot", snap.name)
			require.Len(t, snap.data["statuses"], 5000)
			assert.Equal(t, float64(made.Load()), snap.data["n"], "every transition counted")
			// The run ends (whenever the pump would send next): the page
			// is shown the tree as the ticks left it.
			var view pageView
			view.apply(snap)
			dbg.Close(mission.Report{Status: runtime.Running})
			want := statuses(tree)
			assert.Equal(t, "RUNNING", want[0], "the root runs")
			for i, st := range want[2:] {
				require.Equal(t, "IDLE", st, "node %d is IDLE between ticks", i+3)
			}
			for !assert.ObjectsAreEqual(want, view.status) {
				view.apply(nextWithin(t, page, 10*time.Second))
			}
		})
	}
}

// TestABusyTickKeepsItsNewestTransitions: ticks of more transitions than
// a delta carries (about 2,400 a tick against 2,000; the tree gives them
// to the studio in one batch a tick) — the page gets every
// one counted and, for the timeline, the newest ones in the order the
// tree made them, numbered as they were made.
func TestABusyTickKeepsItsNewestTransitions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes int
		ticks int
	}{
		{name: "one tick past the ring", nodes: 1200, ticks: 1},
		{name: "three ticks, the pump between", nodes: 1200, ticks: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond})
			tree := bigTree(t, tc.nodes)
			var made []string // "uid from to", in order
			tree.Observe(runtime.ObserverFunc(func(tr runtime.Transition) {
				made = append(made, fmt.Sprint(tr.Node.UID(), " ", tr.From, " ", tr.To))
			}))
			dbg, detach := attach(srv, tree)
			defer detach()
			page := openEvents(t, srv, "")
			require.Equal(t, "snapshot", page.next().name)
			var got []string
			var last float64
			for range tc.ticks {
				got = got[:0] // the last tick's
				tick(t, tree, dbg, 1)
				for last < float64(len(made)) {
					ev := page.next()
					if ev.name != "delta" {
						continue
					}
					for _, x := range ev.data["transitions"].([]any) {
						tr := x.([]any)
						got = append(got, fmt.Sprint(tr[0], " ", tr[1], " ", tr[2], " ", tr[3]))
					}
					last = ev.data["n"].(float64)
				}
			}
			require.Greater(t, len(made), 2000*tc.ticks, "more transitions a tick than the ring holds")
			assert.Equal(t, float64(len(made)), last, "every transition counted")
			require.NotEmpty(t, got)
			// The newest len(got) transitions of the last tick, numbered
			// from 1 as the tree made them.
			first := len(made) - len(got)
			for i, g := range got {
				require.Equal(t, fmt.Sprint(first+i+1, " ", made[first+i]), g, "transition %d of the newest", i)
			}
		})
	}
}

// transitionsOnly hands a debugger batches alone, as an observer that
// wraps it and knows nothing of runtime.ChangesObserver would.
type transitionsOnly struct{ o runtime.Observer }

func (w transitionsOnly) OnTransitions(batch []runtime.Transition) { w.o.OnTransitions(batch) }

// batchObserver is an observer of whole batches.
type batchObserver func([]runtime.Transition)

func (f batchObserver) OnTransitions(batch []runtime.Transition) { f(batch) }

// nextWithin is page.next, failing when no event comes within d.
func nextWithin(t *testing.T, page *sseReader, d time.Duration) sse {
	t.Helper()
	type got struct {
		e   sse
		err error
	}
	ch := make(chan got, 1)
	go func() {
		e, err := page.nextErr()
		ch <- got{e, err}
	}()
	select {
	case g := <-ch:
		require.NoError(t, g.err)
		return g.e
	case <-time.After(d):
		require.FailNow(t, "no event within "+d.String())
		return sse{}
	}
}

// TestABusyDeltaShowsEachNodeAsTheTickLeftIt: a busy tick (more
// transitions than a delta carries) reaches the page as each node's
// state at the tick's end — the root RUNNING, every other node IDLE
// after SUCCESS, each with its reason — whether the studio reads the
// nodes the tree says the tick changed, or (behind an observer that hands
// it batches alone) each transition — also when the pump sends an event
// between the batch and the nodes it changed (a full run had the page
// keep the nodes as they were: the event carried the batch's count, the
// next one none of its nodes).
func TestABusyDeltaShowsEachNodeAsTheTickLeftIt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wrap    bool
		between bool // an event sent after the batch, before its changes
	}{
		{name: "the nodes the tick changed (runtime.ChangesObserver)"},
		{name: "each transition, behind another observer", wrap: true},
		{name: "an event sent between the batch and the nodes it changed", between: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 1200
			srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond})
			tree := bigTree(t, n)
			tree.SetExplaining(true)
			var made atomic.Int64
			tree.Observe(runtime.ObserverFunc(func(runtime.Transition) { made.Add(1) }))
			dbg := srv.Debugger(studio.LiveConf{Name: "offline"})(mission.Shown{Tree: tree, Rate: 20})
			var o runtime.Observer = dbg
			if tc.wrap {
				o = transitionsOnly{dbg}
			}
			defer tree.Observe(o)()
			defer tree.Hook(dbg)()
			page := openEvents(t, srv, "")
			require.Equal(t, "snapshot", nextWithin(t, page, 10*time.Second).name)
			got := map[int]string{}
			read := func(ev sse) {
				for uid, nd := range deltaNodes(t, ev.data) {
					got[uid] = fmt.Sprint(nd.status, " ", nd.last, " ", nd.reason)
				}
			}
			if tc.between {
				// Observers get the batch in the order they came, then
				// the changes: this one runs after the debugger's
				// OnTransitions, before its OnChanged. A mark wakes the
				// pump; its event is read here.
				marked := false
				defer tree.Observe(batchObserver(func([]runtime.Transition) {
					if marked {
						return
					}
					marked = true
					dbg.(interface {
						Mark(at time.Time, kind, label, text string)
					}).Mark(time.Now(), "fault", "F", "between")
					for {
						ev := nextWithin(t, page, 10*time.Second)
						if ev.name == "delta" {
							read(ev)
							if ev.data["marks"] != nil {
								assert.Equal(t, float64(made.Load()), ev.data["n"], "the batch's count")
								return
							}
						}
					}
				}))()
			}
			// The page connected before the tick: the tick is noted for
			// it, however late the pump wakes (a tick begun before the
			// pump had woken for the page once went unnoted under load,
			// proof run 452: no event carried a node).
			tick(t, tree, dbg, 1)
			require.True(t, studio.NodesNoted(dbg), "a page read: the tick noted the nodes it changed")
			for {
				ev := nextWithin(t, page, 10*time.Second)
				if ev.name != "delta" {
					continue
				}
				read(ev)
				if ev.data["n"].(float64) == float64(made.Load()) {
					break
				}
			}
			require.Greater(t, made.Load(), int64(2000), "a busy tick")
			want := map[int]string{}
			for i, nd := range tree.Nodes() {
				st := "IDLE SUCCESS"
				if i == 0 {
					st = "RUNNING IDLE"
				}
				want[i+1] = st + " " + runtime.NodeOf(nd).Reason()
			}
			assert.Equal(t, want, got, "each node as the tick left it: uid → status, last, reason")
		})
	}
}

// TestThePumpSleepsWhileNoPageReads: with no page, the pump waits for
// one instead of waking every period; a page that connects then gets a
// snapshot of the ticks made meanwhile, and deltas of the ticks after.
func TestThePumpSleepsWhileNoPageReads(t *testing.T) {
	srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond})
	tree := bigTree(t, 100)
	var made atomic.Int64
	tree.Observe(runtime.ObserverFunc(func(runtime.Transition) { made.Add(1) }))
	dbg, detach := attach(srv, tree)
	defer detach()
	tick(t, tree, dbg, 3)
	require.Eventually(t, func() bool { return studio.PumpAsleep(dbg) }, 10*time.Second, time.Millisecond, "the pump waits for a page")
	page := openEvents(t, srv, "")
	snap := nextWithin(t, page, 10*time.Second)
	require.Equal(t, "snapshot", snap.name)
	assert.Equal(t, float64(made.Load()), snap.data["n"], "the snapshot counts the ticks made while no page read")
	// Read for from the moment it connected, not from when the pump
	// woke for it.
	assert.False(t, studio.PumpAsleep(dbg), "a page reads")
	tick(t, tree, dbg, 1)
	assert.True(t, studio.NodesNoted(dbg), "the tick after a page connected is noted for it")
	for {
		ev := nextWithin(t, page, 10*time.Second)
		if ev.name == "delta" && ev.data["n"].(float64) == float64(made.Load()) {
			break
		}
	}
	assert.False(t, studio.PumpAsleep(dbg), "the pump woke for the page")
}

// pageView is the statuses of a run's nodes as a page has them from its
// events, applied as the page's monitor applies them: the snapshot's,
// then each delta's transitions and nodes.
type pageView struct {
	status []string
	n      float64
}

func (v *pageView) apply(ev sse) {
	d := ev.data
	if ev.name == "snapshot" {
		v.status = v.status[:0]
		for _, s := range d["statuses"].([]any) {
			v.status = append(v.status, s.(string))
		}
		v.n = d["n"].(float64)
		return
	}
	trs, _ := d["transitions"].([]any)
	for _, x := range trs {
		if tr := x.([]any); tr[0].(float64) > v.n {
			v.status[int(tr[1].(float64))-1] = tr[3].(string)
		}
	}
	for uid, nd := range deltaNodes(nil, d) {
		v.status[uid-1] = nd.status
	}
	v.n = max(v.n, d["n"].(float64))
}

// eventNode is a node as a delta's nodes or packed say it is.
type eventNode struct {
	status, last, reason string
	since                float64
}

// deltaNodes is the nodes a busy delta says are as they are now, by uid:
// its nodes ([uid, status, last, reason, since] each), or every node of
// its packed form, decoded as the page's monitor decodes it. t, when
// given, fails the test on a malformed packed form.
func deltaNodes(t testing.TB, d map[string]any) map[int]eventNode {
	out := map[int]eventNode{}
	nodes, _ := d["nodes"].([]any)
	for _, x := range nodes {
		nd := x.([]any)
		out[int(nd[0].(float64))] = eventNode{nd[1].(string), nd[2].(string), nd[3].(string), nd[4].(float64)}
	}
	p, ok := d["packed"].(map[string]any)
	if !ok {
		return out
	}
	names := map[rune]string{'I': "IDLE", 'R': "RUNNING", 'S': "SUCCESS", 'F': "FAILURE", 'K': "SKIPPED"}
	status, last := []rune(p["status"].(string)), []rune(p["last"].(string))
	if t != nil {
		require.Len(t, last, len(status), "a last status a node")
	}
	for i, c := range status {
		out[i+1] = eventNode{status: names[c], last: names[last[i]]}
	}
	text := ""
	for _, x := range p["reasons"].([]any) {
		if s, ok := x.(string); ok {
			text = s
			continue
		}
		nd := out[int(x.(float64))]
		nd.reason = text
		out[int(x.(float64))] = nd
	}
	since, uid := p["since"].([]any), 1
	for k := 0; k+1 < len(since); k += 2 {
		for range int(since[k+1].(float64)) {
			nd := out[uid]
			nd.since = since[k].(float64)
			out[uid] = nd
			uid++
		}
	}
	if t != nil {
		require.Equal(t, len(status)+1, uid, "a since time a node")
	}
	return out
}

// statuses is the status of each node of tree.
func statuses(tree *runtime.Tree) []string {
	var out []string
	for _, nd := range tree.Nodes() {
		out = append(out, runtime.NodeOf(nd).Status().String())
	}
	return out
}

// TestAPageSeesWhatTheTreeDidWhileNoPageRead: while no page reads, the
// tree notes no changes for the studio (and the studio reads no node);
// a page that connects then is shown every node as the tree is — at
// once for a quiet tree (its transitions keep the state), or when a
// busy tree is held at a breakpoint or its run has ended (the nodes read
// then, on the tick's goroutine), else after the next tick (every node
// read at its end). Here the root went RUNNING while no page read, and
// stays so: no later transition shows it. (What an IDLE node left, the
// page takes from the transitions it is given.)
func TestAPageSeesWhatTheTreeDidWhileNoPageRead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes int // 1200: about 2,400 transitions a tick, a busy tree's
		// run drives the tree while no page reads; then a page
		// connects and connected (if set) drives it on.
		run       func(t *testing.T, srv *studio.Server, tree *runtime.Tree, dbg mission.Debugger)
		connected func(t *testing.T, tree *runtime.Tree, dbg mission.Debugger)
	}{
		{
			name:  "a quiet tree: at once",
			nodes: 40,
			run: func(t *testing.T, _ *studio.Server, tree *runtime.Tree, dbg mission.Debugger) {
				tick(t, tree, dbg, 2)
			},
		},
		{
			name:  "a busy tree that ticks on: the next tick's end",
			nodes: 1200,
			run: func(t *testing.T, _ *studio.Server, tree *runtime.Tree, dbg mission.Debugger) {
				tick(t, tree, dbg, 2)
			},
			connected: func(t *testing.T, tree *runtime.Tree, dbg mission.Debugger) {
				require.Eventually(t, func() bool { return !studio.PumpAsleep(dbg) }, 10*time.Second, time.Millisecond, "the pump wakes for the page")
				tick(t, tree, dbg, 1)
				assert.True(t, studio.NodesNoted(dbg), "a page reads: the tree notes the nodes each tick changed")
			},
		},
		{
			name:  "a busy tree held at a breakpoint: at once",
			nodes: 1200,
			run: func(t *testing.T, srv *studio.Server, tree *runtime.Tree, dbg mission.Debugger) {
				tick(t, tree, dbg, 1)
				code, body := post(t, srv.Addr(), "", `{"op":"break","uid":5,"at":"before","on":true}`)
				require.Equal(t, 200, code, body)
				held := make(chan struct{})
				go func() { defer close(held); tick(t, tree, dbg, 1) }()
				t.Cleanup(func() { dbg.Resume(); <-held })
				require.Eventually(t, dbg.Paused, 10*time.Second, time.Millisecond, "held before node 5")
			},
		},
		{
			name:  "a busy tree whose run ended: at once",
			nodes: 1200,
			run: func(t *testing.T, _ *studio.Server, tree *runtime.Tree, dbg mission.Debugger) {
				tick(t, tree, dbg, 2)
				dbg.Close(mission.Report{Status: runtime.Running})
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond, AllowControl: true})
			tree := bigTree(t, tc.nodes)
			dbg, detach := attach(srv, tree)
			defer detach()
			require.Eventually(t, func() bool { return studio.PumpAsleep(dbg) }, 10*time.Second, time.Millisecond, "the pump waits for a page")
			tc.run(t, srv, tree, dbg)
			if !dbg.Paused() {
				assert.False(t, studio.NodesNoted(dbg), "no page reads: the tree notes nothing for the studio")
			}
			want := statuses(tree)
			require.Equal(t, "RUNNING", want[0], "the root runs")
			page := openEvents(t, srv, "")
			var view pageView
			snap := nextWithin(t, page, 10*time.Second)
			require.Equal(t, "snapshot", snap.name)
			view.apply(snap)
			if tc.connected == nil {
				assert.Equal(t, want, view.status, "the snapshot: each node as the tree is")
				return
			}
			tc.connected(t, tree, dbg)
			want = statuses(tree)
			deadline := time.Now().Add(10 * time.Second)
			for !assert.ObjectsAreEqual(want, view.status) && time.Now().Before(deadline) {
				view.apply(nextWithin(t, page, 10*time.Second))
			}
			assert.Equal(t, want, view.status, "each node as the tree is, after the next tick")
		})
	}
}

// TestASnapshotCarriesEachNodesLastResult: a page that connects to a
// busy tree (its transitions far more than the snapshot's timeline
// holds) gets the result each IDLE node last left, as the tree has it,
// not only those of the transitions in the snapshot.
func TestASnapshotCarriesEachNodesLastResult(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ticks int
	}{
		{name: "one busy tick", ticks: 1},
		{name: "three busy ticks", ticks: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond})
			tree := variedBusyTree(t)
			dbg, detach := attach(srv, tree)
			defer detach()
			first := openEvents(t, srv, "")
			require.Equal(t, "snapshot", nextWithin(t, first, 10*time.Second).name)
			tick(t, tree, dbg, tc.ticks)
			snap := openEvents(t, srv, "").next()
			require.Equal(t, "snapshot", snap.name)
			var want, got []string
			for _, nd := range tree.Nodes() {
				want = append(want, runtime.NodeOf(nd).LastResult().String())
			}
			last, _ := snap.data["last"].([]any)
			for _, l := range last {
				got = append(got, l.(string))
			}
			require.Contains(t, want, "FAILURE", "varied results")
			assert.Equal(t, want, got, "each node's last result")
		})
	}
}

// TestAPageThatConnectsLosesNoChangeForAnother: a page reads a busy
// tree; the tree ticks, and a second page connects (a snapshot) before
// the pump sends the tick; the first page's next delta still carries
// every node the tick changed, each page then holding the tree as it is.
func TestAPageThatConnectsLosesNoChangeForAnother(t *testing.T) {
	for _, tc := range busyEventWays {
		t.Run(tc.name, func(t *testing.T) {
			// The pump sends nothing for an hour after its start: only
			// the run's end, at Close.
			srv := newServer(t, studio.Conf{PumpEvery: time.Hour})
			tree := variedBusyTree(t)
			dbg, detach := attach(srv, tree)
			defer detach()
			studio.SetPacked(dbg, tc.packed)
			first := openEvents(t, srv, "")
			var view pageView
			view.apply(nextWithin(t, first, 10*time.Second))
			tick(t, tree, dbg, 2)
			second := openEvents(t, srv, "")
			snap := nextWithin(t, second, 10*time.Second)
			require.Equal(t, "snapshot", snap.name)
			dbg.Close(mission.Report{})
			for {
				ev := nextWithin(t, first, 10*time.Second)
				view.apply(ev)
				if _, end := ev.data["end"]; end {
					break
				}
			}
			assert.Equal(t, statuses(tree), view.status, "the first page's nodes")
		})
	}
}
