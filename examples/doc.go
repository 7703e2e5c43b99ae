// Package examples holds runnable examples of btrobot's Go API, one
// concept a file, the first code a newcomer reads. Each is an Example
// function: go test runs it and checks what it prints, and godoc shows it.
//
//   - customnode_test.go: a condition and an action written in Go, with
//     ports, registered and used from XML (runtime.ConditionFunc,
//     runtime.ActionFunc);
//   - asyncskill_test.go: a robot skill that takes time, an async action
//     whose context is cancelled when the tree halts it;
//   - manualclock_test.go: a tree from XML ticked on a manual clock, so
//     that its delays and timeouts run deterministically;
//   - observer_test.go: a logger of status transitions
//     (runtime.Observer), the way displays and recorders watch a tree;
//   - embedrun_test.go: a mission with your own node types, run with
//     mission.Run on btrobot's simulator in your own program;
//   - studio_test.go: the browser studio attached to your own run.
//
// Run them with
//
//	go test ./examples/ -v -run Example
package examples
