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
type sleepAction struct{ deadline time.Time }

func sleepTypes() []NodeType {
	return []NodeType{{
		ID: "Sleep", Kind: ActionKind,
		Summary: "Waits msec milliseconds (RUNNING), then returns SUCCESS.",
		Ports:   []PortSpec{InputPort[uint]("msec", "How long to wait, in milliseconds")},
		New: func(c *Config) (Node, error) {
			if err := checkMsecLiteral(c, "msec"); err != nil {
				return nil, err
			}
			return NewStatefulAction(&sleepAction{}), nil
		},
	}}
}

// OnStart starts the wait.
func (s *sleepAction) OnStart(n *Leaf) (Status, error) {
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
	s.deadline = n.Now().Add(d)
	n.tree.WakeAt(s.deadline)
	return Running, nil
}

// OnRunning succeeds once the deadline has passed.
func (s *sleepAction) OnRunning(n *Leaf) (Status, error) {
	if n.Now().Before(s.deadline) {
		n.tree.WakeAt(s.deadline)
		return Running, nil
	}
	return Success, nil
}

// OnHalted has nothing to cancel: the deadline is forgotten on restart.
func (s *sleepAction) OnHalted(*Leaf) {}
