package runtime

import (
	"fmt"

	"github.com/btrobot/btrobot/internal/english"
)

// UntilSuccess and UntilFailure run their child again, one run per tick,
// until it returns the awaited status.
//
//	<UntilSuccess max_attempts="5">
//	  <DetectDock/>     FAILURE → RUNNING (again next tick) … SUCCESS → SUCCESS
//	</UntilSuccess>
//
// Where they come from: the "UntilFail" decorator of Millington and
// Funge's Artificial Intelligence for Games (2nd ed., 2009, §5.4), which
// repeats its child until it fails and then succeeds, and the "Until
// Success" / "Until Failure" decorators of game engines' behavior trees
// (Opsive's Behavior Designer among them). Unlike BehaviorTree.CPP's
// RetryUntilSuccessful, they never loop inside one tick and never ask for
// an early tick: between two runs of the child the node is RUNNING and the
// next run waits for the next tick, so a robot's loop rate paces the
// attempts.
//
// Contract:
//   - the node becomes RUNNING, then ticks its child;
//   - the awaited status (SUCCESS for UntilSuccess, FAILURE for
//     UntilFailure) resets the child and returns SUCCESS;
//   - the other completed status counts one attempt and resets the child;
//     the node returns RUNNING, or FAILURE once max_attempts attempts were
//     made (-1, the default, never gives up). So UntilSuccess fails with
//     its child after the last attempt, and UntilFailure fails when its
//     child kept succeeding;
//   - RUNNING returns RUNNING; SKIPPED resets the child and returns SKIPPED
//     without counting an attempt;
//   - completing, and halting, restart the attempt count; halting halts
//     the child.
type Until struct {
	Base
	awaited  Status
	attempts int
}

func untilTypes() []NodeType {
	port := InputPort[int]("max_attempts", "Give up with FAILURE after this many runs of the child without the awaited status; -1 never gives up.").WithDefault("-1")
	mk := func(awaited Status) func(c *Config) (Node, error) {
		return func(c *Config) (Node, error) {
			if v, ok := LiteralAs[int](c, "max_attempts"); ok {
				if err := checkMaxAttempts(v); err != nil {
					return nil, err
				}
			}
			return &Until{awaited: awaited}, nil
		}
	}
	return []NodeType{
		{
			ID: "UntilSuccess", Kind: DecoratorKind,
			Summary: "Runs its child once per tick until it succeeds (RUNNING in between); optional attempt cap.",
			Ports:   []PortSpec{port},
			New:     mk(Success),
		},
		{
			ID: "UntilFailure", Kind: DecoratorKind,
			Summary: "Runs its child once per tick until it fails, then returns SUCCESS; optional attempt cap.",
			Ports:   []PortSpec{port},
			New:     mk(Failure),
		},
	}
}

func checkMaxAttempts(v int) error {
	if v == 0 || v < -1 {
		return fmt.Errorf("max_attempts is %d; want -1 (no limit) or a count >= 1", v)
	}
	return nil
}

// Tick runs the child once and decides whether to try again next tick.
func (n *Until) Tick() (Status, error) {
	limit, err := GetInput[int](n, "max_attempts")
	if err != nil {
		return Failure, err
	}
	if err := checkMaxAttempts(limit); err != nil {
		return Failure, err
	}
	n.setStatus(Running)
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	switch st {
	case Running:
		return Running, nil
	case Skipped:
		n.HaltChild(0)
		return Skipped, nil
	case n.awaited:
		n.attempts = 0
		n.HaltChild(0)
		return Success, nil
	case Success, Failure:
		n.HaltChild(0)
		n.attempts++
		if limit != -1 && n.attempts >= limit {
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("%d %s without %v", n.attempts, english.Plural(n.attempts, "attempt", "attempts"), n.awaited))
			}
			n.attempts = 0
			return Failure, nil
		}
		return Running, nil
	}
	return Failure, errChildIdle
}

// Halt restarts the attempt count and halts the child.
func (n *Until) Halt() {
	n.attempts = 0
	n.ResetChildren()
}
