package simnode

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// TestPatrolPicture: robot1 patrols the office's waypoints through
// move_base and docks at the nearest dock, all over ROS, and the run is
// rendered. With BTROBOT_DOCS_IMG set to a file name, the picture goes
// there: that is how docs/img/office-patrol.png is made,
//
//	BTROBOT_DOCS_IMG=$PWD/docs/img/office-patrol.png go test -run TestPatrolPicture ./sim/simnode
func TestPatrolPicture(t *testing.T) {
	file := os.Getenv("BTROBOT_DOCS_IMG")
	if file == "" {
		file = filepath.Join(t.TempDir(), "patrol.png")
	}
	uri := rostest.StartMaster(t)
	n, _ := startSim(t, uri, simSetup{seed: 1, conf: Conf{Render: []string{file}}})
	c := connect(t, uri, "patrol")
	moveBase := actionClient(t, c, "/robot1/move_base")
	dock := actionClient(t, c, "/robot1/dock")
	for _, wp := range n.World().Places().Waypoints {
		out, err := moveBase.Run(ctxTimeout(t, 60*time.Second), moveBaseGoal("map", wp.Pose.X, wp.Pose.Y, wp.Pose.Yaw), ros.GoalConf{})
		require.NoError(t, err, "%s: %v", wp.Name, out.State)
		require.Equal(t, ros.GoalSucceeded, out.State, "%s: %v %v", wp.Name, out.State, err)
	}
	docked, err := dock.Run(ctxTimeout(t, 60*time.Second), dockGoal(""), ros.GoalConf{})
	require.NoError(t, err, "dock: %v", docked.State)
	require.Equal(t, ros.GoalSucceeded, docked.State, "dock: %v %v", docked.State, err)
	travelled := robotState(n, "robot1", (*sim.Robot).Travelled)
	assert.GreaterOrEqual(t, travelled, 50.0, "the patrol covered %.1f m; the office's is about 57 m", travelled)
	_, err = n.Render()
	require.NoError(t, err)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	t.Logf("%.1f m in %v, %d collisions; %s (%d bytes)", travelled, n.Now(), robotState(n, "robot1", (*sim.Robot).Collisions), file, len(data))
}
