package runtime

import (
	"fmt"
	"time"
)

// Timeout halts its child and fails when the child has been RUNNING for
// longer than msec milliseconds.
//
//	<Timeout msec="30000">
//	  <NavigateTo goal="{dock}"/>   still RUNNING after 30 s → halted, FAILURE
//	</Timeout>
//
// Contract (BehaviorTree.CPP v4 Timeout):
//   - the first tick starts the timer (msec is read on every tick but only
//     used then) and makes the node RUNNING; msec 0 never times out;
//   - every tick ticks the child and returns its status; a completed child
//     stops the timer and is reset;
//   - the first tick at or after the deadline, if the child is RUNNING,
//     halts it and returns FAILURE without ticking it. The timer fires once:
//     a child that was not RUNNING then (it was skipped) is not timed out
//     later in the same run, as in BT.CPP;
//   - halting stops the timer and halts the child.
//
// The deadline reads the tree's clock, and the node asks the tree for a
// tick at the deadline (Tree.WakeAt), so a loop can halt the child on time
// where BT.CPP's timer thread halts it between ticks.
type Timeout struct {
	Base
	started  bool
	fired    bool
	deadline time.Time
}

func timeoutTypes() []NodeType {
	return []NodeType{{
		ID: "Timeout", Kind: DecoratorKind,
		Summary: "Halts its child and returns FAILURE when it has been RUNNING longer than msec.",
		Ports: []PortSpec{
			InputPort[uint]("msec", "After a certain amount of time, halt() the child if it is still running."),
		},
		New: func(c *Config) (Node, error) {
			if err := checkMsecLiteral(c, "msec"); err != nil {
				return nil, err
			}
			return &Timeout{}, nil
		},
	}}
}

// Tick starts the timer on the first tick, times the child out at the
// deadline, and otherwise passes the child's status on.
func (n *Timeout) Tick() (Status, error) {
	ms, err := GetInput[uint](n, "msec")
	if err != nil {
		return Failure, err
	}
	if !n.started {
		d, err := msecDuration("msec", ms)
		if err != nil {
			return Failure, err
		}
		n.started, n.fired = true, d == 0
		n.deadline = n.Now().Add(d)
		n.setStatus(Running)
	}
	child := n.children[0]
	if !n.fired && !n.Now().Before(n.deadline) {
		n.fired = true
		if child.base().status == Running {
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("timed out after %v; halted %s", time.Duration(ms)*time.Millisecond, child.base().name))
			}
			n.HaltChild(0)
			n.started = false
			return Failure, nil
		}
	}
	st, err := Execute(child)
	if err != nil {
		return st, err
	}
	if st.Completed() {
		n.started = false
		n.HaltChild(0)
	} else if st == Running && !n.fired {
		n.tree.WakeAt(n.deadline)
	}
	return st, nil
}

// Halt stops the timer and halts the child.
func (n *Timeout) Halt() {
	n.started = false
	n.ResetChildren()
}
