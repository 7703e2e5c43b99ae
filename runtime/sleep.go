package runtime

import "time"

// Sleep waits msec milliseconds, RUNNING, then returns SUCCESS.
//
//	<Sleep msec="500"/>
//
// Contract (BehaviorTree.CPP v4 Sleep, a StatefulActionNode):
//   - the tick that starts it reads msec; 0 returns SUCCESS at once;
//     otherwise it starts the wait and returns RUNNING;
//   - later ticks return RUNNING before the deadline and SUCCESS from it on;
//   - halting cancels the wait; the next tick starts a new one.
//
// The wait reads the tree's clock and asks for a tick at the deadline
// (Tree.WakeAt), as BT.CPP's timer wakes its tree.
//
// Like every StatefulActionNode, ticked again after it succeeded without
// being reset, it returns SUCCESS again.
type Sleep struct {
	Base
	deadline time.Time
}

func sleepTypes() []NodeType {
	return []NodeType{{
		ID: "Sleep", Kind: ActionKind,
		Summary: "Waits msec milliseconds (RUNNING), then returns SUCCESS.",
		Ports:   []PortSpec{InputPort[uint]("msec", "How long to wait, in milliseconds")},
		New: func(c *Config) (Node, error) {
			if err := checkMsecLiteral(c, "msec"); err != nil {
				return nil, err
			}
			return &Sleep{}, nil
		},
	}}
}

// Tick starts the wait from IDLE and checks it while RUNNING.
func (n *Sleep) Tick() (Status, error) {
	switch n.status {
	case Idle:
		ms, err := GetInput[uint](n, "msec")
		if err != nil {
			return Failure, err
		}
		d, err := msecDuration("msec", ms)
		if err != nil {
			return Failure, err
		}
		if d == 0 {
			return Success, nil
		}
		n.deadline = n.Now().Add(d)
	case Running:
		if !n.Now().Before(n.deadline) {
			return Success, nil
		}
	default:
		return n.status, nil
	}
	n.tree.WakeAt(n.deadline)
	return Running, nil
}
