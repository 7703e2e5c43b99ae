package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

// The fault tests of docs/running.md ("What happens when ROS fails"): a
// real rosmaster, the simulator and `btrobot run` as processes, a fault
// injected with Debian's tools or a signal, and two measures from the
// fault: until a separate subscriber of the robot's cmd_vel received a
// zero Twist, and until the controller exited. BENCHMARKS.md reports them.

// wallSimEnv makes the test binary run the simulator on wall time (there
// is no such flag on btrobot sim) instead of the tests: a process of its
// own, that a test can SIGKILL.
const wallSimEnv = "BTROBOT_TEST_WALL_SIM"

func TestMain(m *testing.M) {
	if uri := os.Getenv(wallSimEnv); uri != "" {
		os.Exit(runWallSim(uri))
	}
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}

// runWallSim serves robot1 of the office on wall time until a signal.
func runWallSim(uri string) int {
	w, err := sim.LoadWorld(repoOfficeWorld, sim.WorldConf{Seed: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sp, _ := w.Places().Spawn("robot1")
	if _, err := w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	conn, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "sim"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer conn.Close()
	node, err := simnode.Start(simnode.Conf{World: w, Conn: conn, Speed: 1, WallTime: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer node.Close()
	fmt.Println("simulator ready on wall time")
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	<-sigc
	return 0
}

// faultRig is one run of the patrol under a fault: a master, the
// simulator, the controller, and a watcher of robot1's cmd_vel and odom.
type faultRig struct {
	t      *testing.T
	uri    string
	master *rostest.Process
	sim    *rostest.Process

	ctl    *exec.Cmd
	out    lockedBuffer
	exited chan struct{}
	exitAt time.Time

	mu      sync.Mutex
	zeros   []time.Time // when the watcher received a zero Twist
	cancels []time.Time // when the watcher received a goal cancel of move_base
	speed   float64     // the newest odometry speed
}

// rigConf says what a fault rig runs on.
type rigConf struct {
	// wallTime runs the simulator on wall time (no /use_sim_time).
	wallTime bool
	// embedded runs btrobot's own master (`btrobot master`, a process of
	// its own) in place of Debian's rosmaster.
	embedded bool
	// args are more arguments of btrobot run.
	args []string
}

// startRig starts everything and returns once the robot drives.
func startRig(t *testing.T, wallTime bool, before ...func(r *faultRig)) *faultRig {
	t.Helper()
	return startRigOn(t, rigConf{wallTime: wallTime}, before...)
}

// startRigOn is startRig on the master rc says.
func startRigOn(t *testing.T, rc rigConf, before ...func(r *faultRig)) *faultRig {
	t.Helper()
	wallTime := rc.wallTime
	r := &faultRig{t: t, exited: make(chan struct{})}
	port := rostest.FreePort(t)
	r.uri = "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	bin := buildBinary(t)
	if rc.embedded {
		r.master = rostest.Start(t, r.uri, bin, "master", "--port", strconv.Itoa(port))
	} else {
		r.master = rostest.Start(t, r.uri, "rosmaster", "--core", "-p", strconv.Itoa(port))
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := master.Probe(ctx, r.uri)
		cancel()
		if err == nil {
			break
		}
		require.False(t, time.Now().After(deadline), "rosmaster did not answer: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
	if wallTime {
		self, err := os.Executable()
		require.NoError(t, err)
		t.Setenv(wallSimEnv, r.uri) // the test binary becomes the simulator
		r.sim = rostest.Start(t, r.uri, self)
		r.sim.WaitLine(t, "simulator ready", 30*time.Second)
	} else {
		r.sim = rostest.Start(t, r.uri, bin, "sim", "--world", repoOfficeWorld)
		// Printed once /use_sim_time is set: the controller must start
		// after it, or it runs on wall time.
		r.sim.WaitLine(t, "robot(s) in", 30*time.Second)
	}

	watch, err := ros.Connect(ros.Conf{MasterURI: r.uri, Host: "127.0.0.1", Name: "failsafe_watch", MasterCheck: -1})
	require.NoError(t, err)
	t.Cleanup(func() { watch.Close() })
	require.Equal(t, !wallTime, watch.SimClock() != nil, "the graph's clock")
	_, err = ros.Subscribe(watch, "/robot1/cmd_vel", func(m *geometry_msgs.Twist) {
		if *m == (geometry_msgs.Twist{}) {
			at := time.Now()
			r.mu.Lock()
			r.zeros = append(r.zeros, at)
			r.mu.Unlock()
		}
	})
	require.NoError(t, err)
	_, err = ros.Subscribe(watch, "/robot1/move_base/cancel", func(m *actionlib_msgs.GoalID) {
		at := time.Now()
		r.mu.Lock()
		r.cancels = append(r.cancels, at)
		r.mu.Unlock()
	})
	require.NoError(t, err)
	_, err = ros.Subscribe(watch, "/robot1/odom", func(m *nav_msgs.Odometry) {
		r.mu.Lock()
		r.speed = m.Twist.Twist.Linear.X
		r.mu.Unlock()
	})
	require.NoError(t, err)

	for _, f := range before {
		f(r)
	}
	r.ctl = exec.Command(bin, append([]string{"run", "--tree", filepath.Join(repoMissions, "patrol.xml"),
		"--robot", repoSimProfile, "--places", repoOfficeWorld, "--quiet", "__ns:=/robot1"}, rc.args...)...)
	r.ctl.Env = rostest.Env(t, r.uri)
	r.ctl.Stdout, r.ctl.Stderr = &r.out, &r.out
	require.NoError(t, r.ctl.Start())
	go func() {
		r.ctl.Wait()
		r.mu.Lock()
		r.exitAt = time.Now()
		r.mu.Unlock()
		close(r.exited)
	}()
	t.Cleanup(func() {
		r.ctl.Process.Signal(syscall.SIGCONT)
		r.ctl.Process.Kill()
		<-r.exited
		t.Logf("btrobot run printed:\n%s", r.out.String())
	})
	r.waitSpeed(0.1, 60*time.Second)
	time.Sleep(500 * time.Millisecond) // under way
	return r
}

// waitSpeed waits until the odometry says the robot drives at least v.
func (r *faultRig) waitSpeed(v float64, timeout time.Duration) {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r.mu.Lock()
		s := r.speed
		r.mu.Unlock()
		if s >= v {
			return
		}
		select {
		case <-r.exited:
			require.FailNow(r.t, fmt.Sprintf("btrobot run exited before the robot drove:\n%s", r.out.String()))
		default:
		}
		require.False(r.t, time.Now().After(deadline), "the robot never drove:\n%s", r.out.String())
		time.Sleep(20 * time.Millisecond)
	}
}

// firstZeroAfter returns how long after t0 the watcher received a zero
// Twist, waiting up to timeout; false when none came.
func (r *faultRig) firstZeroAfter(t0 time.Time, timeout time.Duration) (time.Duration, bool) {
	return r.firstAfter(&r.zeros, t0, timeout)
}

// firstAfter returns how long after t0 the first of the times (read under
// the rig's lock) came, waiting up to timeout; false when none came.
func (r *faultRig) firstAfter(times *[]time.Time, t0 time.Time, timeout time.Duration) (time.Duration, bool) {
	deadline := time.Now().Add(timeout)
	for {
		r.mu.Lock()
		for _, z := range *times {
			if z.After(t0) {
				r.mu.Unlock()
				return z.Sub(t0), true
			}
		}
		r.mu.Unlock()
		if time.Now().After(deadline) {
			return 0, false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// restAfter waits up to timeout until the odometry says the robot is at
// rest, and reports whether it came to rest.
func (r *faultRig) restAfter(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		r.mu.Lock()
		s := r.speed
		r.mu.Unlock()
		if s == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exitAfter waits up to timeout for the controller to exit and returns how
// long after t0 it did.
func (r *faultRig) exitAfter(t0 time.Time, timeout time.Duration) (time.Duration, bool) {
	select {
	case <-r.exited:
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.exitAt.Sub(t0), true
	case <-time.After(timeout):
		return 0, false
	}
}

// pyTool starts a Python script of Debian's ROS modules that waits for a
// line on standard input before it acts, so that the fault's moment is
// when the test writes it, not when Python has started.
type pyTool struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	p     *rostest.Process
}

func startPyTool(t *testing.T, uri, script string, args ...string) *pyTool {
	t.Helper()
	rostest.Require(t, "rospy", "rosnode")
	path := filepath.Join(t.TempDir(), "tool.py")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o644))
	cmd := exec.Command(rostest.PythonPath, append([]string{path}, args...)...)
	cmd.Env = rostest.Env(t, uri)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 6)
	_, err = io.ReadFull(stdout, buf)
	require.NoError(t, err)
	require.Equal(t, "ready\n", string(buf))
	go io.Copy(io.Discard, stdout)
	return &pyTool{cmd: cmd, stdin: stdin}
}

// fire makes the tool act and returns the moment.
func (p *pyTool) fire() time.Time {
	t0 := time.Now()
	p.stdin.Write([]byte("go\n"))
	return t0
}

// rosnodeKill is `rosnode kill /robot1/btrobot`, through rosnode's module.
const rosnodeKill = `import sys, rosnode
sys.stdout.write("ready\n"); sys.stdout.flush()
sys.stdin.readline()
ok, fail = rosnode.kill_nodes(["/robot1/btrobot"])
assert ok == ["/robot1/btrobot"], (ok, fail)
sys.stdin.readline()
`

// duplicateNode is a rospy node that takes the controller's name, as
// `rostopic pub ... __name:=btrobot __ns:=/robot1` does.
const duplicateNode = `import sys, rospy
sys.stdout.write("ready\n"); sys.stdout.flush()
sys.stdin.readline()
rospy.init_node("btrobot", anonymous=False)
sys.stdin.readline()
`

// fakeMoveBase is a move_base of its own process, as on a robot: it drives
// the base forward at 0.3 m/s while it has a goal, until it dies.
const fakeMoveBase = `import sys, rospy, actionlib
from move_base_msgs.msg import MoveBaseAction
from geometry_msgs.msg import Twist
rospy.init_node("move_base")
pub = rospy.Publisher("cmd_vel", Twist, queue_size=1)
def execute(goal):
    rate = rospy.Rate(10)
    while not rospy.is_shutdown():
        if server.is_preempt_requested():
            server.set_preempted()
            return
        t = Twist()
        t.linear.x = 0.3
        pub.publish(t)
        rate.sleep()
server = actionlib.SimpleActionServer("move_base", MoveBaseAction, execute, auto_start=False)
server.start()
sys.stdout.write("ready\n"); sys.stdout.flush()
rospy.spin()
`

// faultTarget is the target: a zero Twist within a second of the
// fault, the controller gone within three.
const (
	zeroTarget = time.Second
	exitTarget = 3 * time.Second
)

// failsafeTimes collects the measures for the log line BENCHMARKS.md
// quotes.
var failsafeTimes sync.Map

// TestFailsafeStopsTheRobotWhenROSFails: for every way the controller can
// lose ROS, the watcher receives a zero Twist within a second of the
// fault, the controller exits 1 within three seconds, and its last line
// names the cause and says the zero velocity was delivered.
func TestFailsafeStopsTheRobotWhenROSFails(t *testing.T) {
	rostest.Require(t, "rosmaster", "rospy", "rosnode")
	var moveBase *pyTool
	cases := []struct {
		name     string
		wallTime bool
		before   func(r *faultRig)
		fault    func(t *testing.T, r *faultRig) time.Time
		cause    string
		// delivered: the last line says the zero velocity reached a
		// subscriber (the watcher at least).
		delivered string
	}{
		{
			name: "rosnode kill",
			fault: func(t *testing.T, r *faultRig) time.Time {
				tool := startPyTool(t, r.uri, rosnodeKill)
				return tool.fire()
			},
			cause: "shut down by the master: user request",
		},
		{
			name: "a second node with the same name",
			fault: func(t *testing.T, r *faultRig) time.Time {
				tool := startPyTool(t, r.uri, duplicateNode, "__ns:=/robot1")
				return tool.fire()
			},
			cause: "new node registered with same name",
		},
		{
			name: "simulator SIGKILL under sim time",
			fault: func(t *testing.T, r *faultRig) time.Time {
				t0 := time.Now()
				r.sim.Kill()
				return t0
			},
			cause: "/clock stopped",
		},
		{
			name:     "simulator SIGKILL under wall time",
			wallTime: true,
			fault: func(t *testing.T, r *faultRig) time.Time {
				t0 := time.Now()
				r.sim.Kill()
				return t0
			},
			cause: "lost the robot: the publishers of /robot1/odom",
		},
		{
			name: "master SIGKILL",
			fault: func(t *testing.T, r *faultRig) time.Time {
				t0 := time.Now()
				r.master.Kill()
				return t0
			},
			cause: "lost the master at ",
		},
		{
			name: "move_base SIGKILL mid-goal",
			before: func(r *faultRig) {
				// The simulator's own move_base steps aside for one in a
				// process of its own.
				rostest.Require(r.t, "rosservice", "actionlib", "move_base_msgs")
				rostest.Run(r.t, r.uri, 30*time.Second, "rosservice", "call", "/sim/robot1/stop_move_base", "data: true")
				moveBase = startPyTool(r.t, r.uri, fakeMoveBase, "__ns:=/robot1")
			},
			fault: func(t *testing.T, r *faultRig) time.Time {
				t0 := time.Now()
				moveBase.cmd.Process.Kill()
				return t0
			},
			cause: "lost the action server /robot1/move_base: its node /robot1/move_base closed its connections",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before []func(*faultRig)
			if tc.before != nil {
				before = append(before, tc.before)
			}
			r := startRig(t, tc.wallTime, before...)
			t0 := tc.fault(t, r)
			zero, gotZero := r.firstZeroAfter(t0, 5*time.Second)
			exit, exited := r.exitAfter(t0, 10*time.Second)
			t.Logf("fault %q: zero Twist after %v, exit after %v", tc.name, zero.Round(time.Millisecond), exit.Round(time.Millisecond))
			failsafeTimes.Store(tc.name, [2]time.Duration{zero, exit})
			require.True(t, exited, "btrobot run still runs 10 s after the fault:\n%s", r.out.String())
			assert.True(t, gotZero, "no zero Twist reached the watcher")
			assert.LessOrEqual(t, zero, zeroTarget, "zero Twist later than the target")
			assert.LessOrEqual(t, exit, exitTarget, "exit later than the target")
			assert.Equal(t, exitFailed, r.ctl.ProcessState.ExitCode())
			out := r.out.String()
			assert.Contains(t, out, tc.cause)
			assert.Contains(t, out, "zero velocity sent on /robot1/cmd_vel and delivered to")
		})
	}
}

// TestFailsafeStalledControllerResumes: SIGSTOP for five seconds, then
// SIGCONT. The controller notices the stall the moment it runs again, stops
// the robot (a zero Twist within a second of SIGCONT), says how long it
// was stalled, takes in the inputs that arrived meanwhile and carries on
// with the mission, under simulated time and under wall time.
func TestFailsafeStalledControllerResumes(t *testing.T) {
	rostest.Require(t, "rosmaster")
	for _, wall := range []bool{false, true} {
		name := map[bool]string{false: "sim time", true: "wall time"}[wall]
		t.Run(name, func(t *testing.T) {
			r := startRig(t, wall)
			require.NoError(t, syscall.Kill(r.ctl.Process.Pid, syscall.SIGSTOP))
			time.Sleep(5 * time.Second)
			t0 := time.Now()
			require.NoError(t, syscall.Kill(r.ctl.Process.Pid, syscall.SIGCONT))
			zero, gotZero := r.firstZeroAfter(t0, 5*time.Second)
			t.Logf("stall (%s): zero Twist %v after SIGCONT", name, zero.Round(time.Millisecond))
			failsafeTimes.Store("SIGSTOP 5 s, "+name, [2]time.Duration{zero, 0})
			assert.True(t, gotZero, "no zero Twist after the stall")
			assert.LessOrEqual(t, zero, zeroTarget)
			_, exited := r.exitAfter(t0, 3*time.Second)
			require.False(t, exited, "the mission ended after the stall:\n%s", r.out.String())
			out := r.out.String()
			// The controller times the stall by its own heartbeat: a
			// 5 s SIGSTOP has read as 4.9 s on a loaded machine.
			assert.Regexp(t, `the controller did not run for (4\.[5-9]|[5-9]\.\d) s`, out)
			assert.NotContains(t, out, "after the stall, still no fresh message")
			// It carries on: the robot drives again, and SIGINT ends the
			// run as usual.
			r.waitSpeed(0.1, 30*time.Second)
			require.NoError(t, r.ctl.Process.Signal(syscall.SIGINT))
			_, exited = r.exitAfter(time.Now(), 5*time.Second)
			require.True(t, exited)
			assert.Contains(t, r.out.String(), "interrupted by SIGINT")
		})
	}
}

// TestFailsafeDuplicateNodeStopsTheRobot: a second node takes the
// controller's name, on Debian's rosmaster and on btrobot's own master
// (a process of its own). The master shuts the controller down; before it
// goes, the separate watcher receives a zero Twist and move_base's goal
// cancel, the simulated robot comes to rest and stays there, and the
// controller's last line says the zero velocity was delivered.
func TestFailsafeDuplicateNodeStopsTheRobot(t *testing.T) {
	rostest.Require(t, "rosmaster", "rospy")
	for _, embedded := range []bool{false, true} {
		name := map[bool]string{false: "rosmaster", true: "btrobot master"}[embedded]
		t.Run(name, func(t *testing.T) {
			r := startRigOn(t, rigConf{embedded: embedded})
			tool := startPyTool(t, r.uri, duplicateNode, "__ns:=/robot1")
			t0 := tool.fire()
			zero, gotZero := r.firstZeroAfter(t0, 5*time.Second)
			cancel, gotCancel := r.firstAfter(&r.cancels, t0, 5*time.Second)
			exit, exited := r.exitAfter(t0, 10*time.Second)
			rest := r.restAfter(5 * time.Second)
			t.Logf("duplicate node on %s: zero Twist after %v, cancel after %v, exit after %v", name,
				zero.Round(time.Millisecond), cancel.Round(time.Millisecond), exit.Round(time.Millisecond))
			failsafeTimes.Store("a second node with the same name, "+name, [2]time.Duration{zero, exit})
			require.True(t, exited, "btrobot run still runs 10 s after the fault:\n%s", r.out.String())
			assert.True(t, gotZero, "no zero Twist reached the watcher")
			assert.True(t, gotCancel, "no goal cancel reached the watcher of move_base/cancel")
			require.True(t, rest, "the robot did not come to rest")
			time.Sleep(time.Second) // it stays at rest: no goal drives it on
			r.mu.Lock()
			speed := r.speed
			r.mu.Unlock()
			assert.Zero(t, speed, "the robot drives on after the controller was shut down")
			out := r.out.String()
			assert.Contains(t, out, "new node registered with same name")
			assert.Contains(t, out, "zero velocity sent on /robot1/cmd_vel and delivered to")
		})
	}
}

// TestFailsafeSignalTwice: a supervisor sends SIGTERM twice in quick
// succession. The second signal never skips the stop: the watcher
// receives a zero Twist, the controller exits 1 within exitTarget (its
// teardown of its own slave API, which net/http's Shutdown may hold five
// seconds for a peer's unused connection, is not waited for) and says it
// stopped the robot.
func TestFailsafeSignalTwice(t *testing.T) {
	rostest.Require(t, "rosmaster")
	for _, gap := range []time.Duration{0, 5 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond} {
		t.Run(gap.String(), func(t *testing.T) {
			r := startRig(t, false)
			t0 := time.Now()
			require.NoError(t, r.ctl.Process.Signal(syscall.SIGTERM))
			if gap > 0 {
				time.Sleep(gap) // the gap between the signals is the case
			}
			// The process may have ended already after a long gap.
			r.ctl.Process.Signal(syscall.SIGTERM) //nolint:errcheck
			zero, gotZero := r.firstZeroAfter(t0, 5*time.Second)
			exit, exited := r.exitAfter(t0, 15*time.Second)
			t.Logf("SIGTERM twice %v apart: zero Twist after %v, exit after %v", gap, zero.Round(time.Millisecond), exit.Round(time.Millisecond))
			require.True(t, exited, "btrobot run still runs 15 s after the signals:\n%s", r.out.String())
			assert.True(t, gotZero, "no zero Twist reached the watcher:\n%s", r.out.String())
			assert.LessOrEqual(t, exit, exitTarget, "exit later than the target")
			assert.Equal(t, exitFailed, r.ctl.ProcessState.ExitCode(), "%s", r.out.String())
			out := r.out.String()
			assert.Contains(t, out, "interrupted by SIGTERM")
			assert.Contains(t, out, "zero velocity sent on /robot1/cmd_vel and delivered to")
		})
	}
}

// TestFailsafeHungMaster: the master stops answering (SIGSTOP) and stays
// so, on Debian's rosmaster and on btrobot's own. The controller stops the
// robot, exits within a bound although every call to the master hangs,
// and says that the master did not answer: found by its master check, or,
// when a SIGTERM ends the run first, by the unregistrations as it closes.
func TestFailsafeHungMaster(t *testing.T) {
	rostest.Require(t, "rosmaster")
	cases := []struct {
		name     string
		embedded bool
		sigterm  bool // SIGTERM right after the master hung
		says     string
	}{
		{"rosmaster", false, false, "it does not answer"},
		{"btrobot master", true, false, "it does not answer"},
		{"rosmaster, then SIGTERM", false, true, "it did not answer within 1s while /robot1/btrobot unregistered"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := startRigOn(t, rigConf{embedded: tc.embedded})
			t.Cleanup(func() { syscall.Kill(r.master.Pid(), syscall.SIGCONT) })
			t0 := time.Now()
			require.NoError(t, syscall.Kill(r.master.Pid(), syscall.SIGSTOP))
			if tc.sigterm {
				require.NoError(t, r.ctl.Process.Signal(syscall.SIGTERM))
			}
			zero, gotZero := r.firstZeroAfter(t0, 10*time.Second)
			exit, exited := r.exitAfter(t0, 20*time.Second)
			t.Logf("master SIGSTOP (%s): zero Twist after %v, exit after %v", tc.name, zero.Round(time.Millisecond), exit.Round(time.Millisecond))
			failsafeTimes.Store("master SIGSTOP, "+tc.name, [2]time.Duration{zero, exit})
			require.True(t, exited, "btrobot run still runs 20 s after the master hung:\n%s", r.out.String())
			assert.True(t, gotZero, "no zero Twist reached the watcher")
			assert.Equal(t, exitFailed, r.ctl.ProcessState.ExitCode())
			out := r.out.String()
			assert.Contains(t, out, "lost the master at "+r.uri+": "+tc.says)
			assert.Contains(t, out, "zero velocity sent on /robot1/cmd_vel and delivered to")
		})
	}
}
