package skills

import (
	"fmt"
	"math"

	"github.com/btrobot/btrobot/runtime"
)

// BatteryAbove succeeds while the battery's charge is above percent.
//
//	<BatteryAbove percent="30"/>
//
// Contract (a condition, on the battery state the bridge latched for this
// tick): SUCCESS when the charge (sensor_msgs/BatteryState percentage, a
// fraction, times 100) is above percent; FAILURE when it is not, when it is
// unknown (NaN), and when the battery state is stale or was never received,
// so that a tree guarding its mission with it heads for the dock rather
// than drive on blind. A profile without a battery input is an error.
type BatteryAbove struct {
	*runtime.Leaf
}

func batteryAboveType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "BatteryAbove", Kind: runtime.ConditionKind,
		Summary: "SUCCESS while the battery's charge is above percent; FAILURE when not, or when the battery state is stale.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[float64]("percent", "threshold, in percent of a full charge (0 to 100)"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if v, ok := runtime.LiteralAs[float64](c, "percent"); ok && !(v >= 0 && v <= 100) {
				return nil, fmt.Errorf("port \"percent\": %v; want a percentage from 0 to 100", v)
			}
			return &BatteryAbove{Leaf: runtime.NewCondition(func(n *runtime.Leaf) (bool, error) {
				threshold, err := runtime.GetInput[float64](n, "percent")
				if err != nil {
					return false, err
				}
				b, err := e.io(n).battery()
				if err != nil {
					_, err = failOn(n, err)
					return false, err
				}
				level := percentOf(b)
				ok := !math.IsNaN(level) && level > threshold
				switch {
				case ok:
				case math.IsNaN(level):
					n.SetReason("the battery's charge is unknown (NaN)")
				case n.Explaining():
					n.SetReason(fmt.Sprintf("battery at %.1f%%, not above %g%%", level, threshold))
				}
				return ok, nil
			})}, nil
		},
	}
}
