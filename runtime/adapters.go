package runtime

import (
	"errors"
	"fmt"
)

// Leaf is the node the Go adapters build: a condition or an action whose
// logic is a plain function (ConditionFunc, ActionFunc), a StatefulAction
// or an AsyncAction. The logic receives its Leaf to read its ports
// (GetInput), write its outputs (SetOutput), and reach the blackboard, the
// clock and the tree through the Base methods.
//
//	reg.RegisterCondition("BatteryAbove",
//		[]runtime.PortSpec{runtime.InputPort[float64]("min", "fraction of a full charge")},
//		func(n *runtime.Leaf) (bool, error) {
//			min, err := runtime.GetInput[float64](n, "min")
//			if err != nil {
//				return false, err
//			}
//			level, err := runtime.GetInput[float64](n, "level")
//			if err == nil && level < min && n.Explaining() {
//				n.SetReason(fmt.Sprintf("level %.2f < %.2f", level, min))
//			}
//			return level >= min, err
//		})
//
// The logic states why it returns what it returns with n.SetReason (on the
// tick's goroutine: a ConditionFunc, an ActionFunc, a StatefulAction's
// methods, an AsyncStart), or by returning Fail(reason) in place of an
// error (anywhere, an AsyncWork included): the leaf then returns FAILURE
// with that reason, and the tree goes on.
type Leaf struct {
	Base
	logic leafLogic
}

// leafLogic is what a Leaf runs: one per adapter kind.
type leafLogic interface {
	tick(n *Leaf) (Status, error)
	halt(n *Leaf)
}

// Tick runs the leaf's logic.
func (n *Leaf) Tick() (Status, error) { return n.logic.tick(n) }

// Halt stops the leaf's work: a StatefulAction's OnHalted runs, an async
// action's context is cancelled. Function leaves have nothing to stop.
func (n *Leaf) Halt() { n.logic.halt(n) }

// ConditionFunc adapts a function into a condition leaf, the way
// http.HandlerFunc adapts a function into a handler: true is SUCCESS, false
// is FAILURE, and an error makes the tick return it (and halts the tree).
// The function runs on the tick's goroutine, once per tick, and must not
// block.
type ConditionFunc func(n *Leaf) (bool, error)

func (f ConditionFunc) tick(n *Leaf) (Status, error) {
	ok, err := f(n)
	switch {
	case err != nil:
		return failed(n, err)
	case ok:
		return Success, nil
	default:
		return Failure, nil
	}
}

func (ConditionFunc) halt(*Leaf) {}

// ActionFunc adapts a function into a synchronous action leaf, as
// BehaviorTree.CPP's SimpleActionNode: the function does its whole work in
// one tick and returns SUCCESS, FAILURE or SKIPPED. It runs on the tick's
// goroutine and must not block. Returning RUNNING is an error (use
// StatefulAction or AsyncAction for work that spans ticks), as BT.CPP's
// SyncActionNode rejects it; an error makes the tick return it.
//
// As in BT.CPP, the leaf is RUNNING while the function runs, so observers
// see IDLE → RUNNING → the result (back to IDLE after SKIPPED).
type ActionFunc func(n *Leaf) (Status, error)

var errSyncRunning = errors.New("a synchronous action (ActionFunc) returned RUNNING; work that spans ticks needs a StatefulAction or an AsyncAction")

func (f ActionFunc) tick(n *Leaf) (Status, error) {
	if n.status == Idle {
		n.setStatus(Running)
	}
	st, err := f(n)
	if err != nil {
		return failed(n, err)
	}
	switch st {
	case Running:
		return Failure, errSyncRunning
	case Skipped:
		n.setStatus(Idle) // a skipped node stays IDLE
	}
	return st, nil
}

func (ActionFunc) halt(*Leaf) {}

// NewCondition returns a condition leaf that calls f on every tick, for a
// NodeType.New that builds its nodes itself.
func NewCondition(f ConditionFunc) *Leaf { return &Leaf{logic: f} }

// NewAction returns a synchronous action leaf that calls f on every tick.
func NewAction(f ActionFunc) *Leaf { return &Leaf{logic: f} }

// ConditionType returns the declaration of a condition node type whose
// every instance calls f.
func ConditionType(id string, ports []PortSpec, f ConditionFunc) NodeType {
	return NodeType{
		ID: id, Kind: ConditionKind, Ports: ports,
		New: func(*Config) (Node, error) {
			if f == nil {
				return nil, fmt.Errorf("condition %s has no function", id)
			}
			return NewCondition(f), nil
		},
	}
}

// ActionType returns the declaration of a synchronous action node type
// whose every instance calls f.
func ActionType(id string, ports []PortSpec, f ActionFunc) NodeType {
	return NodeType{
		ID: id, Kind: ActionKind, Ports: ports,
		New: func(*Config) (Node, error) {
			if f == nil {
				return nil, fmt.Errorf("action %s has no function", id)
			}
			return NewAction(f), nil
		},
	}
}

// FailureReason is what Fail returns: not an error but a leaf's FAILURE
// with the reason for it. Go-written leaves return it where they would
// return an error, from any goroutine; the adapters turn it into FAILURE
// and the leaf's reason (Base.SetReason).
type FailureReason struct{ Reason string }

func (f *FailureReason) Error() string { return f.Reason }

// Fail returns a FailureReason: the leaf whose logic returns it fails, with
// reason, and the tree goes on (an error would halt it).
//
//	return func(ctx context.Context) (runtime.Status, error) {
//		if err := dock.Approach(ctx); err != nil {
//			return runtime.Failure, runtime.Fail("dock not found: " + err.Error())
//		}
//		return runtime.Success, nil
//	}, nil
//
// It allocates: a condition that fails on many ticks states its reason
// with SetReason when Explaining instead.
func Fail(reason string) error { return &FailureReason{Reason: reason} }

// Failf is Fail with a formatted reason.
func Failf(format string, args ...any) error {
	return &FailureReason{Reason: fmt.Sprintf(format, args...)}
}

// failed is a leaf's answer to an error from its logic: FAILURE and the
// reason for a FailureReason, else FAILURE and the error.
func failed(n *Leaf, err error) (Status, error) {
	var fr *FailureReason
	if errors.As(err, &fr) {
		n.SetReason(fr.Reason)
		return Failure, nil
	}
	return Failure, err
}
