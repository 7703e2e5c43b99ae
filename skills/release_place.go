package skills

import "github.com/btrobot/btrobot/runtime"

// ReleasePlace gives up this robot's claim on a place (see ClaimPlace), so
// that other robots of the fleet may go there.
//
//	<ReleasePlace/>
//
// Contract: a synchronous action; the release is published (in the
// background) and the node returns SUCCESS. Releasing when the robot holds
// no claim is not an error.
type ReleasePlace struct {
	*runtime.Leaf
}

func releasePlaceType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "ReleasePlace", Kind: runtime.ActionKind,
		Summary: "Gives up this robot's claim on a place; SUCCESS.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("topic", "the fleet's claim topic").WithDefault(DefaultClaimTopic),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			var f *fleet
			if e.Conn != nil {
				topic, _ := runtime.LiteralAs[string](c, "topic")
				if topic == "" {
					topic = DefaultClaimTopic
				}
				var err error
				if f, err = e.fleetOn(topic); err != nil {
					return nil, err
				}
			}
			return &ReleasePlace{Leaf: runtime.NewAction(func(n *runtime.Leaf) (runtime.Status, error) {
				if f == nil {
					return runtime.Failure, errNoConn
				}
				return runtime.Success, f.claim("", n.Now())
			})}, nil
		},
	}
}
