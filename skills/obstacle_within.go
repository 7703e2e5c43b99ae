package skills

import (
	"fmt"
	"math"

	"github.com/btrobot/btrobot/runtime"
)

// ObstacleWithin succeeds when the laser sees something closer than
// distance in a sector around a direction.
//
//	<ObstacleWithin distance="0.5" direction="0" width="1.0"/>   ahead, ±0.5 rad
//
// Contract (a condition, on the laser scan the bridge latched for this
// tick):
//   - the sector is centred on direction (radians, 0 ahead, positive to the
//     left, in the laser's frame) and is width radians wide;
//   - SUCCESS when a valid range (finite, within the scan's range_min and
//     range_max) of a beam in the sector is below distance; FAILURE when
//     none is;
//   - fail safe: a stale scan, or none received yet, is SUCCESS (the robot
//     cannot tell that the way is clear), so that a guard such as
//     Inverter(ObstacleWithin) stops the robot rather than drive it blind.
//     A profile without a laser input is an error.
type ObstacleWithin struct {
	*runtime.Leaf
}

func obstacleWithinType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "ObstacleWithin", Kind: runtime.ConditionKind,
		Summary: "SUCCESS when the laser sees something closer than distance in a sector; also when the scan is stale.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[float64]("distance", "how close counts, m").WithDefault("0.5"),
			runtime.InputPort[float64]("direction", "centre of the sector, rad (0 ahead, positive left)").WithDefault("0"),
			runtime.InputPort[float64]("width", "width of the sector, rad").WithDefault("1.0"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if v, ok := runtime.LiteralAs[float64](c, "width"); ok && !(v > 0) {
				return nil, fmt.Errorf("port \"width\": %v; want a positive angle in radians", v)
			}
			return &ObstacleWithin{Leaf: runtime.NewCondition(func(n *runtime.Leaf) (bool, error) {
				dist, err := runtime.GetInput[float64](n, "distance")
				if err != nil {
					return false, err
				}
				dir, err := runtime.GetInput[float64](n, "direction")
				if err != nil {
					return false, err
				}
				width, err := runtime.GetInput[float64](n, "width")
				if err != nil {
					return false, err
				}
				s, err := e.io(n).scan()
				if err != nil {
					if isUnavailable(err) {
						n.SetReason(err.Error() + ": assuming an obstacle")
						return true, nil
					}
					return false, err
				}
				for i, r := range s.Ranges {
					rr := float64(r)
					if math.IsNaN(rr) || math.IsInf(rr, 0) || rr < float64(s.RangeMin) || rr > float64(s.RangeMax) {
						continue
					}
					a := float64(s.AngleMin) + float64(i)*float64(s.AngleIncrement)
					if math.Abs(normalizeAngle(a-dir)) <= width/2 && rr < dist {
						if n.Explaining() {
							n.SetReason(fmt.Sprintf("an obstacle %.2f m away, at %.2f rad", rr, a))
						}
						return true, nil
					}
				}
				if n.Explaining() {
					n.SetReason(fmt.Sprintf("nothing within %g m in the %g rad wide sector at %g rad", dist, width, dir))
				}
				return false, nil
			})}, nil
		},
	}
}
