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
