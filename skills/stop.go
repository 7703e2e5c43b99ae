package skills

import "github.com/btrobot/btrobot/runtime"

// Stop commands a zero velocity and returns SUCCESS in the same tick.
//
//	<Stop/>
//
// Contract: a synchronous action; the zero velocity is written to the
// robot profile's velocity entry and published by the bridge at the end of
// the tick. It does not cancel a navigation goal: halt the NavigateTo that
// runs it (a parent that moves on does), which cancels the goal and stops
// the robot too.
type Stop struct {
	*runtime.Leaf
}

func stopType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "Stop", Kind: runtime.ActionKind,
		Summary: "Commands a zero velocity; SUCCESS in the same tick.",
		New: func(*runtime.Config) (runtime.Node, error) {
			return &Stop{Leaf: runtime.NewAction(func(n *runtime.Leaf) (runtime.Status, error) {
				if err := e.io(n).stop(); err != nil {
					return runtime.Failure, err
				}
				return runtime.Success, nil
			})}, nil
		},
	}
}
