package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
