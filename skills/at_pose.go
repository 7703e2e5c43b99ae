package skills

import (
	"fmt"
	"math"

	"github.com/btrobot/btrobot/runtime"
)

// AtPose succeeds while the robot is within tolerance of a goal: a place of
// the world by name, or a pose "x;y;yaw" in the map frame.
//
//	<AtPose goal="kitchen" tolerance="0.3"/>
//
// Contract (a condition, on this tick's latched inputs): SUCCESS when the
// robot's map position is within tolerance metres of the goal's and, when
// yaw_tolerance is positive, its heading within yaw_tolerance radians of
// the goal's; FAILURE otherwise, and when the robot's pose is stale or was
// never received. The robot's map pose is the profile's map pose input
// when there is one (amcl_pose), else its odometry placed in the map by
// skills.Deps.OdomOrigin.
type AtPose struct {
	*runtime.Leaf
}

func atPoseType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "AtPose", Kind: runtime.ConditionKind,
		Summary: "SUCCESS while the robot is within tolerance of a place or pose.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("goal", "a place of the world, or a pose x;y;yaw in the map frame"),
			runtime.InputPort[float64]("tolerance", "distance that counts as there, m").WithDefault("0.25"),
			runtime.InputPort[float64]("yaw_tolerance", "heading difference that counts as there, rad (0: heading not checked)").WithDefault("0"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if g, ok := runtime.LiteralAs[string](c, "goal"); ok && e.Places != nil {
				if _, err := resolve(e.Places, g); err != nil {
					return nil, fmt.Errorf("port \"goal\": %v", err)
				}
			}
			return &AtPose{Leaf: runtime.NewCondition(func(n *runtime.Leaf) (bool, error) {
				target, err := runtime.GetInput[string](n, "goal")
				if err != nil {
					return false, err
				}
				goal, err := resolve(e.Places, target)
				if err != nil {
					return false, fmt.Errorf("port \"goal\": %v", err)
				}
				tol, err := runtime.GetInput[float64](n, "tolerance")
				if err != nil {
					return false, err
				}
				yawTol, err := runtime.GetInput[float64](n, "yaw_tolerance")
				if err != nil {
					return false, err
				}
				pose, err := e.io(n).mapPose()
				if err != nil {
					_, err = failOn(n, err)
					return false, err
				}
				if d := pose.DistanceTo(goal); d > tol {
					if n.Explaining() {
						n.SetReason(fmt.Sprintf("%.2f m from the goal, tolerance %g m", d, tol))
					}
					return false, nil
				}
				yawOff := math.Abs(normalizeAngle(pose.Yaw - goal.Yaw))
				if yawTol > 0 && yawOff > yawTol {
					if n.Explaining() {
						n.SetReason(fmt.Sprintf("heading %.2f rad off the goal's, tolerance %g rad", yawOff, yawTol))
					}
					return false, nil
				}
				return true, nil
			})}, nil
		},
	}
}
