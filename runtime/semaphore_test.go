package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// semAction is one step of a semaphore case: tick tree (or halt it, or
// move the clock), then check.
type semAction struct {
	tree    string // robot1, robot2, robot3
	halt    bool
	advance time.Duration
	want    Status
	reason  string // the Semaphore's reason contains it ("" unchecked)
	woken   []string
	holders []string // the semaphore's holders after the step (nil unchecked)
}

// TestSemaphore: at most capacity trees run their child at once; the
// others wait RUNNING, first come first served, told who holds it; a slot
// given back wakes the first in line; halting gives the slot back or
// leaves the queue; wait_msec bounds the wait.
func TestSemaphore(t *testing.T) {
	ms := time.Millisecond
	sem := func(capacity, wait string, child *NodeSpec) *NodeSpec {
		return N("Semaphore", A("resource", "dock", "capacity", capacity, "wait_msec", wait), child)
	}
	const (
		h1 = "robot1: MainTree/Semaphore"
		h2 = "robot2: MainTree/Semaphore"
		h3 = "robot3: MainTree/Semaphore"
	)
	for _, tc := range []struct {
		name  string
		trees map[string]*NodeSpec
		steps []semAction
	}{
		{
			name: "one slot: the second waits, told who holds it, and is woken when it is given back",
			trees: map[string]*NodeSpec{
				"robot1": sem("1", "0", S("work", "R,S")),
				"robot2": sem("1", "0", S("work", "S")),
			},
			steps: []semAction{
				{tree: "robot1", want: Running, holders: []string{h1}},
				{tree: "robot2", want: Running, reason: "waiting for semaphore dock: held by " + h1, holders: []string{h1}},
				{tree: "robot2", want: Running},
				{tree: "robot1", want: Success, woken: []string{"robot2"}, holders: []string{}},
				{tree: "robot2", want: Success, holders: []string{}},
			},
		},
		{
			name: "first come, first served: a later waiter does not overtake",
			trees: map[string]*NodeSpec{
				"robot1": sem("1", "0", S("work", "R,S")),
				"robot2": sem("1", "0", S("work", "R")),
				"robot3": sem("1", "0", S("work", "R")),
			},
			steps: []semAction{
				{tree: "robot1", want: Running},
				{tree: "robot2", want: Running},
				{tree: "robot3", want: Running, reason: "held by " + h1 + " (1 waiting before this one)"},
				{tree: "robot1", want: Success, woken: []string{"robot2"}},
				{tree: "robot3", want: Running, reason: "waiting for semaphore dock", holders: []string{}},
				{tree: "robot2", want: Running, holders: []string{h2}},
				{tree: "robot3", want: Running, reason: "held by " + h2},
			},
		},
		{
			name: "two slots: two run at once, the third waits",
			trees: map[string]*NodeSpec{
				"robot1": sem("2", "0", S("work", "R")),
				"robot2": sem("2", "0", S("work", "R")),
				"robot3": sem("2", "0", S("work", "R")),
			},
			steps: []semAction{
				{tree: "robot1", want: Running},
				{tree: "robot2", want: Running, holders: []string{h1, h2}},
				{tree: "robot3", want: Running, reason: "held by " + h1 + ", " + h2},
			},
		},
		{
			name: "halting the holder gives the slot back; halting a waiter leaves the queue",
			trees: map[string]*NodeSpec{
				"robot1": sem("1", "0", S("work", "R")),
				"robot2": sem("1", "0", S("work", "R")),
				"robot3": sem("1", "0", S("work", "R")),
			},
			steps: []semAction{
				{tree: "robot1", want: Running},
				{tree: "robot2", want: Running},
				{tree: "robot3", want: Running},
				{tree: "robot2", halt: true},
				{tree: "robot1", halt: true, woken: []string{"robot3"}, holders: []string{}},
				{tree: "robot3", want: Running, holders: []string{h3}},
			},
		},
		{
			name: "wait_msec: past it the waiter fails, naming the holder, and leaves the queue",
			trees: map[string]*NodeSpec{
				"robot1": sem("1", "0", S("work", "R")),
				"robot2": sem("1", "500", S("work", "R")),
				"robot3": sem("1", "0", S("work", "R")),
			},
			steps: []semAction{
				{tree: "robot1", want: Running},
				{tree: "robot2", want: Running},
				{tree: "robot3", want: Running, reason: "(1 waiting before this one)"},
				{tree: "robot2", advance: 499 * ms, want: Running},
				{tree: "robot2", advance: 1 * ms, want: Failure, reason: "no slot of semaphore dock within 500ms: held by " + h1},
				{tree: "robot3", want: Running, reason: "waiting for semaphore dock: held by " + h1 + "$"},
			},
		},
		{
			name: "a failing child gives the slot back too",
			trees: map[string]*NodeSpec{
				"robot1": sem("1", "0", S("work", "F")),
				"robot2": sem("1", "0", S("work", "S")),
			},
			steps: []semAction{
				{tree: "robot1", want: Failure, holders: []string{}},
				{tree: "robot2", want: Success},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := NewSemaphores()
			clock := NewManualClock(testEpoch)
			trees := map[string]*Tree{}
			for owner, root := range tc.trees {
				doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: root}}}
				tree, err := Build(testRegistry(&eventLog{}), doc, BuildConf{Clock: clock, Seed: 1, Semaphores: table, Owner: owner})
				require.NoError(t, err)
				tree.SetExplaining(true)
				trees[owner] = tree
			}
			for i, s := range tc.steps {
				for _, tree := range trees { // drain earlier wake-ups
					select {
					case <-tree.WakeC():
					default:
					}
				}
				clock.Advance(s.advance)
				tree := trees[s.tree]
				if s.halt {
					tree.Halt()
				} else {
					st, err := tree.TickExactlyOnce()
					require.NoError(t, err, "step %d", i+1)
					assert.Equal(t, s.want, st, "step %d: %s's status", i+1, s.tree)
				}
				if s.reason != "" {
					reason := tree.Root().base().Reason()
					if r, anchored := cutSuffix(s.reason, "$"); anchored {
						assert.Equal(t, r, reason[len(reason)-min(len(reason), len(r)):], "step %d: the reason ends so", i+1)
						assert.NotContains(t, reason, "waiting before", "step %d", i+1)
					} else {
						assert.Contains(t, reason, s.reason, "step %d", i+1)
					}
				}
				for owner, other := range trees {
					woken := false
					select {
					case <-other.WakeC():
						woken = true
					default:
					}
					if s.halt || owner != s.tree {
						assert.Equal(t, contains(s.woken, owner), woken, "step %d: %s woken", i+1, owner)
					}
				}
				if s.holders != nil {
					assert.Equal(t, s.holders, append([]string{}, table.Holders("dock")...), "step %d: holders", i+1)
				}
			}
		})
	}
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSemaphoreCapacityMustAgree: holders of one name asking different
// capacities is an error that names who set it; a capacity of 0 is
// refused when the tree is built.
func TestSemaphoreCapacityMustAgree(t *testing.T) {
	table := NewSemaphores()
	build := func(owner, capacity string) *Tree {
		doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: N("Semaphore", A("resource", "lift", "capacity", capacity), S("work", "R"))}}}
		tree, err := Build(testRegistry(&eventLog{}), doc, BuildConf{Clock: NewManualClock(testEpoch), Semaphores: table, Owner: owner})
		require.NoError(t, err)
		return tree
	}
	_, err := build("robot1", "2").TickExactlyOnce()
	require.NoError(t, err)
	_, err = build("robot2", "1").TickExactlyOnce()
	require.ErrorContains(t, err, "semaphore lift has capacity 2 (robot1: MainTree/Semaphore says so), not 1: every holder must ask the same")

	runBuildErrors(t, []buildErrorCase{
		{name: "no slots", tree: N("Semaphore", A("resource", "x", "capacity", "0"), S("work", "R")), want: `MainTree/Semaphore: port "capacity": 0 slots would never run the child; want 1 or more`},
		{name: "no resource", tree: N("Semaphore", nil, S("work", "R")), want: `MainTree/Semaphore: missing required input port "resource" (string): what is shared: the nodes that name the same resource share its slots`},
	})
}
