package runtime

// leafTypes returns the built-in actions and conditions.
func leafTypes() []NodeType { return nil }
