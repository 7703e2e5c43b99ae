package bridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// buildTree builds xml with the built-in palette, the ROS nodes (deps) and
// the extra node types, on the connection's clock.
func buildTree(t testing.TB, deps Deps, xml string, extra ...runtime.NodeType) *runtime.Tree {
	t.Helper()
	reg := runtime.NewRegistry()
	require.NoError(t, Register(reg, deps))
	for _, nt := range extra {
		require.NoError(t, reg.Register(nt))
	}
	doc, err := trees.Parse("test.xml", []byte(xml))
	require.NoError(t, err)
	var clock runtime.Clock
	if deps.Conn != nil {
		clock = deps.Conn.Clock()
	}
	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Clock: clock})
	require.NoError(t, err)
	return tree
}

func profile(t testing.TB, yaml string) *Profile {
	t.Helper()
	p, err := ParseProfile([]byte(yaml), "test.yaml", nil)
	require.NoError(t, err)
	return p
}

// runInBackground runs the tree and returns a function that stops the run
// and returns its outcome.
func runInBackground(t testing.TB, conf RunConf) (stop func() (RunReport, error), done <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan struct{})
	var rep RunReport
	var err error
	go func() {
		defer close(ch)
		rep, err = Run(ctx, conf)
	}()
	t.Cleanup(func() { cancel(); <-ch })
	return func() (RunReport, error) {
		cancel()
		<-ch
		return rep, err
	}, ch
}

// twistLog records every Twist a subscriber node receives on a topic.
type twistLog struct {
	mu   sync.Mutex
	msgs []timedTwist
}

type timedTwist struct {
	at time.Time
	x  float64
}

func watchTwists(t testing.TB, uri, topic string) *twistLog {
	t.Helper()
	c := connect(t, uri, "twist_watcher")
	l := &twistLog{}
	_, err := ros.Subscribe(c, topic, func(m *geometry_msgs.Twist) {
		l.mu.Lock()
		l.msgs = append(l.msgs, timedTwist{time.Now(), m.Linear.X})
		l.mu.Unlock()
	})
	require.NoError(t, err)
	return l
}

func (l *twistLog) snapshot() []timedTwist {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]timedTwist(nil), l.msgs...)
}

func (l *twistLog) last() (timedTwist, bool) {
	s := l.snapshot()
	if len(s) == 0 {
		return timedTwist{}, false
	}
	return s[len(s)-1], true
}

// TestBridgeWithRospyRobot: a rospy robot's battery goes into the
// blackboard through the scan cycle, the tree turns it into a velocity, the
// bridge publishes it, and the robot sees it; stopping the run sends the
// robot a zero velocity.
func TestBridgeWithRospyRobot(t *testing.T) {
	rostest.Require(t, "rospy", "sensor_msgs", "geometry_msgs")
	rostest.EachMaster(t, func(t *testing.T, uri string) {
		robot := rostest.Python(t, uri, "testdata/robot.py")
		robot.WaitLine(t, "ready", 30*time.Second)
		c := connect(t, uri, "btrobot")
		p := profile(t, `
rate: 20
inputs:
  - topic: battery_state
    type: sensor_msgs/BatteryState
    fields: {battery_pct: percentage}
    max_age: 1s
outputs:
  - topic: cmd_vel
    type: geometry_msgs/Twist
    fields: {speed: linear.x}
safety: {velocity_topic: cmd_vel}
`)
		tree := buildTree(t, Deps{Conn: c, Profile: p}, `
<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Sequence>
    <ScriptCondition code="!battery_pct_stale"/>
    <Script code="speed := battery_pct"/>
  </Sequence>
</BehaviorTree></root>`)
		stop, _ := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p})
		seen := map[string]bool{}
		for len(seen) < 3 {
			line := robot.WaitLine(t, "cmd_vel", 20*time.Second)
			// A zero may come mid-run: the stall monitor stops the robot
			// when a starved machine did not run the process for 250 ms
			// (bridge's failsafe tests); the values are what is tested.
			if f := strings.Fields(line); f[1] != "0.0" {
				seen[f[1]] = true
			}
		}
		assert.Contains(t, robot.Stdout(), "battery "+firstKey(seen), "the robot never sent a battery of %s", firstKey(seen))
		rep, err := stop()
		require.ErrorIs(t, err, context.Canceled, "run: %+v, %v", rep, err)
		require.GreaterOrEqual(t, rep.Stats.Ticks, uint64(3), "run: %+v, %v", rep, err)
		assert.True(t, rep.Stop.Delivered, rep.Stop.String())
		// Nothing moves the robot after the run: the last command it gets
		// is the stop's zero.
		require.Eventually(t, func() bool {
			var last string
			for _, l := range strings.Split(robot.Stdout(), "\n") {
				if strings.HasPrefix(l, "cmd_vel ") {
					last = l
				}
			}
			return last == "cmd_vel 0.0 0.0"
		}, 10*time.Second, 10*time.Millisecond, "the robot's last command is not a stop:\n%s", robot.Stdout())
	})
}

func firstKey(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}

// TestScanCycle: a message that arrives in the middle of a tick is seen by
// the next tick, never half-way through this one; the ROS leaves see the
// same latched message as the blackboard.
func TestScanCycle(t *testing.T) {
	uri := rostest.StartMaster(t)
	pubConn := connect(t, uri, "counter")
	c := connect(t, uri, "btrobot")
	p := profile(t, `
rate: 50
inputs:
  - {topic: counter, type: std_msgs/UInt64, fields: {counter: data}}
`)
	live, err := ros.Subscribe[std_msgs.UInt64](c, "counter", nil)
	require.NoError(t, err)
	type tick struct{ a, b, live uint64 }
	var mu sync.Mutex
	var ticks []tick
	slow := runtime.ActionType("SlowWork", nil, func(n *runtime.Leaf) (runtime.Status, error) {
		time.Sleep(4 * time.Millisecond) // a long tick, during which messages arrive
		return runtime.Success, nil
	})
	record := runtime.ActionType("Record", nil, func(n *runtime.Leaf) (runtime.Status, error) {
		a, _ := runtime.GetInput[uint64](n, "a")
		bb := n.Blackboard()
		av, _ := bb.Get("a")
		bv, _ := bb.Get("b")
		msg, _, _ := live.Newest()
		mu.Lock()
		ticks = append(ticks, tick{av.(uint64), bv.(uint64), msg.(*std_msgs.UInt64).Data})
		mu.Unlock()
		_ = a
		return runtime.Success, nil
	})
	record.Ports = []runtime.PortSpec{runtime.InputPort[uint64]("a", "").WithDefault("{a}")}
	tree := buildTree(t, Deps{Conn: c, Profile: p}, `
<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Sequence>
    <ScriptCondition code="!counter_stale"/>
    <Script code="a := counter"/>
    <SlowWork/>
    <Script code="b := counter"/>
    <TopicCondition topic="counter" msg_type="std_msgs/UInt64" script="msg.data == a"/>
    <Record/>
  </Sequence>
</BehaviorTree></root>`, slow, record)

	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: pubConn, Topic: "counter", Msg: std_msgs.UInt64{}})
	require.NoError(t, err)
	var quit atomic.Bool
	pubDone := make(chan struct{})
	go func() {
		defer close(pubDone)
		for i := uint64(1); !quit.Load(); i++ {
			pub.Publish(&std_msgs.UInt64{Data: i})
			time.Sleep(200 * time.Microsecond)
		}
	}()
	defer func() { quit.Store(true); <-pubDone }()
	// Ticks fail while no message has come yet (counter_stale); once one
	// tick succeeded, every later one must: the TopicCondition sees the
	// message the tick latched. How many fail first depends on when the
	// publisher connects, which is the machine's business, not the loop's.
	var succeeded atomic.Bool
	var failuresAfter atomic.Int64
	conf := RunConf{Conn: c, Tree: tree, Profile: p, Observe: func(r runtime.TickReport) {
		switch {
		case r.Status == runtime.Success:
			succeeded.Store(true)
		case r.Status == runtime.Failure && succeeded.Load():
			failuresAfter.Add(1)
		}
	}}
	stop, _ := runInBackground(t, conf)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ticks) >= 60
	}, 20*time.Second, 5*time.Millisecond, "60 recorded ticks")
	stop()
	mu.Lock()
	defer mu.Unlock()
	midTick := 0
	for i, tk := range ticks {
		require.Equal(t, tk.b, tk.a, "tick %d saw the counter change mid-tick: %d then %d", i, tk.a, tk.b)
		if tk.live > tk.b {
			midTick++
		}
		if i > 0 {
			assert.GreaterOrEqual(t, tk.a, ticks[i-1].live, "tick %d latched %d, older than %d, which arrived during tick %d", i, tk.a, ticks[i-1].live, i-1)
		}
	}
	assert.NotEqual(t, 0, midTick, "no message arrived mid-tick in %d ticks; the test proves nothing", len(ticks))
	f := failuresAfter.Load()
	assert.LessOrEqual(t, f, int64(0), "%d ticks failed after the first message: the TopicCondition did not see the latched message", f)
	t.Logf("%d ticks, %d with messages arriving mid-tick", len(ticks), midTick)
}

// TestStaleInputs: an input's _stale flag is true before the first message,
// false while messages come, and true again max_age after the last one; the
// value itself stays.
func TestStaleInputs(t *testing.T) {
	uri := rostest.StartMaster(t)
	pubConn := connect(t, uri, "heart")
	c := connect(t, uri, "btrobot")
	p := profile(t, `
rate: 100
inputs:
  - {topic: heartbeat, type: std_msgs/Int32, key: beat_msg, fields: {beat: data}, max_age: 200ms}
`)
	type sample struct {
		at            time.Time
		stale, stale2 bool
		beat          any
	}
	var mu sync.Mutex
	var samples []sample
	record := runtime.ActionType("Record", nil, func(n *runtime.Leaf) (runtime.Status, error) {
		bb := n.Blackboard()
		s, _ := bb.Get("beat_stale")
		s2, _ := bb.Get("beat_msg_stale")
		v, _ := bb.Get("beat")
		mu.Lock()
		samples = append(samples, sample{time.Now(), s.(bool), s2.(bool), v})
		mu.Unlock()
		return runtime.Success, nil
	})
	tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="Main"><Record/></BehaviorTree></root>`, record)
	stop, _ := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p})
	// The first tick before the first heartbeat: the publisher starts
	// once a tick is recorded (on a loaded machine the loop's first tick
	// once came after a heartbeat had arrived: proof run 411).
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(samples) > 0
	}, 10*time.Second, time.Millisecond, "a first tick")
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: pubConn, Topic: "heartbeat", Msg: std_msgs.Int32{}})
	require.NoError(t, err)
	waitSubscribers(t, pubConn, "heartbeat", 1)
	var last time.Time
	for i := 1; i <= 30; i++ { // 300 ms of heartbeats at 100 Hz
		pub.Publish(&std_msgs.Int32{Data: int32(i)})
		last = time.Now()
		time.Sleep(10 * time.Millisecond)
	}
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := len(samples)
		return n > 0 && samples[n-1].at.After(last) && samples[n-1].stale
	}, 10*time.Second, 5*time.Millisecond, "stale after the last heartbeat")
	stop()
	mu.Lock()
	defer mu.Unlock()
	assert.True(t, samples[0].stale, "first tick: stale %v, beat %v; want stale and zero", samples[0].stale, samples[0].beat)
	assert.Equal(t, int32(0), samples[0].beat, "first tick: stale %v, beat %v; want stale and zero", samples[0].stale, samples[0].beat)
	// On a loaded machine the heartbeats may come more than max_age apart
	// and the input go stale between them too: what is checked is the
	// last fresh stretch and the staleness after it.
	lastFresh := -1
	for i, s := range samples {
		require.Equal(t, s.stale2, s.stale, "beat_stale %v and beat_msg_stale %v differ", s.stale, s.stale2)
		if !s.stale {
			lastFresh = i
		}
	}
	require.GreaterOrEqual(t, lastFresh, 0, "never fresh (%d), or never stale again", lastFresh)
	require.NotEqual(t, len(samples)-1, lastFresh, "never fresh (%d), or never stale again", lastFresh)
	staleAgain := samples[lastFresh+1]
	assert.Equal(t, int32(30), staleAgain.beat, "a stale input lost its value: %v, want the last heartbeat's 30", staleAgain.beat)
	// Not stale before max_age after the last message came (which is
	// after it was sent); then within a tick, give or take the machine.
	d := staleAgain.at.Sub(last)
	assert.GreaterOrEqual(t, d, 200*time.Millisecond, "stale %v after the last message, want 200ms (max_age) + a tick", d)
	assert.LessOrEqual(t, d, 3*time.Second, "stale %v after the last message, want 200ms (max_age) + a tick", d)
}

// TestWakeInput: a message on an input marked wake ticks the tree at once
// instead of at the next period.
func TestWakeInput(t *testing.T) {
	uri := rostest.StartMaster(t)
	pubConn := connect(t, uri, "bumper")
	c := connect(t, uri, "btrobot")
	p := profile(t, `
rate: 0.5
max_rate: 200
inputs:
  - {topic: bumper, type: std_msgs/Bool, fields: {bumped: data}, wake: true}
`)
	var mu sync.Mutex
	var seen []time.Time
	record := runtime.ActionType("Record", nil, func(n *runtime.Leaf) (runtime.Status, error) {
		if v, ok := n.Blackboard().Get("bumped"); ok && v.(bool) {
			mu.Lock()
			seen = append(seen, time.Now())
			mu.Unlock()
			n.Blackboard().Set("bumped", false)
		}
		return runtime.Success, nil
	})
	tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="Main"><Record/></BehaviorTree></root>`, record)
	runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p})
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: pubConn, Topic: "bumper", Msg: std_msgs.Bool{}})
	require.NoError(t, err)
	waitSubscribers(t, pubConn, "bumper", 1)
	for i := 0; i < 5; i++ {
		mu.Lock()
		before := len(seen)
		mu.Unlock()
		sent := time.Now()
		pub.Publish(&std_msgs.Bool{Data: true})
		require.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(seen) > before
		}, 10*time.Second, 5*time.Millisecond, "the bump seen")
		mu.Lock()
		d := seen[before].Sub(sent)
		mu.Unlock()
		// At 0.5 Hz a bump that waited for the next period would wait up
		// to 2 s; woken, it waits for the loop to get the CPU.
		assert.LessOrEqual(t, d, time.Second, "bump %d seen %v after it was sent; at 0.5 Hz without wake it would be up to 2s", i, d)
		time.Sleep(137 * time.Millisecond)
	}
}

// stopCase is a way for a run to end, after which the robot must get a
// zero velocity.
type stopCase struct {
	name string
	// node is the tree's second action: it ends the run its own way.
	node   runtime.NodeType
	cancel bool // end the run by cancelling its context
	stall  bool // a tick stalls; the watchdog must stop the robot during it
	err    string
}

// TestSafetyStop: the robot gets a zero velocity when the run is cancelled,
// when a node returns an error, when a node panics, and when a tick stalls.
func TestSafetyStop(t *testing.T) {
	uri := rostest.StartMaster(t)
	var ticks atomic.Int64
	after := func(n int64, f func() (runtime.Status, error)) runtime.ActionFunc {
		return func(*runtime.Leaf) (runtime.Status, error) {
			if ticks.Add(1) == n {
				return f()
			}
			return runtime.Running, nil
		}
	}
	cases := []stopCase{
		{name: "cancel", cancel: true, node: runtime.StatefulActionType("Work", nil, func(*runtime.Config) (runtime.StatefulAction, error) {
			return runningForever{}, nil
		})},
		{name: "error", err: "motor controller lost", node: runtime.StatefulActionType("Work", nil, func(*runtime.Config) (runtime.StatefulAction, error) {
			return statefulFunc(after(10, func() (runtime.Status, error) { return runtime.Failure, errors.New("motor controller lost") })), nil
		})},
		{name: "panic", err: "panic in a node: wheel fell off", node: runtime.StatefulActionType("Work", nil, func(*runtime.Config) (runtime.StatefulAction, error) {
			return statefulFunc(after(10, func() (runtime.Status, error) { panic("wheel fell off") })), nil
		})},
		{name: "stall", cancel: true, stall: true, node: runtime.StatefulActionType("Work", nil, func(*runtime.Config) (runtime.StatefulAction, error) {
			return statefulFunc(after(10, func() (runtime.Status, error) {
				time.Sleep(500 * time.Millisecond) // three periods are 150 ms
				return runtime.Running, nil
			})), nil
		})},
	}
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) {
			ticks.Store(0)
			c := connect(t, uri, "btrobot")
			log := watchTwists(t, uri, "/cmd_vel")
			p := profile(t, `
rate: 20
outputs: [{topic: /cmd_vel, type: geometry_msgs/Twist, fields: {speed: linear.x}, publish: every_tick}]
safety: {velocity_topic: /cmd_vel, watchdog: 3}
`)
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `
<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Sequence><Script code="speed := 0.5"/><Work/></Sequence>
</BehaviorTree></root>`, sc.node)
			var stalls atomic.Int64
			stop, done := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p, OnStall: func() { stalls.Add(1) }})
			require.Eventually(t, func() bool {
				m, ok := log.last()
				return ok && m.x == 0.5
			}, 10*time.Second, 5*time.Millisecond, "the robot driving")
			if sc.stall {
				require.Eventually(t, func() bool { return stalls.Load() > 0 }, 10*time.Second, 5*time.Millisecond, "a stall")
				require.Eventually(t, func() bool {
					m, _ := log.last()
					return m.x == 0
				}, time.Second, 5*time.Millisecond, "a zero velocity during the stall")
				require.Equal(t, int64(10), ticks.Load(), "the zero velocity came after the stalled tick (%d ticks)", ticks.Load())
			}
			if !sc.cancel {
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					require.FailNow(t, "the run did not end")
				}
			}
			_, err := stop()
			if sc.err != "" {
				require.Error(t, err, "run error %v, want %q", err, sc.err)
				require.Contains(t, err.Error(), sc.err, "run error %v, want %q", err, sc.err)
			}
			require.Eventually(t, func() bool {
				m, _ := log.last()
				return m.x == 0
			}, 2*time.Second, 5*time.Millisecond, "a zero velocity after the run")
		})
	}
}

type runningForever struct{}

func (runningForever) OnStart(*runtime.Leaf) (runtime.Status, error)   { return runtime.Running, nil }
func (runningForever) OnRunning(*runtime.Leaf) (runtime.Status, error) { return runtime.Running, nil }
func (runningForever) OnHalted(*runtime.Leaf)                          {}

// statefulFunc is a StatefulAction that calls f on every tick.
type statefulFunc runtime.ActionFunc

func (f statefulFunc) OnStart(n *runtime.Leaf) (runtime.Status, error)   { return f(n) }
func (f statefulFunc) OnRunning(n *runtime.Leaf) (runtime.Status, error) { return f(n) }
func (statefulFunc) OnHalted(*runtime.Leaf)                              {}

// TestSimTime: under /use_sim_time the loop and a Timeout follow /clock,
// here ten times faster than the wall.
func TestSimTime(t *testing.T) { rostest.EachMaster(t, testSimTime) }

func testSimTime(t *testing.T, uri string) {
	clockConn := connect(t, uri, "sim_clock")
	require.NoError(t, clockConn.SetParam("/use_sim_time", true))
	c := connect(t, uri, "btrobot")
	sim := c.SimClock()
	require.NotNil(t, sim, "no sim clock under /use_sim_time")
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: clockConn, Topic: "/clock", Msg: rosgraph_msgs.Clock{}})
	require.NoError(t, err)
	start := time.Unix(1000, 0)
	var quit atomic.Bool
	clockDone := make(chan struct{})
	go func() { // 10 ms of simulated time every wall millisecond
		defer close(clockDone)
		for now := start; !quit.Load(); now = now.Add(10 * time.Millisecond) {
			pub.Publish(&rosgraph_msgs.Clock{Clock: now})
			time.Sleep(time.Millisecond)
		}
	}()
	defer func() { quit.Store(true); <-clockDone }()

	tree := buildTree(t, Deps{Conn: c}, `
<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Timeout msec="2000"><Sleep msec="100000"/></Timeout>
</BehaviorTree></root>`)
	var mu sync.Mutex
	var starts []time.Time
	var early []bool
	wallStart := time.Now()
	rep, err := Run(context.Background(), RunConf{Conn: c, Tree: tree, Rate: 20, UntilDone: true, Observe: func(r runtime.TickReport) {
		mu.Lock()
		starts = append(starts, r.Start)
		early = append(early, r.Early)
		mu.Unlock()
	}})
	wall := time.Since(wallStart)
	require.NoError(t, err, "run: %v %v; want the Timeout to fail", rep.Status, err)
	require.Equal(t, runtime.Failure, rep.Status, "run: %v %v; want the Timeout to fail", rep.Status, err)
	// The Timeout fired after 2 s of simulated time. On the wall clock it
	// would have fired after 2 s of wall time, some 20 s of simulated time;
	// the slack above 2 s is the loop's wake-up latency, which at 10x real
	// time on a loaded machine is worth a few hundred simulated ms.
	simElapsed := starts[len(starts)-1].Sub(starts[0])
	assert.False(t, starts[0].Before(start), "ticks from %v over %v of simulated time; want from %v over 2s", starts[0], simElapsed, start)
	assert.GreaterOrEqual(t, simElapsed, 2*time.Second, "ticks from %v over %v of simulated time; want from %v over 2s", starts[0], simElapsed, start)
	assert.LessOrEqual(t, simElapsed, 5*time.Second, "ticks from %v over %v of simulated time; want from %v over 2s", starts[0], simElapsed, start)
	// The loop is phase-locked to simulated time: periodic tick k is due
	// at a fixed origin plus k periods and runs at or after its due time,
	// once. A tick that comes late (the clock ran on while the loop was off
	// the CPU) does not move the next one's due time, so at 10x real time
	// two ticks may be 70 then 30 simulated ms apart; but a missed period
	// is skipped, never made up in a burst: any j ticks after tick i span
	// more than j-1 periods. Only the last tick may come early, on the
	// Timeout's wake-up.
	const period = 50 * time.Millisecond
	for i := range starts {
		for j := i + 1; j < len(starts); j++ {
			if early[j] {
				continue
			}
			span := starts[j].Sub(starts[i])
			assert.Greater(t, span, time.Duration(j-i-1)*period, "ticks %d to %d span %v of simulated time: more ticks than periods, a burst", i, j, span)
		}
	}
	assert.GreaterOrEqual(t, len(starts), 10, "%d ticks in 2 s of simulated time at 20 Hz", len(starts))
	t.Logf("%d ticks over %v simulated, %v wall", len(starts), simElapsed, wall)
}

// TestBridgeOutputs: outputs are published from a whole message, from a
// plain number into a one-field message, on change, every tick, and at a
// rate below the tick rate.
func TestBridgeOutputs(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connect(t, uri, "btrobot")
	watcher := connect(t, uri, "watcher")
	type rec struct {
		mu    sync.Mutex
		times []time.Time
		vals  []any
	}
	recs := map[string]*rec{}
	watch := func(topic string, f func(*rec) error) {
		recs[topic] = &rec{}
		require.NoError(t, f(recs[topic]))
	}
	add := func(r *rec, v any) {
		r.mu.Lock()
		r.times = append(r.times, time.Now())
		r.vals = append(r.vals, v)
		r.mu.Unlock()
	}
	watch("/whole", func(r *rec) error {
		_, err := ros.Subscribe(watcher, "/whole", func(m *geometry_msgs.Twist) { add(r, m.Angular.Z) })
		return err
	})
	watch("/number", func(r *rec) error {
		_, err := ros.Subscribe(watcher, "/number", func(m *std_msgs.Float64) { add(r, m.Data) })
		return err
	})
	watch("/every", func(r *rec) error {
		_, err := ros.Subscribe(watcher, "/every", func(m *std_msgs.Int32) { add(r, m.Data) })
		return err
	})
	watch("/slow", func(r *rec) error {
		_, err := ros.Subscribe(watcher, "/slow", func(m *std_msgs.Int64) { add(r, m.Data) })
		return err
	})
	p := profile(t, `
rate: 50
outputs:
  - {topic: /whole, type: geometry_msgs/Twist, key: twist}
  - {topic: /number, type: std_msgs/Float64, key: level}
  - {topic: /every, type: std_msgs/Int32, key: n, publish: every_tick}
  - {topic: /slow, type: std_msgs/Int64, key: n, rate: 10}
`)
	var ticks atomic.Int64
	var measureFrom atomic.Int64
	var tickAt sync.Map // tick number → the tree's time of that tick
	step := runtime.ActionType("Step", nil, func(n *runtime.Leaf) (runtime.Status, error) {
		i := ticks.Add(1)
		tickAt.Store(i, n.Now())
		bb := n.Blackboard()
		if err := bb.Set("n", int32(i)); err != nil {
			return runtime.Failure, err
		}
		if i == 25 { // half a second in: the subscribers are connected
			measureFrom.Store(time.Now().UnixNano())
			bb.Set("twist", geometry_msgs.Twist{Angular: geometry_msgs.Vector3{Z: 0.5}})
			bb.Set("level", 0.75)
		}
		return runtime.Success, nil
	})
	tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="Main"><Step/></BehaviorTree></root>`, step)
	stop, _ := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p})
	require.Eventually(t, func() bool { return ticks.Load() >= 75 }, 20*time.Second, 5*time.Millisecond, "75 ticks")
	stop()
	time.Sleep(100 * time.Millisecond)
	from := time.Unix(0, measureFrom.Load())
	count := func(topic string) (int, []any) {
		r := recs[topic]
		r.mu.Lock()
		defer r.mu.Unlock()
		n := 0
		var vals []any
		for i, at := range r.times {
			if !at.Before(from) {
				n++
				vals = append(vals, r.vals[i])
			}
		}
		return n, vals
	}
	n, vals := count("/whole")
	if assert.Equal(t, 1, n, "/whole: %d messages %v, want one 0.5 (published on change)", n, vals) {
		assert.Equal(t, 0.5, vals[0], "/whole: %d messages %v, want one 0.5 (published on change)", n, vals)
	}
	n, vals = count("/number")
	if assert.Equal(t, 1, n, "/number: %d messages %v, want one 0.75", n, vals) {
		assert.Equal(t, 0.75, vals[0], "/number: %d messages %v, want one 0.75", n, vals)
	}
	every, _ := count("/every")
	slow, slowVals := count("/slow")
	ticked := int(ticks.Load()) - 25
	assert.GreaterOrEqual(t, every, ticked-3, "/every: %d messages over %d ticks", every, ticked)
	assert.LessOrEqual(t, every, ticked+1, "/every: %d messages over %d ticks", every, ticked)
	want := ticked / 5
	assert.GreaterOrEqual(t, slow, want-2, "/slow: %d messages over %d ticks at 50 Hz, want about %d at 10 Hz", slow, ticked, want)
	// At most 10 Hz, by the tree's clock: each message carries its tick's
	// number, and the ticks' times say how far apart they went out. The
	// rule is a period less half a tick (90 ms) between the flushes; a
	// leaf's time comes up to a tick before its flush: 70 ms. (Counted
	// against the ticks made, a late loop that skipped ticks looked like
	// too many messages.)
	for i := 1; i < len(slowVals); i++ {
		a, _ := tickAt.Load(int64(slowVals[i-1].(int64)))
		b, _ := tickAt.Load(int64(slowVals[i].(int64)))
		require.NotNil(t, a)
		require.NotNil(t, b)
		assert.GreaterOrEqual(t, b.(time.Time).Sub(a.(time.Time)), 70*time.Millisecond, "/slow: ticks %v: faster than 10 Hz", slowVals)
	}
}
