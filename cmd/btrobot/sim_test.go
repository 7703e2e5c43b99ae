package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

const simOfficeWorld = "../../worlds/office"

// simOutput is a bytes.Buffer that a command writes while a test reads.
type simOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *simOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *simOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startSimCLI runs btrobot sim in the background; the returned channel
// gives its exit code.
func startSimCLI(args ...string) (stdout, stderr *simOutput, code <-chan int) {
	stdout, stderr = &simOutput{}, &simOutput{}
	ch := make(chan int, 1)
	go func() { ch <- simCommand().Run(&cmdEnv{Stdout: stdout, Stderr: stderr}, args) }()
	return stdout, stderr, ch
}

func runSimCLI(t *testing.T, timeout time.Duration, args ...string) (int, string, string) {
	t.Helper()
	stdout, stderr, code := startSimCLI(args...)
	select {
	case c := <-code:
		return c, stdout.String(), stderr.String()
	case <-time.After(timeout):
		require.FailNow(t, fmt.Sprintf("btrobot sim %s: still running after %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), timeout, stdout, stderr))
		return 0, "", ""
	}
}

func simWaitFor(t *testing.T, b *simOutput, substr string, timeout time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(b.String(), substr) }, timeout, 10*time.Millisecond,
		"no %q within %v in:\n%s", substr, timeout, b)
}

func TestSimUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--robots", "0"}, "btrobot sim: --robots 0: want at least 1"},
		{[]string{"--robots", "2", "--no-namespace"}, "btrobot sim: --no-namespace serves one robot, not 2"},
		{[]string{"--speed", "-1"}, "btrobot sim: --speed -1: want 0 (as fast as possible) or a positive factor of real time"},
		{[]string{"--speed", "NaN"}, "btrobot sim: --speed NaN: want 0 (as fast as possible) or a positive factor of real time"},
		{[]string{"--speed", "Inf"}, "btrobot sim: --speed +Inf: want 0 (as fast as possible) or a positive factor of real time"},
		{[]string{"--render", "out.jpg"}, "btrobot sim: --render out.jpg: the file name must end in .png or .svg"},
		{[]string{"extra"}, `btrobot sim: unexpected arguments ["extra"] (ROS arguments are written name:=value)`},
		{[]string{"__bogus:=1"}, `btrobot sim: argument "__bogus:=1": unknown special argument __bogus`},
		{[]string{"--world", "no/such/world"}, "btrobot sim: stat no/such/world: no such file or directory"},
		{[]string{"--world", simOfficeWorld, "--robots", "5"}, "btrobot sim: world ../../worlds/office: add robots: the world has no spawn pose named robot5 (it has 4); add one to its places.yaml"},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := runSimCLI(t, 10*time.Second, tc.args...)
			assert.Equal(t, exitUsage, code, "exit %d, want %d", code, exitUsage)
			assert.Contains(t, stderr, tc.want, "stderr:\n%s\nwant %q", stderr, tc.want)
		})
	}
	code, _, stderr := runSimCLI(t, 10*time.Second, "--help")
	assert.Equal(t, exitOK, code, "--help: exit %d\n%s", code, stderr)
	assert.Contains(t, stderr, "Usage: btrobot sim", "--help: exit %d\n%s", code, stderr)
	assert.Contains(t, stderr, "Example:", "--help: exit %d\n%s", code, stderr)
}

// TestSimRun: two robots in lockstep with a peer that sends robot1 to the
// kitchen at time zero; the run stops at --duration, renders, and reports.
func TestSimRun(t *testing.T) {
	dir := t.TempDir()
	pngFile, svgFile := filepath.Join(dir, "run.png"), filepath.Join(dir, "run.svg")
	uri := rostest.StartMaster(t)
	stdout, stderr, code := startSimCLI("--world", simOfficeWorld, "--robots", "2", "--speed", "0", "--peers", "1",
		"--duration", "45s", "--master", uri, "--seed", "3", "--render", pngFile, "--render", svgFile)
	simWaitFor(t, stdout, "btrobot sim: 2 robot(s) in ../../worlds/office, as fast as possible, node /sim on "+uri, 10*time.Second)

	c, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "driver"})
	require.NoError(t, err)
	defer c.Close()
	ac, err := ros.NewActionClient(ros.ActionClientConf{Conn: c, Name: "/robot1/move_base", Action: ros.MoveBaseAction{}})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, ac.WaitForServer(ctx, c.Clock(), 0))
	peer, err := bridge.NewLockstepPeer(c, "")
	require.NoError(t, err)
	goal := &ros.MoveBaseActionGoal{}
	goal.TargetPose.Header.FrameId = "map"
	goal.TargetPose.Pose.Position = geometry_msgs.Point{X: 2.5, Y: 3.5}
	goal.TargetPose.Pose.Orientation.W = 1
	result := make(chan ros.GoalOutcome, 1)
	accepted := make(chan struct{})
	go func() {
		out, _ := ac.Run(ctx, goal, ros.GoalConf{AckTimeout: 10 * time.Second, OnAccepted: func() { close(accepted) }})
		result <- out
	}()
	<-accepted
	require.NoError(t, peer.Ready(time.Unix(45, 0)))
	outcome := <-result
	assert.Equal(t, ros.GoalSucceeded, outcome.State, "goal: %v", outcome.State)
	select {
	case c := <-code:
		require.Equal(t, exitOK, c, "exit %d\nstdout:\n%s\nstderr:\n%s", c, stdout, stderr)
	case <-time.After(30 * time.Second):
		require.FailNow(t, fmt.Sprintf("still running:\n%s", stdout))
	}
	out := stdout.String()
	t.Logf("stdout:\n%s", out)
	for _, want := range []string{
		"     0.000s  lockstep: peer /driver joined at 0s",
		"s  robot1: move_base goal succeeded",
		"btrobot sim: rendered " + pngFile + ", " + svgFile,
		"btrobot sim: 45s simulated in ",
		"  robot2: 0.00 m travelled, 0 collisions, battery 99%, undocked, at (8.60, -3.50, 3.14)",
	} {
		assert.Contains(t, out, want, "stdout lacks %q:\n%s", want, out)
	}
	data, err := os.ReadFile(pngFile)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(data))
	assert.NoError(t, err, "%s: %v", pngFile, err)
	svg, err := os.ReadFile(svgFile)
	assert.NoError(t, err, "%s: %v", svgFile, err)
	assert.True(t, bytes.Contains(svg, []byte("<svg")), "%s: %v", svgFile, err)
}

// TestSimMasterAuto: --master auto starts btrobot's own master where
// ROS_MASTER_URI points when none answers there.
func TestSimMasterAuto(t *testing.T) {
	uri := fmt.Sprintf("http://127.0.0.1:%d/", rostest.FreePort(t))
	t.Setenv("ROS_MASTER_URI", uri)
	t.Setenv("ROS_IP", "127.0.0.1")
	code, stdout, stderr := runSimCLI(t, 30*time.Second, "--world", simOfficeWorld, "--master", "auto", "--speed", "0", "--duration", "2s")
	require.Equal(t, exitOK, code, "exit %d\n%s\n%s", code, stdout, stderr)
	want := "btrobot sim: no ROS master answered at " + uri + "; started btrobot's own at " + uri
	assert.Contains(t, stderr, want, "stderr:\n%s\nwant %q", stderr, want)
	assert.Contains(t, stdout, "btrobot sim: 2s simulated in ", "stdout:\n%s", stdout)
}

// TestSimSignals: SIGUSR1 renders on request; SIGINT ends the run, which
// renders once more and exits 0.
func TestSimSignals(t *testing.T) {
	// The test catches the signals too, so that one arriving when the
	// command is not listening cannot kill the test binary.
	guard := make(chan os.Signal, 4)
	signal.Notify(guard, syscall.SIGUSR1, os.Interrupt)
	defer signal.Stop(guard)
	file := filepath.Join(t.TempDir(), "now.png")
	uri := rostest.StartMaster(t)
	stdout, stderr, code := startSimCLI("--world", simOfficeWorld, "--master", uri, "--render", file)
	simWaitFor(t, stdout, "btrobot sim: rendering to "+file+" at the end, on /sim/render and on SIGUSR1", 10*time.Second)
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	simWaitFor(t, stdout, "btrobot sim: rendered "+file, 10*time.Second)
	_, err := os.Stat(file)
	require.NoError(t, err)
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case c := <-code:
		require.Equal(t, exitOK, c, "exit %d\n%s\n%s", c, stdout, stderr)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "SIGINT did not end the run")
	}
	n := strings.Count(stdout.String(), "btrobot sim: rendered ")
	assert.Equal(t, 2, n, "rendered %d times, want on SIGUSR1 and at the end:\n%s", n, stdout)
}
