package runtime

import (
	"fmt"

	"github.com/btrobot/btrobot/internal/english"
)

// Limit lets its child run at most max_runs times; after that it returns
// FAILURE without ticking it.
//
//	<Limit max_runs="3">
//	  <CallForHelp/>   started at most three times in the tree's life
//	</Limit>
//
// Where it comes from: the Limit decorator of the early game-AI behavior
// tree literature (Champandard, "Behavior Trees for Next-Gen Game AI",
// AiGameDev.com, 2007), which caps how many times a behavior may run, and
// behavior3's Limiter ("after a certain number of times, returns FAILURE
// without executing the child").
//
// Contract:
//   - a run counts when it starts: the first tick of the child from IDLE
//     that does not return SKIPPED. So the limit is never exceeded, even by
//     runs that are halted before they complete;
//   - while runs remain, or a run is in progress, the node becomes RUNNING,
//     ticks the child and returns its status; a completed child is reset;
//   - once max_runs runs have started and the last one ended, every tick
//     returns FAILURE;
//   - the count lasts as long as the tree: halting halts the child but
//     gives no run back.
//
// max_runs is read when a run would start; 0 never runs the child.
type Limit struct {
	Base
	runs  int
	inRun bool
}

func limitTypes() []NodeType {
	return []NodeType{{
		ID: "Limit", Kind: DecoratorKind,
		Summary: "Lets its child run at most max_runs times, then returns FAILURE.",
		Ports: []PortSpec{
			InputPort[int]("max_runs", "How many runs of the child may start in the life of the tree."),
		},
		New: func(c *Config) (Node, error) {
			if v, ok := LiteralAs[int](c, "max_runs"); ok && v < 0 {
				return nil, fmt.Errorf("max_runs is %d; want a count >= 0", v)
			}
			return &Limit{}, nil
		},
	}}
}

// Tick starts a run while runs remain and passes the child's status on.
func (n *Limit) Tick() (Status, error) {
	fresh := false
	if !n.inRun {
		limit, err := GetInput[int](n, "max_runs")
		if err != nil {
			return Failure, err
		}
		if limit < 0 {
			return Failure, fmt.Errorf("max_runs is %d; want a count >= 0", limit)
		}
		if n.runs >= limit {
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("ran its child max_runs=%d %s already", limit, english.Plural(limit, "time", "times")))
			}
			return Failure, nil
		}
		n.runs++
		n.inRun, fresh = true, true
	}
	n.setStatus(Running)
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	switch {
	case st.Completed():
		n.inRun = false
		n.HaltChild(0)
	case st == Skipped && fresh:
		n.runs--
		n.inRun = false
	}
	return st, nil
}

// Halt halts the child; the run it cut short still counts.
func (n *Limit) Halt() {
	n.inRun = false
	n.ResetChildren()
}
