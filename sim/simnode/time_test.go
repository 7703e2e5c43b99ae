package simnode

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// TestClockFollowsSpeed: /clock advances Speed simulated seconds per wall
// second, as a subscriber measures it; Speed 0 runs as fast as it can.
func TestClockFollowsSpeed(t *testing.T) {
	for _, speed := range []float64{1, 4, 16, 0} {
		t.Run(fmt.Sprintf("speed %v", speed), func(t *testing.T) {
			uri := rostest.StartMaster(t)
			startSim(t, uri, simSetup{conf: Conf{Speed: speed}})
			// The listener is on simulated time: its clock follows /clock.
			c := connect(t, uri, "listener")
			clock := c.SimClock()
			require.NotNil(t, clock, "the listener is not on simulated time: the simulator did not set /use_sim_time")
			select {
			case <-clock.Started():
			case <-time.After(10 * time.Second):
				require.Fail(t, "no /clock")
			}
			type sample struct {
				wall time.Time
				sim  time.Duration
			}
			var samples []sample
			for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
				samples = append(samples, sample{time.Now(), clock.Now().Sub(time.Unix(0, 0))})
			}
			// Skip the first 200 ms: connections are still settling.
			first := 0
			for first < len(samples) && samples[first].wall.Sub(samples[0].wall) < 200*time.Millisecond {
				first++
			}
			a, b := samples[first], samples[len(samples)-1]
			got := (b.sim - a.sim).Seconds() / b.wall.Sub(a.wall).Seconds()
			t.Logf("speed %v: %.2f simulated seconds per second over %v", speed, got, b.wall.Sub(a.wall).Round(time.Millisecond))
			if speed == 0 {
				assert.GreaterOrEqual(t, got, 20.0, "flat out at %.1f times real time; want well over 20", got)
				return
			}
			assert.LessOrEqual(t, math.Abs(got/speed-1), 0.1, "/clock ran at %.2f times real time, want %v ± 10%%", got, speed)
		})
	}
}

// commandSequence is a fixed sequence of velocity commands, one per 100 ms.
func commandSequence(n int) []sim.Twist {
	cmds := make([]sim.Twist, n)
	for k := range cmds {
		cmds[k] = sim.Twist{Linear: 0.3 + 0.2*math.Sin(float64(k)/7), Angular: 0.8 * math.Sin(float64(k)/5)}
	}
	return cmds
}

// noisyRobot has odometry noise and wheel slip, so that its trajectory
// depends on the seed.
var noisyRobot = sim.RobotConf{Name: "robot1", OdomNoise: 0.02, WheelSlip: 0.05}

// coreRun drives the commands through the core, without ROS: the reference.
func coreRun(t testing.TB, seed uint64, cmds []sim.Twist, period time.Duration) (sim.Pose, sim.Odometry, []sim.Pose) {
	t.Helper()

	w, err := sim.LoadWorld(officeWorld, sim.WorldConf{Seed: seed})
	require.NoError(t, err)
	rc := noisyRobot
	sp, _ := w.Places().Spawn("robot1")
	rc.Spawn = sp.Pose
	r, err := w.AddRobot(rc)
	require.NoError(t, err)
	for _, c := range cmds {
		r.SetCmdVel(c)
		w.Step(period)
	}
	return r.Pose(), r.Odometry(), r.Trail()
}

// lockstepRun drives the commands over ROS from a lockstep peer: the
// simulator runs as fast as it can, and each command acts at the step it
// was sent at.
func lockstepRun(t testing.TB, seed uint64, cmds []sim.Twist, period time.Duration, load bool) (sim.Pose, sim.Odometry, []sim.Pose) {
	t.Helper()

	uri := rostest.StartMaster(t)
	until := time.Duration(len(cmds)) * period
	n, _ := startSim(t, uri, simSetup{seed: seed, robots: []sim.RobotConf{noisyRobot}, conf: Conf{Peers: 1, Until: until}})
	if load {
		// One goroutine spins the whole run: the simulator's and the
		// peer's goroutines get the other core, and the scheduler's time
		// slices of this one when they want both. (Three such loops,
		// before, kept both cores of a 2-core machine busy, and in the
		// full suite took their share of the CPU from every package
		// running beside.)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0.0
			for ctx.Err() == nil {
				for k := range 10000 {
					x += math.Sqrt(float64(k))
				}
			}
			_ = x
		}()
		defer func() { cancel(); wg.Wait() }()
	}
	c := connect(t, uri, "driver")
	clock := c.SimClock()
	require.NotNil(t, clock, "the driver is not on simulated time: the simulator did not set /use_sim_time")
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: c, Topic: "/robot1/cmd_vel", Msg: &geometry_msgs.Twist{}})
	require.NoError(t, err)
	require.NoError(t, c.WaitSubscribers(ctxTimeout(t, 10*time.Second), "/robot1/cmd_vel", 1))
	peer, err := bridge.NewLockstepPeer(c, "")
	require.NoError(t, err)
	for k, cmd := range cmds {
		at := time.Unix(0, 0).Add(time.Duration(k) * period)
		ch, stop := clock.Timer(at)
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			require.Fail(t, fmt.Sprintf("simulated time did not reach %v (it is at %v)", at.Sub(time.Unix(0, 0)), clock.Now().Sub(time.Unix(0, 0))))
		}
		stop()
		require.NoError(t, pub.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: cmd.Linear}, Angular: geometry_msgs.Vector3{Z: cmd.Angular}}))
		peer.CountSent(1)
		require.NoError(t, peer.Ready(at.Add(period)))
	}
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		require.Fail(t, fmt.Sprintf("the simulation did not reach %v (at %v)", until, n.Now()))
	}
	require.NoError(t, peer.Leave(ctxTimeout(t, 5*time.Second)))
	var pose sim.Pose
	var odom sim.Odometry
	var trail []sim.Pose
	n.Do(func(w *sim.World) error {
		r, _ := w.Robot("robot1")
		pose, odom, trail = r.Pose(), r.Odometry(), r.Trail()
		assert.Equal(t, until, w.Now(), "the simulation stopped at %v, want %v", w.Now(), until)
		return nil
	})
	return pose, odom, trail
}

// TestLockstepRepeatsTheCoreExactly: a fixed command sequence sent over ROS
// by a lockstep peer gives the trajectory the core gives for the same
// commands and seed, bit for bit, on an idle machine and on a loaded one;
// another seed gives another trajectory.
func TestLockstepRepeatsTheCoreExactly(t *testing.T) {
	const period = 100 * time.Millisecond
	cmds := commandSequence(60)
	wantPose, wantOdom, wantTrail := coreRun(t, 7, cmds, period)
	for _, tc := range []struct {
		name string
		load bool
	}{{"idle machine", false}, {"loaded machine", true}} {
		t.Run(tc.name, func(t *testing.T) {
			pose, odom, trail := lockstepRun(t, 7, cmds, period, tc.load)
			assert.Equal(t, wantPose, pose, "over ROS: pose %v odometry %+v\nthe core:  pose %v odometry %+v", pose, odom, wantPose, wantOdom)
			assert.Equal(t, wantOdom, odom, "over ROS: pose %v odometry %+v\nthe core:  pose %v odometry %+v", pose, odom, wantPose, wantOdom)
			assert.Equal(t, fmt.Sprint(wantTrail), fmt.Sprint(trail), "trails differ: %d points over ROS, %d from the core", len(trail), len(wantTrail))
		})
	}
	other, _, _ := coreRun(t, 8, cmds, period)
	assert.NotEqual(t, wantPose, other, "seeds 7 and 8 give the same pose %v: the test does not exercise the seed", other)
}

// TestLockstepMoveBaseRepeats: a move_base goal sent at time zero by a
// lockstep peer gives the trajectory the core's Navigator gives, twice.
func TestLockstepMoveBaseRepeats(t *testing.T) {
	const until = 45 * time.Second
	goal := sim.Pose{X: 2.5, Y: 3.5}
	// The reference: the loop the node runs, on the core alone.
	w, err := sim.LoadWorld(officeWorld, sim.WorldConf{Seed: 3})
	require.NoError(t, err)
	rc := noisyRobot
	sp, _ := w.Places().Spawn("robot1")
	rc.Spawn = sp.Pose
	r, err := w.AddRobot(rc)
	require.NoError(t, err)
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w, RobotRadius: r.Conf().Radius})
	require.NoError(t, err)
	require.NoError(t, nav.SetGoal(goal))
	for w.Now() < until {
		cmd, _ := nav.Update(w.Now(), r.Pose())
		r.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	want := fmt.Sprint(r.Trail())
	require.Equal(t, sim.NavSucceeded, nav.Status().State, "reference run: %v", nav.Status())

	for run := range 2 {
		t.Run(fmt.Sprint("run ", run+1), func(t *testing.T) {
			uri := rostest.StartMaster(t)
			n, log := startSim(t, uri, simSetup{seed: 3, robots: []sim.RobotConf{noisyRobot}, conf: Conf{Peers: 1, Until: until}})
			c := connect(t, uri, "driver")
			ac := actionClient(t, c, "/robot1/move_base")
			peer, err := bridge.NewLockstepPeer(c, "")
			require.NoError(t, err)
			accepted := make(chan struct{})
			result := make(chan ros.GoalOutcome, 1)
			go func() {
				out, err := ac.Run(context.Background(), moveBaseGoal("map", goal.X, goal.Y, goal.Yaw), ros.GoalConf{
					AckTimeout: 10 * time.Second, OnAccepted: func() { close(accepted) }})
				assert.NoError(t, err)
				result <- out
			}()
			<-accepted
			require.Equal(t, time.Duration(0), n.Now(), "time moved to %v before the peer let it", n.Now())
			require.NoError(t, peer.Ready(time.Unix(0, 0).Add(until)))
			out := <-result
			require.Equal(t, ros.GoalSucceeded, out.State, "goal ended %v", out.State)
			<-n.Done()
			log.wait(t, PeerJoined("/driver")+"0s", time.Second)
			got := fmt.Sprint(robotState(n, "robot1", (*sim.Robot).Trail))
			assert.Equal(t, want, got, "the trajectory over ROS differs from the core's")
		})
	}
}

// TestLockstepWaitsForPeers: time holds until the awaited peers join, holds
// at a peer's stamp, and moves on when a peer leaves or dies.
func TestLockstepWaitsForPeers(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Peers: 2, PeerTimeout: 300 * time.Millisecond}})
	time.Sleep(300 * time.Millisecond)
	now := n.Now()
	require.Equal(t, time.Duration(0), now, "time moved to %v with no peer", now)
	a := connect(t, uri, "peer_a")
	pa, err := bridge.NewLockstepPeer(a, "")
	require.NoError(t, err)
	require.NoError(t, pa.Ready(time.Unix(1, 0)))
	log.wait(t, "lockstep: peer /peer_a joined", 5*time.Second)
	time.Sleep(200 * time.Millisecond)
	now = n.Now()
	require.Equal(t, time.Duration(0), now, "time moved to %v with one of two peers", now)
	b, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "peer_b"})
	require.NoError(t, err)
	pb, err := bridge.NewLockstepPeer(b, "")
	require.NoError(t, err)
	require.NoError(t, pb.Ready(time.Unix(2, 0)))
	// Both joined: time runs to peer_a's stamp and holds there.
	require.Eventually(t, func() bool { return n.Now() == time.Second }, 5*time.Second, 5*time.Millisecond, "time at 1 s")
	time.Sleep(200 * time.Millisecond)
	now = n.Now()
	require.Equal(t, time.Second, now, "time at %v, want held at peer_a's 1 s", now)
	require.NoError(t, pa.Leave(ctxTimeout(t, 5*time.Second)))
	log.wait(t, "lockstep: peer /peer_a left at 1s", 5*time.Second)
	require.Eventually(t, func() bool { return n.Now() == 2*time.Second }, 5*time.Second, 5*time.Millisecond, "time at 2 s")
	// peer_b dies without leaving: after PeerTimeout the node asks the
	// master, finds it gone, and runs on.
	b.Close()
	log.wait(t, "lockstep: peer /peer_b is gone", 10*time.Second)
	require.Eventually(t, func() bool { return n.Now() > 3*time.Second }, 5*time.Second, 5*time.Millisecond, "time past 2 s")
}

// TestLockstepWithRospyPeer: a rospy node can be a lockstep peer too; its
// command sequence gives the core's trajectory bit for bit.
func TestLockstepWithRospyPeer(t *testing.T) {
	rostest.Require(t, "rospy")
	const steps = 30
	cmds := make([]sim.Twist, steps)
	for k := range cmds {
		cmds[k] = sim.Twist{Linear: 0.2, Angular: 0.5 * float64(k%5-2)}
		if k%2 == 0 {
			cmds[k].Linear = 0.3
		}
	}
	wantPose, wantOdom, _ := coreRun(t, 5, cmds, 100*time.Millisecond)
	uri := rostest.StartMaster(t)
	until := steps * 100 * time.Millisecond
	n, log := startSim(t, uri, simSetup{seed: 5, robots: []sim.RobotConf{noisyRobot}, conf: Conf{Peers: 1, Until: until}})
	peer := rostest.Python(t, uri, "testdata/lockstep_peer.py", "/robot1/cmd_vel", fmt.Sprint(steps))
	peer.WaitLine(t, "done", 60*time.Second)
	<-n.Done()
	log.wait(t, "lockstep: peer /py_peer joined at 0s", time.Second)
	log.wait(t, "lockstep: peer /py_peer left", 5*time.Second)
	pose := robotState(n, "robot1", (*sim.Robot).Pose)
	odom := robotState(n, "robot1", (*sim.Robot).Odometry)
	assert.Equal(t, wantPose, pose, "rospy peer: pose %v odometry %+v\nthe core:   pose %v odometry %+v", pose, odom, wantPose, wantOdom)
	assert.Equal(t, wantOdom, odom, "rospy peer: pose %v odometry %+v\nthe core:   pose %v odometry %+v", pose, odom, wantPose, wantOdom)
}

// TestClockGoesOnThroughALongStep: a physics step that takes long (here a
// scheduled function that holds the world 800 ms; in a run, the first plan
// of a goal on a loaded machine) does not silence /clock: its time is said
// again while the step lasts, and never goes back, so that a controller
// with a short safety.clock_timeout does not take a busy simulator for a
// dead one.
func TestClockGoesOnThroughALongStep(t *testing.T) {
	cases := []struct {
		name string
		hold time.Duration
	}{
		{"a step of 800 ms", 800 * time.Millisecond},
		{"a step of 1.5 s", 1500 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			node, _ := startSim(t, uri, simSetup{conf: Conf{Speed: 1}})
			held := make(chan struct{})
			var began atomic.Int64 // wall ns
			node.At(time.Second, func(*sim.World) {
				began.Store(time.Now().UnixNano())
				time.Sleep(tc.hold)
				close(held)
			})
			c := connect(t, uri, "listener")
			clock := c.SimClock()
			require.NotNil(t, clock, "the listener is not on simulated time")
			// The longest silence of /clock, as the listener hears it,
			// while the step holds the world.
			var longest time.Duration
			giveUp := time.After(30 * time.Second)
		watch:
			for {
				select {
				case <-held:
					break watch
				case <-giveUp:
					require.Fail(t, "the scheduled step never ran")
				case <-time.After(5 * time.Millisecond):
				}
				b, last := began.Load(), clock.LastSet()
				if b == 0 || last.IsZero() {
					continue
				}
				from := time.Unix(0, b)
				if last.After(from) {
					from = last
				}
				longest = max(longest, time.Since(from))
			}
			assert.Less(t, longest, tc.hold/2, "/clock was silent for %v of a %v step", longest, tc.hold)
		})
	}
}
