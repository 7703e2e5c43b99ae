package studio_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

// variedBusyTree is a busy tree (about 2,400 transitions a tick, more
// than a delta carries) whose nodes end each tick in different states:
// the root RUNNING, sequences and leaves IDLE after SUCCESS, a failing
// leaf in each fallback IDLE after FAILURE, reasons on the controls.
func variedBusyTree(t testing.TB) *runtime.Tree {
	var sb strings.Builder
	sb.WriteString(`<root BTCPP_format="4" main_tree_to_execute="Varied"><BehaviorTree ID="Varied"><KeepRunningUntilFailure><Sequence>`)
	for range 110 {
		sb.WriteString(`<Sequence>` + strings.Repeat(`<AlwaysSuccess/>`, 7) + `</Sequence>`)
		sb.WriteString(`<Fallback><AlwaysFailure/><AlwaysSuccess/></Fallback>`)
	}
	sb.WriteString(`</Sequence></KeepRunningUntilFailure></BehaviorTree></root>`)
	return buildXML(t, "varied.xml", sb.String())
}

// busyEventWays are the two ways a busy event carries the nodes (the
// tests force each with studio.SetPacked): every node packed, or an array
// a changed node.
var busyEventWays = []struct {
	name   string
	packed bool
}{
	{name: "packed", packed: true},
	{name: "a node at a time", packed: false},
}

// pageNodes is each node as the page's monitor holds it.
type pageNodes struct {
	Status, Last, Reason []string
	Since                []float64
}

// TestAPackedEventShowsWhatPerNodeDeltasShow: a busy tree's events,
// packed (every node, a character a status) or listing each changed node,
// leave the page in chromium with the same state — each node's status,
// last result, reason and since-time as the tree and the studio have
// them — and the nodes drawn so.
func TestAPackedEventShowsWhatPerNodeDeltasShow(t *testing.T) {
	ctx := browser(t)
	for _, tc := range busyEventWays {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond})
			tree := variedBusyTree(t)
			tree.SetExplaining(true)
			var made atomic.Int64
			tree.Observe(runtime.ObserverFunc(func(runtime.Transition) { made.Add(1) }))
			dbg, detach := attach(srv, tree)
			defer detach()
			studio.SetPacked(dbg, tc.packed)
			tick(t, tree, dbg, 1)
			within(t, ctx, 30*time.Second, chromedp.Navigate(srv.URL()))
			waitJS(t, ctx, 30*time.Second, `document.querySelectorAll('g.node').length > 20 && window.studio.stats.events > 0`, "the tree drawn")
			reader := openEvents(t, srv, "")
			require.Equal(t, "snapshot", nextWithin(t, reader, 10*time.Second).name)
			tick(t, tree, dbg, 3)
			packed, listed := 0, 0
			for {
				ev := nextWithin(t, reader, 10*time.Second)
				if ev.name != "delta" {
					continue
				}
				if _, ok := ev.data["packed"]; ok {
					packed++
				}
				if nodes, _ := ev.data["nodes"].([]any); len(nodes) > 0 {
					listed++
				}
				if ev.data["n"].(float64) == float64(made.Load()) {
					break
				}
			}
			require.Greater(t, made.Load(), int64(4*2000), "busy ticks")
			if tc.packed {
				assert.Positive(t, packed, "a busy delta is packed")
			} else {
				assert.Zero(t, packed, "no delta packed")
				assert.Positive(t, listed, "busy deltas list their nodes")
			}
			waitJS(t, ctx, 20*time.Second, `window.studio.state.n === `+jsNumber(float64(made.Load())), "the page has every tick")

			// What the tree and the studio say: statuses, last results
			// and reasons from the nodes, since-times from a snapshot.
			snap := openEvents(t, srv, "").next()
			require.Equal(t, "snapshot", snap.name)
			var want pageNodes
			for i, nd := range tree.Nodes() {
				b := runtime.NodeOf(nd)
				want.Status = append(want.Status, b.Status().String())
				last := ""
				if b.Status() == runtime.Idle && b.LastResult().Completed() {
					last = b.LastResult().String()
				}
				want.Last = append(want.Last, last)
				want.Reason = append(want.Reason, b.Reason())
				want.Since = append(want.Since, snap.data["since"].([]any)[i].(float64))
			}
			require.Contains(t, want.Last, "FAILURE", "the tree ends its ticks in varied states")
			require.Contains(t, want.Last, "SUCCESS")
			got := eval[pageNodes](t, ctx, `(() => { const S = window.studio.state;
				return {Status: S.status, Last: S.last, Reason: S.reason, Since: S.since} })()`)
			assert.Equal(t, want.Status, got.Status, "statuses")
			assert.Equal(t, want.Last, got.Last, "last results")
			assert.Equal(t, want.Reason, got.Reason, "reasons")
			assert.Equal(t, want.Since, got.Since, "since-times")
			// The nodes drawn (those near the view) show it.
			waitJS(t, ctx, 10*time.Second, `[...document.querySelectorAll('g.node')].every((g) => {
				const i = g.dataset.uid - 1, S = window.studio.state;
				return g.dataset.status === S.status[i] && (g.dataset.last || '') === S.last[i] })`, "the nodes drawn as the page holds them")
		})
	}
}
