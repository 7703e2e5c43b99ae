package skills_test

import (
	"math"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// approach is the state of one run of Approach: it creeps ahead until the
// laser's beam straight ahead reads stop_at metres or less.
type approach struct {
	speed, stopAt float64
	start         time.Time
}

// OnStart reads the ports and starts creeping (the tick that starts the
// skill returns RUNNING: the robot's answer, the laser, completes it).
func (a *approach) OnStart(n *runtime.Leaf) (runtime.Status, error) {
	var err error
	if a.speed, err = runtime.GetInput[float64](n, "speed"); err != nil {
		return runtime.Failure, err
	}
	if a.stopAt, err = runtime.GetInput[float64](n, "stop_at"); err != nil {
		return runtime.Failure, err
	}
	a.start = n.Now()
	return a.OnRunning(n)
}

// OnRunning looks at the scan latched for this tick and drives or stops.
func (a *approach) OnRunning(n *runtime.Leaf) (runtime.Status, error) {
	bb := n.Blackboard().Root() // the bridge latches the robot's inputs at the root
	v, ok := bb.Get("scan")
	stale, _ := bb.Get("scan" + bridge.StaleSuffix)
	scan, isScan := v.(sensor_msgs.LaserScan)
	if !ok || !isScan || stale == true {
		return runtime.Failure, drive(n, 0) // fail safe: do not drive blind
	}
	ahead := rangeAhead(&scan)
	if err := runtime.SetOutput(n, "range_ahead", ahead); err != nil {
		return runtime.Failure, err
	}
	if ahead <= a.stopAt {
		return runtime.Success, drive(n, 0)
	}
	return runtime.Running, drive(n, a.speed) // every tick: the base's command timeout
}

// OnHalted stops the robot: the bridge publishes the zero velocity at the
// end of this very tick.
func (a *approach) OnHalted(n *runtime.Leaf) { _ = drive(n, 0) }

// drive commands a forward speed through the entry the profile's bridge
// publishes on cmd_vel.
func drive(n *runtime.Leaf, speed float64) error {
	return n.Blackboard().Root().Set("cmd_vel", geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: speed}})
}

// rangeAhead is the range of the beam nearest to angle 0 (+Inf if invalid).
func rangeAhead(s *sensor_msgs.LaserScan) float64 {
	i := int(math.Round(-float64(s.AngleMin) / float64(s.AngleIncrement)))
	if i < 0 || i >= len(s.Ranges) || s.Ranges[i] < s.RangeMin || s.Ranges[i] > s.RangeMax {
		return math.Inf(1)
	}
	return float64(s.Ranges[i])
}

// registerApproach adds Approach to a palette.
func registerApproach(reg *runtime.Registry) error {
	t := runtime.StatefulActionType("Approach", []runtime.PortSpec{
		runtime.InputPort[float64]("speed", "forward speed, m/s").WithDefault("0.1"),
		runtime.InputPort[float64]("stop_at", "stop when the range ahead is this or less, m"),
		runtime.OutputPort[float64]("range_ahead", "the range straight ahead, m"),
	}, func(*runtime.Config) (runtime.StatefulAction, error) { return &approach{}, nil })
	t.Category = "skills"
	t.Summary = "Creeps ahead until the laser reads stop_at metres or less straight ahead."
	t.Doc = "Approach creeps ahead at speed until the laser's beam straight ahead reads stop_at metres or less: RUNNING while it drives, SUCCESS stopped there, FAILURE stopped when the scan is stale; halting stops the robot."
	return reg.Register(t)
}

// TestApproach plays the scan cycle on the blackboard with a manual clock: a
// wall 1 m ahead, the robot creeping towards it at 0.1 m/s.
func TestApproach(t *testing.T) {
	reg := runtime.NewRegistry()
	if err := registerApproach(reg); err != nil {
		t.Fatal(err)
	}
	doc, err := trees.Parse("approach.xml", []byte(`
		<root BTCPP_format="4">
		  <BehaviorTree ID="Main">
		    <Approach stop_at="0.3" range_ahead="{ahead}"/>
		  </BehaviorTree>
		</root>`))
	if err != nil {
		t.Fatal(err)
	}
	clock := runtime.NewManualClock(time.Unix(0, 0))
	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	bb := tree.Blackboard()
	wall := 1.0
	for tick := 1; ; tick++ {
		// Latch: the scan the robot sees (one beam, straight ahead).
		bb.Set("scan", sensor_msgs.LaserScan{AngleIncrement: 1, RangeMax: 10, Ranges: []float32{float32(wall)}})
		bb.Set("scan"+bridge.StaleSuffix, false)
		st, err := tree.TickExactlyOnce()
		if err != nil {
			t.Fatal(err)
		}
		// Flush, then the robot moves for a 50 ms period.
		cmd, _ := bb.Get("cmd_vel")
		wall -= cmd.(geometry_msgs.Twist).Linear.X * 0.05
		clock.Advance(50 * time.Millisecond)
		if st == runtime.Success {
			t.Logf("stopped %.2f m from the wall after %d ticks", wall, tick)
			if wall > 0.3 || wall < 0.29 || cmd.(geometry_msgs.Twist).Linear.X != 0 {
				t.Errorf("stopped at %.3f m with command %+v", wall, cmd)
			}
			return
		}
		if st != runtime.Running || tick > 1000 {
			t.Fatalf("tick %d: %v", tick, st)
		}
	}
}
