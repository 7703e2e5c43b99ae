package record

import (
	"time"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/runtime"
)

// Header is what a recording says about its run before its first event.
type Header struct {
	// RunID identifies the run across files, logs and reports.
	RunID uuid.UUID
	// Version is btrobot's version; Seed the seed of the tree's random
	// nodes. Both are empty in a recording made by BT.CPP.
	Version string
	Seed    uint64
	// Start is the time of the recording's first instant, on the tree's
	// clock; every event's time is at or after it.
	Start time.Time
	// TreeXML is the tree as BT.CPP writes it for its loggers and Groot2
	// (see TreeXML): every tree instance, every node with its _uid, and the
	// palette's node models.
	TreeXML string
	// Profile is the robot profile the run used, as given (empty without a
	// robot).
	Profile []byte
	// Nodes are the tree's nodes; Nodes[i] has UID i+1.
	Nodes []NodeInfo
}

// NodeInfo names one node of a recorded tree.
type NodeInfo struct {
	UID  uint32
	Path string // as runtime.Base.Path
	Type string // the registered type, such as "Sequence"
	Name string
}

// Transition is one recorded status change.
type Transition struct {
	At     time.Time
	UID    uint32
	From   runtime.Status
	To     runtime.Status
	Reason string // the node's reason for a completed status, if it gave one
}

// Change is one recorded write (or removal) of a blackboard entry.
type Change struct {
	// At is when the write happened, on the tree's clock; Stamp is the
	// entry's own timestamp (a ROS input's receive time).
	At    time.Time
	Stamp time.Time
	// Scope names the blackboard: the main tree's ID for the root, the
	// SubTree node's path for a subtree's own scope.
	Scope string
	Key   string
	Type  string // Go type name, as runtime.TypeName
	// Value is the value as JSON (a string for values JSON cannot hold);
	// nil for a removal.
	Value []byte
	Seq   uint64 // the entry's sequence number after the write; 0 for a removal
	// Writer is the path of the node that was ticking when the value was
	// written, empty for a write from outside the tick (the scan cycle's
	// latched inputs, a ROS callback).
	Writer string
}

// Removed reports whether the change removed the entry.
func (c *Change) Removed() bool { return c.Value == nil }

// Tick is one recorded tick of the loop.
type Tick struct {
	Seq      uint64
	Start    time.Time
	Lateness time.Duration
	Duration time.Duration
	Early    bool
	Status   runtime.Status
}

// nodeInfos lists the tree's nodes.
func nodeInfos(tree *runtime.Tree) []NodeInfo {
	nodes := tree.Nodes()
	out := make([]NodeInfo, len(nodes))
	for i, n := range nodes {
		b := runtime.NodeOf(n)
		out[i] = NodeInfo{UID: b.UID(), Path: b.Path(), Type: b.Type(), Name: b.Name()}
	}
	return out
}

// ScopeNames names every blackboard scope of tree as Groot2 does: the main
// tree's ID for the root, the SubTree node's path for a subtree's own
// scope. Recordings use these names too (Change.Scope).
func ScopeNames(tree *runtime.Tree) map[*runtime.Blackboard]string {
	names := map[*runtime.Blackboard]string{}
	if tree.Root() == nil {
		return names
	}
	root := runtime.NodeOf(tree.Root())
	names[tree.Blackboard()] = mainTreeID(root.Path())
	for _, n := range tree.Nodes() {
		if st, ok := n.(*runtime.SubTree); ok && len(st.Children()) == 1 {
			names[runtime.NodeOf(st.Children()[0]).Blackboard()] = st.Path()
		}
	}
	return names
}

func mainTreeID(rootPath string) string {
	for i := 0; i < len(rootPath); i++ {
		if rootPath[i] == '/' {
			return rootPath[:i]
		}
	}
	return rootPath
}
