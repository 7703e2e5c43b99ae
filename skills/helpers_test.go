package skills

import (
	"math"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// testPlaces is a small world: two rooms and a dock.
var testPlaces = &places.Places{
	Waypoints: []places.Place{
		{Name: "kitchen", Pose: places.Pose{X: 2.5, Y: 3.5}},
		{Name: "lab", Pose: places.Pose{X: 6.5, Y: -3.5, Yaw: -math.Pi / 2}},
		{Name: "lobby", Pose: places.Pose{X: -7.5, Y: 3.5, Yaw: math.Pi / 2}},
	},
	Docks: []places.Dock{{Name: "dock_west", Pose: places.Pose{X: -9.4, Yaw: math.Pi}, Approach: places.Pose{X: -8.6, Yaw: math.Pi}}},
}

// registry returns the built-in palette with the skills on top.
func registry(t testing.TB, deps Deps) *runtime.Registry {
	t.Helper()
	reg := runtime.NewRegistry()
	if err := Register(reg, deps); err != nil {
		t.Fatal(err)
	}
	return reg
}

// buildTree builds a tree from XML (a whole document, or the body of a
// BehaviorTree called Main).
func buildTree(t testing.TB, reg *runtime.Registry, xml string, conf runtime.BuildConf) *runtime.Tree {
	t.Helper()
	if !strings.Contains(xml, "<root") {
		xml = `<root BTCPP_format="4" main_tree_to_execute="Main"><BehaviorTree ID="Main">` + xml + `</BehaviorTree></root>`
	}
	doc, err := trees.Parse("test.xml", []byte(xml))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := runtime.Build(reg, doc, conf)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// buildErr returns the error building xml gives.
func buildErr(t testing.TB, reg *runtime.Registry, xml string) error {
	t.Helper()
	xml = `<root BTCPP_format="4" main_tree_to_execute="Main"><BehaviorTree ID="Main">` + xml + `</BehaviorTree></root>`
	doc, err := trees.Parse("test.xml", []byte(xml))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runtime.Build(reg, doc, runtime.BuildConf{})
	return err
}

// bench is a robot on the blackboard: it plays the bridge's scan cycle with
// a manual clock and a unicycle that follows cmd_vel exactly, so that the
// closed loops of the skills can be tested tick by tick without ROS.
type bench struct {
	t     testing.TB
	clock *runtime.ManualClock
	tree  *runtime.Tree
	dt    time.Duration

	pose     Pose // odometry, in the odom frame
	v, w     float64
	frozen   bool // odometry stops arriving (it goes stale)
	quiet    bool // odometry stops arriving, not yet stale
	stalled  bool // the wheels do not turn
	battery  *sensor_msgs.BatteryState
	scan     *sensor_msgs.LaserScan
	bumper   *bool
	cmds     int // velocity commands published so far
	lastCmd  geometry_msgs.Twist
	lastSeq  uint64
	logMu    sync.Mutex
	logLines []LogEntry
}

func newBench(t testing.TB, xml string, deps Deps) *bench {
	t.Helper()
	b := &bench{t: t, clock: runtime.NewManualClock(time.Unix(1000, 0)), dt: 50 * time.Millisecond}
	if deps.Log == nil {
		deps.Log = b.log
	}
	reg := registry(t, deps)
	b.tree = buildTree(t, reg, xml, runtime.BuildConf{Clock: b.clock, Seed: 1})
	return b
}

func (b *bench) log(l LogEntry) {
	b.logMu.Lock()
	b.logLines = append(b.logLines, l)
	b.logMu.Unlock()
}

func (b *bench) bb() *runtime.Blackboard { return b.tree.Blackboard() }

// set writes key as the bridge latches it, with its _stale flag.
func (b *bench) set(key string, v any, stale bool) {
	b.t.Helper()
	if err := b.bb().Set(key, v); err != nil {
		b.t.Fatal(err)
	}
	if err := b.bb().Set(key+bridge.StaleSuffix, stale); err != nil {
		b.t.Fatal(err)
	}
}

// latch writes the robot's inputs for this tick.
func (b *bench) latch() {
	switch {
	case b.quiet:
	case !b.frozen:
		o := nav_msgs.Odometry{}
		o.Pose.Pose = geometry_msgs.Pose{Position: geometry_msgs.Point{X: b.pose.X, Y: b.pose.Y}, Orientation: quaternion(b.pose.Yaw)}
		o.Twist.Twist.Linear.X, o.Twist.Twist.Angular.Z = b.v, b.w
		b.set("odom", o, false)
	default:
		if _, ok := b.bb().Get("odom"); ok {
			b.bb().Set("odom"+bridge.StaleSuffix, true)
		}
	}
	if b.battery != nil {
		b.set("battery", *b.battery, false)
	}
	if b.scan != nil {
		b.set("scan", *b.scan, false)
	}
	if b.bumper != nil {
		b.set("bumper_pressed", *b.bumper, false)
	}
}

// flush takes the velocity command the tick wrote, as the bridge publishes
// it on change.
func (b *bench) flush() {
	e := b.bb().Entry("cmd_vel")
	if e == nil {
		return
	}
	v, seq, _ := e.Load()
	if seq == b.lastSeq {
		return
	}
	b.lastSeq = seq
	b.lastCmd = v.(geometry_msgs.Twist)
	b.cmds++
	b.v, b.w = b.lastCmd.Linear.X, b.lastCmd.Angular.Z
}

// tick runs one scan cycle, then moves the robot for one period.
func (b *bench) tick() runtime.Status {
	b.t.Helper()
	b.latch()
	st, err := b.tree.TickExactlyOnce()
	if err != nil {
		b.t.Fatalf("tick %d: %v", b.tree.Ticks(), err)
	}
	b.flush()
	b.move()
	return st
}

// tickErr runs one scan cycle and returns the tick's error.
func (b *bench) tickErr() error {
	b.latch()
	_, err := b.tree.TickExactlyOnce()
	b.flush()
	return err
}

func (b *bench) move() {
	dt := b.dt.Seconds()
	if !b.stalled {
		b.pose.X += b.v * math.Cos(b.pose.Yaw) * dt
		b.pose.Y += b.v * math.Sin(b.pose.Yaw) * dt
		b.pose.Yaw = normalizeAngle(b.pose.Yaw + b.w*dt)
	}
	b.clock.Advance(b.dt)
}

// run ticks until the root completes or max ticks, and returns the status
// and the number of ticks.
func (b *bench) run(max int) (runtime.Status, int) {
	b.t.Helper()
	for i := 1; i <= max; i++ {
		if st := b.tick(); st != runtime.Running {
			return st, i
		}
	}
	return runtime.Running, max
}

func (b *bench) get(key string) any {
	v, _ := b.bb().Get(key)
	return v
}

func (b *bench) stopped() bool { return b.lastCmd == (geometry_msgs.Twist{}) }

// requireCI fails a test that needs a tool when CI=true; otherwise skips.
func requireCI(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true, so this fails instead of skipping)", what)
	}
	t.Skip(what)
}

func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }
