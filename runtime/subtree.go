package runtime

// SubTree runs another <BehaviorTree> in a blackboard scope of its own.
//
//	<SubTree ID="Dock" target="{dock_pose}" _autoremap="false"/>
//
// Contract (as BehaviorTree.CPP): returns its subtree's status; becomes
// RUNNING before ticking the subtree; resets the subtree when it completes;
// halting halts the subtree.
//
// Ports of the subtree are remapped, not declared: an attribute
// port="{key}" makes the subtree's key name the caller's key, port="{=}"
// the caller's key of the same name, and port="literal" sets the subtree's
// own entry (an int or a double when the text reads as one, else a
// string). With _autoremap="true" every other key (except those starting
// with '_') resolves in the caller's scope too.
type SubTree struct {
	Base
	id string
}

// TreeID returns the ID of the tree this node runs.
func (n *SubTree) TreeID() string { return n.id }

func subTreeType() NodeType {
	return NodeType{
		ID:       "SubTree",
		Kind:     SubTreeKind,
		Category: "subtree",
		Summary:  "Runs another tree in its own blackboard scope, with port remapping.",
		New: func(c *Config) (Node, error) {
			id, _ := c.Attr("ID")
			return &SubTree{id: id}, nil
		},
	}
}

// Tick ticks the subtree's root.
func (n *SubTree) Tick() (Status, error) {
	if n.status == Idle {
		n.setStatus(Running)
	}
	child := n.children[0]
	st, err := execute(child, child.base())
	if err != nil {
		return st, err
	}
	if st.Completed() {
		n.HaltChild(0)
	}
	return st, nil
}
