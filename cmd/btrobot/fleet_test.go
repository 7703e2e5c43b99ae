package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

// TestRunOnAFleet: btrobot run with several --robot-ns runs the mission on
// every robot at once, in one process, each on its own namespace's topics;
// every line is the robot's, and the exit code is 0 only when every robot
// succeeded.
func TestRunOnAFleet(t *testing.T) {
	uri := rostest.StartMaster(t)
	w, err := sim.LoadWorld(repoOfficeWorld, sim.WorldConf{Seed: 1})
	require.NoError(t, err)
	for _, name := range []string{"robot1", "robot2"} {
		sp, _ := w.Places().Spawn(name)
		_, err := w.AddRobot(sim.RobotConf{Name: name, Spawn: sp.Pose})
		require.NoError(t, err)
	}
	conn, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "sim"})
	require.NoError(t, err)
	defer conn.Close()
	node, err := simnode.Start(simnode.Conf{World: w, Conn: conn, Speed: 1})
	require.NoError(t, err)
	defer node.Close()
	// Each robot waits for its own odometry: robot3 has none.
	tree := writeFile(t, "odom.xml", `<root BTCPP_format="4" main_tree_to_execute="M">
  <BehaviorTree ID="M">
    <Sequence name="up">
      <Timeout msec="3000"><UntilSuccess><TopicFresh name="odom_fresh" key="odom" max_age="1s"/></UntilSuccess></Timeout>
      <Sleep msec="500"/> <!-- the simulator connects to the new cmd_vel publisher meanwhile: a stop
                               before that is reported as not delivered, truthfully -->
      <Script name="done" code="ok := true"/>
    </Sequence>
  </BehaviorTree>
</root>`)
	for _, tc := range []struct {
		name   string
		robots []string
		code   int
		want   []string
	}{
		{"every robot succeeds", []string{"robot1", "robot2"}, exitOK, []string{
			"robot1| btrobot run odom.xml · robot sim · /robot1/btrobot @ ",
			"robot2| btrobot run odom.xml · robot sim · /robot2/btrobot @ ",
			"robot1| mission succeeded after ", "zero velocity sent on /robot1/cmd_vel",
			"robot2| mission succeeded after ", "zero velocity sent on /robot2/cmd_vel",
		}},
		{"one robot fails", []string{"robot1", "/robot3"}, exitFailed, []string{
			"robot1| mission succeeded after ",
			"robot3| mission failed after ",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"run", "--tree", tree, "--robot", repoSimProfile, "--master", uri, "__ip:=127.0.0.1"}
			for _, r := range tc.robots {
				args = append(args, "--robot-ns", r)
			}
			code, stdout, stderr := runCLI(args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, w := range tc.want {
				assert.Contains(t, stdout, w)
			}
			for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
				assert.Regexp(t, `^robot\d\| `, line, "every line is a robot's")
			}
		})
	}
}
