package ros

import (
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

// The mission server's messages (package executor), as msgs/btrobot_msgs
// declares them; the comments are the .msg, .srv and .action texts.

// MissionPort is btrobot_msgs/MissionPort, an entry of a mission's root
// blackboard that a goal's payload may set:
//
//	string name
//	string type             # string, int, float64, bool, ...; "any" when untyped
//	string default          # as written in the model; "" when none
//	bool has_default
//	string description
type MissionPort struct {
	msg.Package `ros:"btrobot_msgs"`
	Name        string
	Type        string
	Default     string
	HasDefault  bool
	Description string
}

// Mission is btrobot_msgs/Mission, a mission the server can run:
//
//	string id                          # the tree ID a goal names
//	string file                        # relative to the missions directory
//	btrobot_msgs/MissionPort[] ports   # what a goal's payload may set
type Mission struct {
	msg.Package `ros:"btrobot_msgs"`
	Id          string //nolint:revive // ROS's field name id
	File        string
	Ports       []MissionPort
}

// ListMissionsReq is the empty request of btrobot_msgs/ListMissions.
type ListMissionsReq struct {
	msg.Package `ros:"btrobot_msgs"`
}

// ListMissionsRes is its response: every mission, sorted by ID.
type ListMissionsRes struct {
	msg.Package `ros:"btrobot_msgs"`
	Missions    []Mission
}

// ListMissions is the btrobot_msgs/ListMissions service.
type ListMissions struct {
	msg.Package `ros:"btrobot_msgs"`
	ListMissionsReq
	ListMissionsRes
}

// ReloadMissionsReq is the empty request of btrobot_msgs/ReloadMissions.
type ReloadMissionsReq struct {
	msg.Package `ros:"btrobot_msgs"`
}

// ReloadMissionsRes is its response:
//
//	bool success
//	string[] errors      # every problem found, one a line
//	string[] missions    # the IDs the server runs from now on
type ReloadMissionsRes struct {
	msg.Package `ros:"btrobot_msgs"`
	Success     bool
	Errors      []string
	Missions    []string
}

// ReloadMissions is the btrobot_msgs/ReloadMissions service.
type ReloadMissions struct {
	msg.Package `ros:"btrobot_msgs"`
	ReloadMissionsReq
	ReloadMissionsRes
}

// ExecuteMissionActionGoal is the goal of btrobot_msgs/ExecuteMission
// (ROS's ExecuteMissionGoal; goroslib builds the wrapper, as for
// move_base_msgs):
//
//	string mission     # a tree ID of the directory, or a file in it
//	string payload     # a YAML map written into the blackboard before the first tick
//	string preempt     # replace, update, queue or reject; "": the server's default
type ExecuteMissionActionGoal struct {
	msg.Package `ros:"btrobot_msgs"`
	Mission     string
	Payload     string
	Preempt     string
}

// ExecuteMissionActionResult is its result:
//
//	string outcome          # SUCCESS, FAILURE, PREEMPTED or ABORTED
//	string[] explanation    # the chain of causes
//	string error_code       # the lowest non-empty *_error_code entry (Nav2's rule)
//	string recording        # the file the run was recorded to
type ExecuteMissionActionResult struct {
	msg.Package `ros:"btrobot_msgs"`
	Outcome     string
	Explanation []string
	ErrorCode   string
	Recording   string
}

// ExecuteMissionActionFeedback is its feedback:
//
//	string mission
//	uint64 tick             # the tick's number in the run
//	string[] running        # the paths of the running leaves
//	string[] reasons        # what each running leaf says, in the same order
type ExecuteMissionActionFeedback struct {
	msg.Package `ros:"btrobot_msgs"`
	Mission     string
	Tick        uint64
	Running     []string
	Reasons     []string
}

// ExecuteMissionAction is the btrobot_msgs/ExecuteMission action.
type ExecuteMissionAction struct {
	msg.Package `ros:"btrobot_msgs"`
	ExecuteMissionActionGoal
	ExecuteMissionActionResult
	ExecuteMissionActionFeedback
}
