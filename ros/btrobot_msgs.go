package ros

import (
	"reflect"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
)

// The btrobot_msgs package: btrobot's own message types, written with
// goroslib's message conventions so that their definitions and MD5 sums
// are those ROS computes from the text (a test has Debian's genpy
// generate the type from the definition a bag stored, and compares the
// sums). A subscriber needs no btrobot_msgs package installed: rosbag
// keeps each type's definition in the bag, and rospy's AnyMsg and
// rosbag's Python reader rebuild the type from it.

// Transitions is btrobot_msgs/Transitions: the status transitions of a
// running tree during one tick (a few when the publisher fell behind; the
// halt that ends the run),
// as RunConf.Transitions publishes them. Its text is:
//
//	std_msgs/Header header                  # seq: the message's number, from 1; stamp: its first transition's
//	string run_id                           # the run's UUID, as in its recording and report
//	btrobot_msgs/Transition[] transitions   # in the order they happened
type Transitions struct {
	msg.Package `ros:"btrobot_msgs"`
	Header      std_msgs.Header
	RunId       string //nolint:revive // ROS's field name run_id
	Transitions []Transition
}

// Transition is btrobot_msgs/Transition, one status transition:
//
//	uint8 IDLE=0
//	uint8 RUNNING=1
//	uint8 SUCCESS=2
//	uint8 FAILURE=3
//	uint8 SKIPPED=4
//	uint32 seq              # the transition's number in the run, from 1: a gap is a lost transition
//	time stamp              # when it happened, on the tree's clock
//	uint16 uid              # the node's UID, as in Groot2 and the recording
//	string path             # the node's path in the tree
//	string type             # the node's type (its XML tag or registered ID)
//	uint8 previous_status
//	uint8 status
//	string reason           # what the node said about it; "" when nothing
//
// The statuses are numbered as in BehaviorTree.CPP (and runtime.Status).
type Transition struct {
	msg.Package     `ros:"btrobot_msgs"`
	msg.Definitions `ros:"uint8 IDLE=0,uint8 RUNNING=1,uint8 SUCCESS=2,uint8 FAILURE=3,uint8 SKIPPED=4"`
	Seq             uint32
	Stamp           time.Time
	Uid             uint16 //nolint:revive // ROS's field name uid
	Path            string
	Type            string
	PreviousStatus  uint8
	Status          uint8
	Reason          string
}

var typeOfTransitions = reflect.TypeFor[Transitions]()
