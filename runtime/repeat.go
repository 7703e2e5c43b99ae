package runtime

import (
	"fmt"

	"github.com/btrobot/btrobot/internal/english"
)

// Repeat ticks its child again each time it succeeds, num_cycles times in
// all, and fails as soon as the child fails.
//
//	<Repeat num_cycles="3">
//	  <Beep/>          SUCCESS, SUCCESS, SUCCESS → Repeat SUCCESS
//	</Repeat>
//
// Contract (BehaviorTree.CPP v4 Repeat):
//   - num_cycles is read on every tick; -1 repeats forever, 0 succeeds at
//     once without ticking the child;
//   - a child SUCCESS counts one cycle and resets the child. When the child
//     had been started in this very tick (it was IDLE) and cycles remain,
//     Repeat returns RUNNING and wakes the tree, so each synchronous cycle
//     takes one tick (TickOnce runs them back to back, and the loop may halt
//     the tree between any two). When the child had been RUNNING, the next
//     cycle starts in the same tick;
//   - after the last cycle Repeat returns SUCCESS and its count restarts;
//   - a child FAILURE resets the count and the child and returns FAILURE;
//   - RUNNING returns RUNNING; SKIPPED resets the child and returns SKIPPED
//     without resetting the count;
//   - halting resets the count and halts the child.
//
// A num_cycles below -1 is rejected (BT.CPP succeeds at once).
type Repeat struct{ loopOn }

func repeatTypes() []NodeType {
	return []NodeType{{
		ID: "Repeat", Kind: DecoratorKind,
		Summary: "Ticks its child again each time it succeeds, num_cycles times; fails when the child fails.",
		Ports: []PortSpec{
			InputPort[int]("num_cycles", "Repeat a successful child up to N times. Use -1 to create an infinite loop."),
		},
		New: func(c *Config) (Node, error) {
			if v, ok := LiteralAs[int](c, "num_cycles"); ok {
				if err := checkLoopCount("num_cycles", v); err != nil {
					return nil, err
				}
			}
			return &Repeat{}, nil
		},
	}}
}

// checkLoopCount accepts -1 (forever) and counts >= 0.
func checkLoopCount(port string, v int) error {
	if v < -1 {
		return fmt.Errorf("%s is %d; want -1 (no limit) or a count >= 0", port, v)
	}
	return nil
}

// Tick runs cycles of the child until it is RUNNING, fails, is skipped,
// yields after a synchronous success, or the cycles are done.
func (n *Repeat) Tick() (Status, error) { return n.tick(n, Success, "num_cycles", false) }

// loopOn is the loop Repeat and RetryUntilSuccessful share, mirror images
// of each other: the child is ticked again each time it returns goOn
// (SUCCESS for Repeat, FAILURE for RetryUntilSuccessful), up to the count
// in port (-1: forever); the other completed status resets the count and
// is returned at once. A child that completes in the tick it started
// yields (RUNNING and a wake-up) before the next run, as in BT.CPP.
// reread reads the limit again after each run (RetryUntilSuccessful does,
// so the child may change it; a limit that cannot be read keeps the last).
type loopOn struct {
	Base
	count int
	// attempts are the chains of the child's latest failures in this run
	// (at most keptAttempts), for a RetryUntilSuccessful's explanation,
	// kept only while the tree is explaining (the child's own records
	// keep only its last attempt).
	attempts [][]Cause
}

// keptAttempts bounds what a retrying node keeps of its attempts: a retry
// without a limit (num_attempts -1) must not grow without end.
const keptAttempts = 8

func (n *loopOn) keepAttempt(chain []Cause) {
	if len(n.attempts) == keptAttempts {
		copy(n.attempts, n.attempts[1:])
		n.attempts = n.attempts[:keptAttempts-1]
	}
	n.attempts = append(n.attempts, chain)
}

// self is the node that embeds n, for reading its ports.
func (n *loopOn) tick(self Node, goOn Status, port string, reread bool) (Status, error) {
	limit, err := GetInput[int](self, port)
	if err != nil {
		return Failure, err
	}
	if err := checkLoopCount(port, limit); err != nil {
		return Failure, err
	}
	loop := limit == -1 || n.count < limit
	if len(n.attempts) > 0 && !n.status.Active() {
		n.attempts = n.attempts[:0] // a new run
	}
	n.setStatus(Running)
	child := n.children[0]
	for loop {
		cb := child.base()
		prev := cb.status
		st, err := execute(child, cb)
		if err != nil {
			return st, err
		}
		switch st {
		case goOn:
			n.count++
			if goOn == Failure && n.Explaining() {
				n.keepAttempt(explainFrom(child))
			}
			if reread {
				if v, err := GetInput[int](self, port); err == nil {
					if err := checkLoopCount(port, v); err != nil {
						return Failure, err
					}
					limit = v
				}
			}
			loop = limit == -1 || n.count < limit
			n.HaltChild(0)
			if prev == Idle && loop {
				n.tree.Wake()
				return Running, nil
			}
		case Success, Failure:
			if n.Explaining() {
				n.SetReason(loopReason(goOn, st, n.count, limit))
			}
			n.count = 0
			n.HaltChild(0)
			return st, nil
		case Running:
			return Running, nil
		case Skipped:
			n.HaltChild(0)
			return Skipped, nil
		default:
			return Failure, errChildIdle
		}
	}
	if n.Explaining() {
		n.SetReason(loopReason(goOn, goOn, n.count, limit))
	}
	n.count = 0
	return goOn, nil
}

// loopReason says how a Repeat (goOn SUCCESS) or a Retry (goOn FAILURE)
// ended after count runs that returned goOn, the last one returning st.
func loopReason(goOn, st Status, count, limit int) string {
	what := "cycle"
	if goOn == Failure {
		what = "attempt"
	}
	of := ""
	if limit >= 0 {
		of = fmt.Sprintf(" of %d", limit)
	}
	if st == goOn {
		return fmt.Sprintf("%d %s %s", count, english.Plural(count, what, what+"s"), pastTense(goOn))
	}
	return fmt.Sprintf("%s %d%s %s", what, count+1, of, pastTense(st))
}

// Halt resets the count and halts the child.
func (n *loopOn) Halt() {
	n.count = 0
	n.attempts = n.attempts[:0]
	n.ResetChildren()
}
