package runtime

// leafTypes returns the built-in actions and conditions.
func leafTypes() []NodeType {
	var all []NodeType
	all = append(all, alwaysTypes()...)
	all = append(all, scriptTypes()...)
	all = append(all, setBlackboardTypes()...)
	all = append(all, unsetBlackboardTypes()...)
	all = append(all, sleepTypes()...)
	all = append(all, wasEntryUpdatedTypes()...)
	return all
}
