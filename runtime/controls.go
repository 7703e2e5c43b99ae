package runtime

// controlTypes returns the built-in control nodes.
func controlTypes() []NodeType {
	var all []NodeType
	all = append(all, sequenceTypes()...)
	return all
}
