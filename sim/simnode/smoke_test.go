package simnode

import (
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

func TestSmoke(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Speed: 20}})
	c := connect(t, uri, "client")
	odom, err := ros.Subscribe[nav_msgs.Odometry](c, "/robot1/odom", nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "odom", func() bool { m, _, _ := odom.Newest(); return m != nil })
	ac, err := ros.NewActionClient(ros.ActionClientConf{Conn: c, Name: "/robot1/move_base", Action: ros.MoveBaseAction{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxTimeout(t, 30*time.Second)
	if err := ac.WaitForServer(ctx, c.Clock(), 0); err != nil {
		t.Fatal(err)
	}
	goal := &ros.MoveBaseActionGoal{}
	goal.TargetPose.Header.FrameId = "map"
	goal.TargetPose.Pose.Position = geometry_msgs.Point{X: 2.5, Y: 3.5}
	goal.TargetPose.Pose.Orientation.W = 1
	fbs := 0
	out, err := ac.Run(ctx, goal, ros.GoalConf{OnFeedback: func(any) { fbs++ }})
	t.Logf("outcome %v %v, feedbacks %d, sim time %v, stats %+v", out.State, err, fbs, n.Now(), n.Stats())
	_ = std_msgs.Bool{}
	log.wait(t, "move_base goal succeeded", time.Second)
}
