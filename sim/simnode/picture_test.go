package simnode

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

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
		if err != nil || out.State != ros.GoalSucceeded {
			t.Fatalf("%s: %v %v", wp.Name, out.State, err)
		}
	}
	if out, err := dock.Run(ctxTimeout(t, 60*time.Second), dockGoal(""), ros.GoalConf{}); err != nil || out.State != ros.GoalSucceeded {
		t.Fatalf("dock: %v %v", out.State, err)
	}
	travelled := robotState(n, "robot1", (*sim.Robot).Travelled)
	if travelled < 50 {
		t.Errorf("the patrol covered %.1f m; the office's is about 57 m", travelled)
	}
	if _, err := n.Render(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f m in %v, %d collisions; %s (%d bytes)", travelled, n.Now(), robotState(n, "robot1", (*sim.Robot).Collisions), file, len(data))
}
