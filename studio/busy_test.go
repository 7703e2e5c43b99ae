package studio_test

import (
	"fmt"
	goruntime "runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

// TestABusyTreeCostsTheTickNoMemory: a tree whose 5,000 nodes all change
// on every tick (about 10,000 transitions a tick), with the studio
// attached. However late the pump (here it never runs), the tick writes
// each node's last state into a frame of the tree's size and keeps the
// newest transitions in a bounded ring: it allocates nothing, and what a
// page then gets is the tree as it is.
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
			sts := snap.data["statuses"].([]any)
			require.Len(t, sts, 5000)
			assert.Equal(t, "RUNNING", sts[0], "the root runs")
			for i, st := range sts[2:] {
				require.Equal(t, "IDLE", st, "node %d is IDLE between ticks", i+3)
			}
			assert.Equal(t, float64(made.Load()), snap.data["n"], "every transition counted")
		})
	}
}

// TestABusyTickKeepsItsNewestTransitions: ticks of more transitions than
// the frame's ring holds (about 2,400 a tick against 2,000; the tree
// gives them to the studio in one batch a tick) — the page gets every
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
