package runtime

import "time"

// Delay waits delay_msec milliseconds, RUNNING, before it ticks its child,
// then returns the child's status.
//
//	<Delay delay_msec="2000">
//	  <Beep/>          RUNNING for 2 s, then Beep's status
//	</Delay>
//
// Contract (BehaviorTree.CPP v4 Delay):
//   - the first tick starts the delay (delay_msec is read on every tick but
//     only used then), makes the node RUNNING and returns RUNNING without
//     ticking the child;
//   - ticks before the deadline return RUNNING; ticks from the deadline on
//     tick the child and return its status;
//   - a completed child is reset and the next tick starts a new delay;
//   - halting cancels the delay and halts the child.
//
// The delay reads the tree's clock and asks for a tick at the deadline
// (Tree.WakeAt). The first tick never ticks the child, even for a delay of
// 0, which is what BT.CPP's timer thread does in practice (its timer fires
// after the tick returns); a delay of 0 wakes the tree at once instead, so
// TickOnce and the loop tick the child straight away.
type Delay struct {
	Base
	started  bool
	deadline time.Time
}

func delayTypes() []NodeType {
	return []NodeType{{
		ID: "Delay", Kind: DecoratorKind,
		Summary: "Waits delay_msec (RUNNING), then ticks its child and returns its status.",
		Ports: []PortSpec{
			InputPort[uint]("delay_msec", "Tick the child after a few milliseconds"),
		},
		New: func(c *Config) (Node, error) {
			if err := checkMsecLiteral(c, "delay_msec"); err != nil {
				return nil, err
			}
			return &Delay{}, nil
		},
	}}
}

// Tick starts the delay, waits for its deadline, then ticks the child.
func (n *Delay) Tick() (Status, error) {
	ms, err := GetInput[uint](n, "delay_msec")
	if err != nil {
		return Failure, err
	}
	if !n.started {
		d, err := msecDuration("delay_msec", ms)
		if err != nil {
			return Failure, err
		}
		n.started = true
		n.deadline = n.Now().Add(d)
		n.setStatus(Running)
		if d == 0 {
			n.tree.Wake()
		} else {
			n.tree.WakeAt(n.deadline)
		}
		return Running, nil
	}
	if n.Now().Before(n.deadline) {
		n.tree.WakeAt(n.deadline)
		return Running, nil
	}
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	if st.Completed() {
		n.started = false
		n.HaltChild(0)
	}
	return st, nil
}

// Halt cancels the delay and halts the child.
func (n *Delay) Halt() {
	n.started = false
	n.ResetChildren()
}
