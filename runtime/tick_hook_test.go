package runtime

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookLog is a TickHook that logs its calls and replaces the statuses it
// is told to.
type hookLog struct {
	name          string
	log           *eventLog
	before, after map[string]Status // node name -> status to return
}

func (h *hookLog) BeforeTick(n *Base) Status {
	h.log.add(fmt.Sprintf("%s<%s", h.name, n.Name()))
	return h.before[n.Name()]
}

func (h *hookLog) AfterTick(n *Base, st Status) Status {
	h.log.add(fmt.Sprintf("%s>%s:%s", h.name, n.Name(), st))
	return h.after[n.Name()]
}

func TestTickHooks(t *testing.T) {
	seq := func() *NodeSpec { return N("Sequence", A("name", "seq"), S("A", "S"), S("B", "R")) }
	cases := []struct {
		name   string
		tree   *NodeSpec
		hooks  []*hookLog
		want   Status
		events []string
	}{
		{"around every tick, depth first, after sees the status",
			seq(), []*hookLog{{name: "h"}}, Running,
			[]string{"h<seq", "h<A", "A", "h>A:SUCCESS", "h<B", "B", "h>B:RUNNING", "h>seq:RUNNING"}},
		{"a completed status before the tick replaces it",
			seq(), []*hookLog{{name: "h", before: map[string]Status{"A": Failure}}}, Failure,
			[]string{"h<seq", "h<A", "h>A:FAILURE", "h>seq:FAILURE"}},
		{"RUNNING and SKIPPED before the tick leave it alone",
			seq(), []*hookLog{{name: "h", before: map[string]Status{"A": Running, "B": Skipped}}}, Running,
			[]string{"h<seq", "h<A", "A", "h>A:SUCCESS", "h<B", "B", "h>B:RUNNING", "h>seq:RUNNING"}},
		{"a completed status after the tick replaces the node's",
			seq(), []*hookLog{{name: "h", after: map[string]Status{"B": Success}}}, Success,
			[]string{"h<seq", "h<A", "A", "h>A:SUCCESS", "h<B", "B", "h>B:RUNNING", "h>seq:SUCCESS"}},
		{"two hooks: before in order, after in reverse; the first replacement wins",
			seq(), []*hookLog{{name: "1", before: map[string]Status{"A": Failure}}, {name: "2", before: map[string]Status{"A": Success}}}, Failure,
			[]string{"1<seq", "2<seq", "1<A", "2>A:FAILURE", "1>A:FAILURE", "2>seq:FAILURE", "1>seq:FAILURE"}},
		{"a pre-condition that decides skips BeforeTick, not AfterTick",
			N("Sequence", A("name", "seq"), S("A", "S", "_failureIf", "true")), []*hookLog{{name: "h"}}, Failure,
			[]string{"h<seq", "h>A:FAILURE", "h>seq:FAILURE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			tree, _ := buildTest(t, tc.tree, log)
			var removes []func()
			for _, h := range tc.hooks {
				h.log = log
				removes = append(removes, tree.Hook(h))
			}
			st, err := tree.TickExactlyOnce()
			require.NoError(t, err)
			assert.Equal(t, tc.want, st)
			assert.Equal(t, tc.events, log.take())
			for _, r := range removes {
				r()
			}
			assert.Nil(t, tree.hooks, "detached")
			tree.Halt()
			_, err = tree.TickExactlyOnce()
			require.NoError(t, err)
			for _, e := range log.take() {
				assert.NotContains(t, e, "<", "no hook after detaching")
			}
		})
	}
}

// TestTrackTicking: while TrackTicking is on, Ticking names the innermost
// node whose tick is under way (the writer of a blackboard change made
// during it), nil between ticks; it stays on while a tick hook comes and
// goes, and once every user stopped it Execute takes its common path
// again.
func TestTrackTicking(t *testing.T) {
	tree := func() *NodeSpec {
		return N("Sequence", A("name", "seq"),
			N("Script", A("name", "first", "code", "a := 1")),
			N("Inverter", A("name", "not"), N("Script", A("name", "inner", "code", "b := 2"))),
			N("Script", A("name", "last", "code", "c := 3")))
	}
	cases := []struct {
		name  string
		users int  // TrackTicking calls
		hook  bool // a tick hook attached and removed meanwhile
		want  map[string]string
	}{
		{"each write is named after the node that made it", 1, false,
			map[string]string{"a": "first", "b": "inner", "c": ""}},
		{"two users, and a hook that comes and goes", 2, true,
			map[string]string{"a": "first", "b": "inner", "c": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, _ := buildTest(t, tree(), &eventLog{})
			var stops []func()
			for range tc.users {
				stops = append(stops, tr.TrackTicking())
			}
			if tc.hook {
				tr.Hook(&hookLog{log: &eventLog{}})()
			}
			got := map[string]string{}
			tr.Blackboard().OnChange(func(c Change) {
				w := ""
				if n := tr.Ticking(); n != nil {
					w = n.Name()
				}
				got[c.Key] = w
			})
			st, err := tr.TickExactlyOnce()
			require.NoError(t, err)
			assert.Equal(t, Failure, st, "the inverter fails the sequence before last")
			assert.Nil(t, tr.Ticking(), "nothing ticks between ticks")
			require.NoError(t, tr.Blackboard().Set("c", 3))
			assert.Equal(t, tc.want, got, "a write between ticks has no writer")
			for i, stop := range stops {
				stop()
				stop() // twice: once
				if i < len(stops)-1 {
					assert.NotNil(t, tr.hooks, "still on for the other user")
				}
			}
			assert.Nil(t, tr.hooks, "the common path again")
			assert.Nil(t, tr.Ticking())
		})
	}
}
