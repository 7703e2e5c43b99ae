package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestRoslaunchStartsTheSimulatorAndAMission runs the shipped launch file
// (launch/sim_patrol.launch) with Debian's roslaunch: roslaunch finds the
// btrobot package on ROS_PACKAGE_PATH, starts btrobot sim and btrobot run
// in /robot1, and btrobot run takes its tree, profile and places from its
// private parameters. The mission (a short errand given as the launch
// file's mission argument) succeeds, and since the node is required,
// roslaunch ends with it.
func TestRoslaunchStartsTheSimulatorAndAMission(t *testing.T) {
	rostest.Require(t, "roslaunch")
	bin := buildBinary(t)
	binDir := t.TempDir()
	require.NoError(t, os.Symlink(bin, filepath.Join(binDir, "btrobot")))
	pkg, err := filepath.Abs("../../launch")
	require.NoError(t, err)
	// NavigateTo names a place: the tree loads only with ~places read.
	errand := writeFile(t, "errand.xml", `<root BTCPP_format="4" main_tree_to_execute="Errand">
  <BehaviorTree ID="Errand">
    <Sequence name="errand">
      <Timeout msec="10000"><UntilSuccess><TopicFresh key="odom" max_age="1s"/></UntilSuccess></Timeout>
      <NavigateTo name="to_reception" goal="reception"/>
    </Sequence>
  </BehaviorTree>
</root>`)
	uri := rostest.StartMaster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "roslaunch", "btrobot", "sim_patrol.launch", "speed:=4", "mission:="+errand)
	cmd.Env = append(rostest.Env(t, uri),
		"ROS_PACKAGE_PATH="+pkg,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	text := out.String()
	require.NoError(t, ctx.Err(), "roslaunch did not end with the mission:\n%s", text)
	for _, want := range []string{
		"btrobot run errand.xml · robot sim · /robot1/btrobot @ " + uri, // ~tree and ~robot read
		"RUNNING Errand/errand/to_reception  goal=reception",            // ~places read
		"mission succeeded after ",
		"zero velocity sent on /robot1/cmd_vel",
		"btrobot sim: 1 robot(s)",
	} {
		assert.Contains(t, text, want)
	}
	// btrobot exited 0, and roslaunch ended because it was required.
	assert.Contains(t, text, "REQUIRED process [robot1/btrobot-2] has died!\nprocess has finished cleanly")
	if t.Failed() {
		t.Logf("roslaunch (%v):\n%s", err, text)
	}
}

// TestRoslaunchStartsTheMissionServer runs launch/serve.launch with
// Debian's roslaunch: btrobot serve takes its missions, profile, places,
// preempt and watch from its private parameters; a flag written in the
// node's args wins over its parameter; a bad parameter is refused naming
// it (and roslaunch ends, the node being required); with ~watch a file
// written into the directory is reloaded; SIGINT stops the server.
func TestRoslaunchStartsTheMissionServer(t *testing.T) {
	rostest.Require(t, "roslaunch")
	bin := buildBinary(t)
	binDir := t.TempDir()
	require.NoError(t, os.Symlink(bin, filepath.Join(binDir, "btrobot")))
	pkg, err := filepath.Abs("../../launch")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		args   []string
		want   []string // in the output while it serves (nothing more is done when it is not expected to serve)
		serves bool
		watch  bool
	}{
		{name: "from its parameters", args: []string{"preempt:=queue", "watch:=true"}, serves: true, watch: true,
			want: []string{" (watched) (Wait), preempt queue, on "}},
		{name: "a flag wins over its parameter", args: []string{"preempt:=queue", "flags:=--preempt reject"}, serves: true,
			want: []string{"missions of ", " (Wait), preempt reject, on "}},
		{name: "a bad parameter", args: []string{"preempt:=later"},
			want: []string{`private parameter /robot1/btrobot/preempt: want replace, update, queue or reject: unknown preempt "later"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "wait.xml"),
				[]byte(`<root BTCPP_format="4"><BehaviorTree ID="Wait"><Sleep msec="60000"/></BehaviorTree></root>`), 0o644))
			uri := rostest.StartMaster(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "roslaunch", append([]string{"btrobot", "serve.launch", "sim:=false", "missions:=" + dir}, tc.args...)...)
			cmd.Env = append(rostest.Env(t, uri),
				"ROS_PACKAGE_PATH="+pkg,
				"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			cmd.WaitDelay = 5 * time.Second
			var out lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			ended := make(chan error, 1)
			go func() { ended <- cmd.Wait() }()
			defer func() {
				if t.Failed() {
					t.Logf("roslaunch:\n%s", out.String())
				}
			}()
			for _, w := range tc.want {
				require.Eventually(t, func() bool { return strings.Contains(out.String(), w) }, time.Minute, 50*time.Millisecond, "roslaunch prints %q", w)
			}
			if !tc.serves {
				select {
				case <-ended:
				case <-ctx.Done():
				}
				require.NoError(t, ctx.Err(), "roslaunch ends with its required node")
				assert.Contains(t, out.String(), "REQUIRED process [robot1/btrobot-1] has died!")
				return
			}
			if tc.watch {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "more.xml"),
					[]byte(`<root BTCPP_format="4"><BehaviorTree ID="More"><AlwaysSuccess/></BehaviorTree></root>`), 0o644))
				require.Eventually(t, func() bool { return strings.Contains(out.String(), "reloaded 2 missions from "+dir) },
					time.Minute, 50*time.Millisecond, "the watch reloads")
			}
			require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
			select {
			case <-ended:
			case <-ctx.Done():
			}
			require.NoError(t, ctx.Err(), "roslaunch ends on SIGINT")
			assert.Contains(t, out.String(), "btrobot serve: stopped")
		})
	}
}
