package runtime

// controlTypes returns the built-in control nodes: BehaviorTree.CPP v4's,
// then those the older behavior-tree literature adds.
func controlTypes() []NodeType {
	var all []NodeType
	all = append(all, sequenceTypes()...)
	all = append(all, sequenceWithMemoryTypes()...)
	all = append(all, reactiveSequenceTypes()...)
	all = append(all, fallbackTypes()...)
	all = append(all, reactiveFallbackTypes()...)
	all = append(all, parallelTypes()...)
	all = append(all, parallelAllTypes()...)
	all = append(all, ifThenElseTypes()...)
	all = append(all, whileDoElseTypes()...)
	all = append(all, switchTypes()...)
	all = append(all, tryCatchTypes()...)
	all = append(all, randomTypes()...)
	all = append(all, weightedSelectorTypes()...)
	return all
}
