package runtime

import (
	"testing"
	"time"
)

// pipelineNode ticks all its children on every tick and never resets them,
// as Nav2's PipelineSequence keeps a RateController's SUCCESS between
// ticks; it returns its first child's status.
type pipelineNode struct{ Base }

func (n *pipelineNode) Tick() (Status, error) {
	n.setStatus(Running)
	first := Running
	for i, c := range n.children {
		st, err := Execute(c)
		if err != nil {
			return st, err
		}
		if i == 0 {
			first = st
		}
	}
	return first, nil
}

func pipelineRegistry(log *eventLog) *Registry {
	r := testRegistry(log)
	r.MustRegister(NodeType{ID: "Pipeline", Kind: ControlKind,
		New: func(*Config) (Node, error) { return &pipelineNode{}, nil }})
	return r
}

func TestRateController(t *testing.T) {
	rc := func(attrs []Attr, child *NodeSpec) *NodeSpec { return N("RateController", attrs, child) }
	pipe := func(children ...*NodeSpec) *NodeSpec { return N("Pipeline", nil, children...) }
	ms := time.Millisecond
	runNodeCases(t, []nodeCase{
		{name: "under a parent that resets it, every start ticks the child at once",
			tree:  rc(A("hz", "1"), S("A", "S")),
			steps: ticks(Success, "A", Success, "A")},
		{name: "a RUNNING child is ticked on every tick", tree: rc(A("hz", "1"), S("A", "R,R,F")),
			steps: ticks(Running, "A", Running, "A", Failure, "A")},
		{name: "a skipped child skips the node (Nav2 would fail)", tree: rc(nil, S("A", "K")),
			steps: ticks(Skipped, "A")},
		{
			name: "kept after a SUCCESS, it is RUNNING until the period ends, then ticks the child",
			reg:  pipelineRegistry,
			tree: pipe(rc(A("hz", "10"), S("A", "S"))),
			steps: []step{
				tick(Success, "A"),
				tick(Running, "").after(50 * ms).askingTick(100 * ms),
				tick(Running, "").after(49 * ms),
				tick(Success, "A").after(1 * ms),
				tick(Running, "").after(99 * ms).askingTick(200 * ms),
				tick(Success, "A").after(1 * ms),
			},
		},
		{
			name: "a SUCCESS restarts the period from the moment the child succeeded",
			reg:  pipelineRegistry,
			tree: pipe(rc(A("hz", "10"), S("A", "R,S"))),
			steps: []step{
				tick(Running, "A"),
				tick(Success, "A").after(70 * ms),
				tick(Running, "").after(99 * ms),
				tick(Success, "A").after(1 * ms),
			},
		},
		{
			name: "a FAILURE does not restart the period",
			reg:  pipelineRegistry,
			tree: pipe(rc(A("hz", "10"), S("A", "R,F,S"))),
			steps: []step{
				tick(Running, "A"),
				tick(Failure, "A").after(60 * ms),
				tick(Running, "").after(20 * ms),
				tick(Success, "A").after(20 * ms),
			},
		},
		{
			name: "default 10 hz",
			reg:  pipelineRegistry,
			tree: pipe(rc(nil, S("A", "S"))),
			steps: []step{
				tick(Success, "A"), tick(Running, "").after(99 * ms), tick(Success, "A").after(1 * ms),
			},
		},
		{
			name: "halt starts it afresh: the child is ticked on the next tick",
			reg:  pipelineRegistry,
			tree: pipe(rc(A("hz", "1"), S("A", "S"))),
			steps: []step{
				tick(Success, "A"), tick(Running, "").after(10 * ms),
				halted(""), tick(Success, "A"),
			},
		},
		{
			name:  "a bad hz entry is a tick error",
			tree:  rc(A("hz", "{rate}"), S("A", "S")),
			bb:    map[string]any{"rate": -2.0},
			steps: []step{fails(`MainTree/RateController (RateController): hz is -2; want a rate > 0`)},
		},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "hz 0", tree: rc(A("hz", "0"), S("A", "S")), want: `MainTree/RateController: hz is 0; want a rate > 0`},
		{name: "hz negative", tree: rc(A("hz", "-1"), S("A", "S")), want: `MainTree/RateController: hz is -1; want a rate > 0`},
		{name: "hz not a number", tree: rc(A("hz", "fast"), S("A", "S")), want: `MainTree/RateController: port "hz" (float64): "fast" is not a number`},
		{name: "hz too small for a period", tree: rc(A("hz", "1e-12"), S("A", "S")), want: `MainTree/RateController: hz is 1e-12; the period 1/hz is longer than a time.Duration holds`},
	})
}
