package examples

import (
	"fmt"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// speedTree slows the robot down near obstacles: if nothing is within
// 0.5 m, PickSpeed chooses a speed from the free distance ahead.
const speedTree = `
<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <Inverter>
        <ObstacleAhead distance="{range}"/>
      </Inverter>
      <PickSpeed distance="{range}" speed="{speed}"/>
    </Sequence>
  </BehaviorTree>
</root>`

// Example_customNode writes a condition and an action in Go, registers
// them with ports, and uses them from XML. A condition is a function
// returning true (SUCCESS) or false (FAILURE); a synchronous action does
// its whole work in one tick. Both run on the tick's goroutine and must
// not block: work that takes time is an async action (Example_asyncSkill).
func Example_customNode() {
	// The registry starts with the built-in nodes (Sequence, Inverter...).
	reg := runtime.NewRegistry()

	// Ports are declared once, here: the loader checks the XML against
	// them, and they appear in the palette (btrobot nodes, Groot2).
	err := reg.RegisterCondition("ObstacleAhead", []runtime.PortSpec{
		runtime.InputPort[float64]("distance", "free distance ahead, in metres"),
		runtime.InputPort[float64]("threshold", "closer than this is an obstacle").WithDefault("0.5"),
	}, func(n *runtime.Leaf) (bool, error) {
		d, err := runtime.GetInput[float64](n, "distance")
		if err != nil {
			return false, err // the tick returns the error, naming the node
		}
		limit, err := runtime.GetInput[float64](n, "threshold")
		return d < limit, err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = reg.RegisterAction("PickSpeed", []runtime.PortSpec{
		runtime.InputPort[float64]("distance", "free distance ahead, in metres"),
		runtime.OutputPort[float64]("speed", "the speed to drive at, m/s"),
	}, func(n *runtime.Leaf) (runtime.Status, error) {
		d, err := runtime.GetInput[float64](n, "distance")
		if err != nil {
			return runtime.Failure, err
		}
		// A quarter of the free distance per second, at most 0.5 m/s.
		return runtime.Success, runtime.SetOutput(n, "speed", min(0.5, d/4))
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Load the XML and build it against the registry: an unknown node or
	// a wrong port is an error with its line and column.
	doc, err := trees.Parse("speed.xml", []byte(speedTree))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := runtime.Build(reg, doc, runtime.BuildConf{})
	if err != nil {
		fmt.Println(err)
		return
	}

	bb := tree.Blackboard()
	for _, free := range []float64{3, 1.2, 0.3} {
		_ = bb.Set("range", free) // what a laser scan would say
		status, err := tree.TickOnce()
		if err != nil {
			fmt.Println(err)
			return
		}
		speed, _ := bb.Get("speed")
		fmt.Printf("range %.1f m: %v, speed %v\n", free, status, speed)
	}
	// Output:
	// range 3.0 m: SUCCESS, speed 0.5
	// range 1.2 m: SUCCESS, speed 0.3
	// range 0.3 m: FAILURE, speed 0.3
}
