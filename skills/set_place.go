package skills

import (
	"errors"
	"fmt"
	"slices"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/runtime/script"
)

// SetPlace puts places into a queue of places on the blackboard (a
// []string), for PopPlace, ClaimPlace, LoopString or FollowWaypoints to take
// them from.
//
//	<SetPlace queue="{route}" waypoints="true" clear="true"/>   every waypoint, in patrol order
//	<SetPlace queue="{route}" place="{target}" front="true"/>  back to the front, to go there first
//
// Contract: a synchronous action; SUCCESS once the queue is written.
//   - clear empties the queue first; then the world's waypoints (when
//     waypoints is true, in patrol order) and place (when given and not
//     empty) are added, at the back, or at the front (in that order) when
//     front is true;
//   - a place is a place name or a pose x,y,yaw; a literal one is checked
//     against the world's places when the tree is built;
//   - waypoints="true" without places given to the skills is an error, and
//     so is a node that adds nothing and does not clear.
type SetPlace struct {
	*runtime.Leaf
}

func setPlaceType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "SetPlace", Kind: runtime.ActionKind,
		Summary: "Adds a place, or all the world's waypoints, to a queue of places on the blackboard.",
		Ports: []runtime.PortSpec{
			runtime.InOutPort[[]string]("queue", "the queue, a blackboard entry like {route}"),
			runtime.InputPort[string]("place", "a place to add (a name, or a pose x,y,yaw)").AsOptional(),
			runtime.InputPort[bool]("waypoints", "add every waypoint of the world, in patrol order").WithDefault("false"),
			runtime.InputPort[bool]("front", "add at the front instead of the back").WithDefault("false"),
			runtime.InputPort[bool]("clear", "empty the queue first").WithDefault("false"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if err := needKey(c, "queue"); err != nil {
				return nil, err
			}
			if p, ok := runtime.LiteralAs[string](c, "place"); ok && p != "" && e.Places != nil {
				if _, err := resolve(e.Places, p); err != nil {
					return nil, fmt.Errorf("port \"place\": %v", err)
				}
			}
			if w, _ := runtime.LiteralAs[bool](c, "waypoints"); w && e.Places != nil && len(e.Places.Waypoints) == 0 {
				return nil, errors.New("port \"waypoints\": the world has no waypoints")
			}
			return &SetPlace{Leaf: runtime.NewAction(func(n *runtime.Leaf) (runtime.Status, error) {
				q, err := runtime.GetInputOr[[]string](n, "queue", nil)
				if err != nil {
					return runtime.Failure, err
				}
				var add []string
				if all, err := runtime.GetInput[bool](n, "waypoints"); err != nil {
					return runtime.Failure, err
				} else if all {
					if e.Places == nil || len(e.Places.Waypoints) == 0 {
						return runtime.Failure, errors.New("waypoints=\"true\": the skills were given no waypoints (skills.Deps.Places)")
					}
					add = e.Places.Names()
				}
				if place, err := runtime.GetInputOr(n, "place", ""); err != nil {
					return runtime.Failure, err
				} else if place != "" {
					add = append(add, place)
				}
				front, err := runtime.GetInput[bool](n, "front")
				if err != nil {
					return runtime.Failure, err
				}
				clear, err := runtime.GetInput[bool](n, "clear")
				if err != nil {
					return runtime.Failure, err
				}
				if len(add) == 0 && !clear {
					return runtime.Failure, errors.New("nothing to add: give place, waypoints=\"true\" or clear=\"true\"")
				}
				if clear {
					q = nil
				}
				if n := len(q) + len(add); n > script.MaxArrayLen {
					return runtime.Failure, fmt.Errorf("the queue would hold %d places, more than the %d a value may hold (is SetPlace in a loop without clear=\"true\"?)", n, script.MaxArrayLen)
				}
				if front {
					q = append(slices.Clone(add), q...)
				} else {
					q = append(slices.Clone(q), add...)
				}
				if q == nil {
					q = []string{}
				}
				return runtime.Success, runtime.SetOutput(n, "queue", q)
			})}, nil
		},
	}
}

// needKey rejects a port that must name a blackboard entry but was given a
// literal.
func needKey(c *runtime.Config, port string) error {
	raw, ok := c.Attr(port)
	if !ok {
		return nil
	}
	if _, isKey := runtime.BlackboardKey(raw, port); !isKey {
		return fmt.Errorf("port %q must name a blackboard entry like {route}, not the literal %q", port, raw)
	}
	return nil
}
