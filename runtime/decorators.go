package runtime

// decoratorTypes returns the built-in decorators.
func decoratorTypes() []NodeType { return nil }
