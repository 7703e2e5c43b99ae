package runtime

// builtins returns the built-in palette: BehaviorTree.CPP v4's nodes and
// what the older behavior-tree literature adds.
func builtins() []NodeType {
	var all []NodeType
	all = append(all, controlTypes()...)
	all = append(all, decoratorTypes()...)
	all = append(all, leafTypes()...)
	all = append(all, subTreeType())
	return all
}
