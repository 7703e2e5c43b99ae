package runtime

// Node names that users bring from BehaviorTree.CPP v3, from the older
// behavior-tree literature and from other engines (py_trees, Unreal,
// game-AI books). None of them is a node type here; the builder answers
// each with what to write instead and why, rather than with the nearest
// names by spelling ("Selector" is not a misspelt "Sequence").

// foreignNames maps a foreign node name to what to write instead, with a
// short reason, whatever its children.
var foreignNames = map[string]string{
	// BehaviorTree.CPP v3.
	"SequenceStar":          "BT.CPP v4 renamed it SequenceWithMemory",
	"SubTreePlus":           "BT.CPP v4 merged it into SubTree",
	"RetryUntilSuccesful":   "BT.CPP v4 spells it RetryUntilSuccessful",
	"BlackboardCheckInt":    "BT.CPP v4 dropped it: use a ScriptCondition or _skipIf/_failureIf",
	"BlackboardCheckDouble": "BT.CPP v4 dropped it: use a ScriptCondition or _skipIf/_failureIf",
	"BlackboardCheckString": "BT.CPP v4 dropped it: use a ScriptCondition or _skipIf/_failureIf",
	"FallbackStar":          "BT.CPP v4 has no FallbackStar: use Fallback",

	// Composites of the literature and other engines.
	"Selector":         "write Fallback: Selector is the older literature's name for BT.CPP's Fallback (ReactiveFallback re-checks earlier children every tick)",
	"Priority":         "write Fallback: a priority selector is BT.CPP's Fallback (ReactiveFallback re-checks earlier children every tick)",
	"PrioritySelector": "write Fallback: a priority selector is BT.CPP's Fallback (ReactiveFallback re-checks earlier children every tick)",
	"ActiveSelector":   "write ReactiveFallback: an active selector re-checks earlier children every tick, as BT.CPP's ReactiveFallback does",
	"MemSequence":      "write SequenceWithMemory: MemSequence is BT.CPP's SequenceWithMemory",
	"MemSelector":      "write Fallback: BT.CPP's Fallback is the one that remembers (it resumes at the RUNNING child and does not re-tick the children that failed); ReactiveFallback is the one that does not",
	"SimpleParallel":   "write Parallel (success_count, failure_count) or ParallelAll",

	// Decorators of the literature and other engines.
	"Repeater":            "write Repeat (num_cycles=\"-1\" repeats for ever): Repeater is the literature's name for BT.CPP's Repeat",
	"Loop":                "write Repeat (num_cycles=\"-1\" repeats for ever); BT.CPP's LoopInt, LoopDouble and LoopString walk a queue",
	"Retry":               "write RetryUntilSuccessful (num_attempts): BT.CPP's name for a retrying decorator",
	"UntilFail":           "write UntilFailure: the literature's UntilFail (runs its child again until it fails, then succeeds)",
	"UntilSuccessful":     "write UntilSuccess, or RetryUntilSuccessful to retry within one tick as BT.CPP does",
	"Invert":              "write Inverter",
	"Not":                 "write Inverter",
	"OneShot":             "write RunOnce: py_trees' OneShot is BT.CPP's RunOnce",
	"TimeLimit":           "write Timeout (msec): Unreal's TimeLimit is BT.CPP's Timeout",
	"FailureIsSuccess":    "write ForceSuccess: py_trees' FailureIsSuccess is BT.CPP's ForceSuccess",
	"SuccessIsFailure":    "write ForceFailure: py_trees' SuccessIsFailure is BT.CPP's ForceFailure",
	"Wait":                "write Sleep (msec): BT.CPP's name for waiting; Delay (delay_msec) waits before ticking its child",
	"WaitForSeconds":      "write Sleep (msec): BT.CPP's name for waiting",
	"Condition":           "write ScriptCondition (code) for a test on the blackboard, or register a condition node",
	"BlackboardCondition": "write ScriptCondition (code), or the _skipIf/_failureIf/_successIf attributes on the guarded node",
}

// foreignDecoratorsAndLeaves name a node that is a decorator with a child
// and a leaf without one.
var foreignDecoratorsAndLeaves = map[string]struct{ decorator, leaf string }{
	"Succeeder": {
		decorator: "write ForceSuccess: the literature's Succeeder is BT.CPP's ForceSuccess",
		leaf:      "write AlwaysSuccess: a Succeeder without a child is BT.CPP's AlwaysSuccess",
	},
	"Failer": {
		decorator: "write ForceFailure: the literature's Failer is BT.CPP's ForceFailure",
		leaf:      "write AlwaysFailure: a Failer without a child is BT.CPP's AlwaysFailure",
	},
}

// foreignName says what to write instead of the unknown node type typ with
// the given number of children, and why; ok is false for a name that is
// not known from elsewhere.
func foreignName(typ string, children int) (hint string, ok bool) {
	if h, ok := foreignNames[typ]; ok {
		return h, true
	}
	if h, ok := foreignDecoratorsAndLeaves[typ]; ok {
		if children > 0 {
			return h.decorator, true
		}
		return h.leaf, true
	}
	return "", false
}

// leafAsDecorator is the hint for a leaf given children the way another
// engine's node of the same name takes them, or "".
func leafAsDecorator(typ string) string {
	switch typ {
	case "AlwaysSuccess":
		return " (to make a child's result SUCCESS, wrap it in ForceSuccess; AlwaysSuccess is a leaf in BT.CPP)"
	case "AlwaysFailure":
		return " (to make a child's result FAILURE, wrap it in ForceFailure; AlwaysFailure is a leaf in BT.CPP)"
	}
	return ""
}
