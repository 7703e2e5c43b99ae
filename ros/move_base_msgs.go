package ros

import (
	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
)

// The move_base_msgs package, which goroslib does not ship, written with
// goroslib's message conventions so that its checksums are ROS's (a test
// compares them with Debian's python3-move-base-msgs). As in goroslib's own
// action packages, MoveBaseActionGoal is the goal itself (ROS's
// MoveBaseGoal), not ROS's MoveBaseActionGoal wrapper with a header and a
// goal ID, which goroslib builds on the fly; the registry knows them by their
// ROS names: move_base_msgs/MoveBaseGoal, MoveBaseResult, MoveBaseFeedback
// and MoveBaseAction.

// MoveBaseActionGoal is the goal of move_base: the pose to reach.
type MoveBaseActionGoal struct {
	msg.Package `ros:"move_base_msgs"`
	TargetPose  geometry_msgs.PoseStamped
}

// MoveBaseActionResult is the result of move_base, which is empty.
type MoveBaseActionResult struct {
	msg.Package `ros:"move_base_msgs"`
}

// MoveBaseActionFeedback is move_base's feedback: where the robot is.
type MoveBaseActionFeedback struct {
	msg.Package  `ros:"move_base_msgs"`
	BasePosition geometry_msgs.PoseStamped
}

// MoveBaseAction is the move_base action, for action clients and servers.
type MoveBaseAction struct {
	msg.Package `ros:"move_base_msgs"`
	MoveBaseActionGoal
	MoveBaseActionResult
	MoveBaseActionFeedback
}

// RecoveryStatus is move_base_msgs/RecoveryStatus: move_base publishes it
// when it runs a recovery behavior.
type RecoveryStatus struct {
	msg.Package             `ros:"move_base_msgs"`
	PoseStamped             geometry_msgs.PoseStamped
	CurrentRecoveryNumber   uint16
	TotalNumberOfRecoveries uint16
	RecoveryBehaviorName    string
}
