package skills

import (
	"slices"

	"github.com/btrobot/btrobot/runtime"
)

// PopPlace takes the first place of a queue of places on the blackboard.
//
//	<PopPlace queue="{route}" place="{target}"/>
//	<PopPlace queue="{route}" place="{target}" peek="true"/>   look, leave it queued
//
// Contract: a synchronous action. When the queue has a place, it is written
// to place and, unless peek is true, removed from the queue; remaining says
// how many are left in the queue, and the node returns SUCCESS. An empty
// (or never written) queue returns FAILURE and writes nothing, which ends a
// loop such as KeepRunningUntilFailure over the route.
//
// Peeking, then popping once the place is done, makes a route that an
// interruption (a halt) resumes at the place it was heading for.
type PopPlace struct {
	*runtime.Leaf
}

func popPlaceType(*env) runtime.NodeType {
	return runtime.NodeType{
		ID: "PopPlace", Kind: runtime.ActionKind,
		Summary: "Takes the first place of a queue into place; FAILURE when the queue is empty.",
		Ports: []runtime.PortSpec{
			runtime.InOutPort[[]string]("queue", "the queue, a blackboard entry like {route}"),
			runtime.OutputPort[string]("place", "the place taken"),
			runtime.OutputPort[int]("remaining", "how many places are left in the queue"),
			runtime.InputPort[bool]("peek", "leave the place in the queue").WithDefault("false"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if err := needKey(c, "queue"); err != nil {
				return nil, err
			}
			return &PopPlace{Leaf: runtime.NewAction(func(n *runtime.Leaf) (runtime.Status, error) {
				q, err := runtime.GetInputOr[[]string](n, "queue", nil)
				if err != nil {
					return runtime.Failure, err
				}
				if len(q) == 0 {
					n.SetReason("the queue is empty")
					return runtime.Failure, nil
				}
				if err := runtime.SetOutput(n, "place", q[0]); err != nil {
					return runtime.Failure, err
				}
				peek, err := runtime.GetInput[bool](n, "peek")
				if err != nil {
					return runtime.Failure, err
				}
				if peek {
					return runtime.Success, runtime.SetOutput(n, "remaining", len(q))
				}
				rest := slices.Clone(q[1:])
				if err := runtime.SetOutput(n, "queue", rest); err != nil {
					return runtime.Failure, err
				}
				return runtime.Success, runtime.SetOutput(n, "remaining", len(rest))
			})}, nil
		},
	}
}
