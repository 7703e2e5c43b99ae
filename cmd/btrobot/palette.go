package main

import "github.com/btrobot/btrobot/runtime"

// palette returns the registry every command loads trees against: the
// built-in nodes and everything btrobot ships on top of them.
func palette() *runtime.Registry {
	reg := runtime.NewRegistry()
	return reg
}
