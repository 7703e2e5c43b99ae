package runtime

import (
	"fmt"

	"github.com/btrobot/btrobot/internal/english"
)

// ParallelAll ticks all its children in the same tick and waits for every
// one of them to finish, then fails if too many failed.
//
//	ParallelAll max_failures=1
//	├── RaiseArm    SUCCESS in tick 1 → not ticked again
//	└── OpenGripper RUNNING, then FAILURE → ParallelAll returns FAILURE
//
// Port max_failures (default 1): the number of failed children from which
// ParallelAll fails; negative counts from the number of children as in
// BehaviorTree.CPP (-1: all of them).
//
// Contract (BehaviorTree.CPP 4.10 ParallelAll):
//   - children are ticked in order; a child that has finished is not ticked
//     again until ParallelAll completes; nothing is halted early;
//   - SKIPPED when every child was skipped in this tick;
//   - once every child has finished or was skipped in this tick, all are
//     reset and ParallelAll returns FAILURE if at least max_failures children
//     failed, else SUCCESS;
//   - otherwise RUNNING; a skipped child is ticked again on the next tick;
//   - a max_failures larger than the number of children is rejected when
//     the tree is built (literal port) or fails the tick (blackboard port,
//     read on every tick). max_failures=0 always fails, as in BT.CPP.
type ParallelAll struct {
	Base
	done      []bool
	completed int
	failures  int
}

func parallelAllTypes() []NodeType {
	return []NodeType{{
		ID: "ParallelAll", Kind: ControlKind,
		Summary: "Ticks all children together until every one has finished; fails if max_failures of them failed.",
		Ports: []PortSpec{
			InputPort[int]("max_failures", "how many failed children make ParallelAll fail; negative counts from the number of children (-1: all)").WithDefault("1"),
		},
		New: func(c *Config) (Node, error) {
			if err := checkLiteralThreshold(c, "max_failures", "fail"); err != nil {
				return nil, err
			}
			return &ParallelAll{done: make([]bool, c.Children)}, nil
		},
	}}
}

// Tick ticks the unfinished children.
func (n *ParallelAll) Tick() (Status, error) {
	maxFail, err := GetInput[int](n, "max_failures")
	if err != nil {
		return Failure, err
	}
	count := len(n.children)
	if err := checkThreshold(n.typeID, "max_failures", maxFail, count, "fail"); err != nil {
		return Failure, err
	}
	needFail := threshold(maxFail, count)
	if len(n.done) != count {
		n.done = make([]bool, count)
	}

	n.setStatus(Running)
	skipped := 0
	for i, child := range n.children {
		if n.done[i] {
			continue
		}
		st, err := Execute(child)
		if err != nil {
			return st, err
		}
		switch st {
		case Success:
			n.done[i] = true
			n.completed++
		case Failure:
			n.done[i] = true
			n.completed++
			n.failures++
		case Skipped:
			skipped++
		case Running:
		default:
			return Failure, fmt.Errorf("child %s returned %v", child.base().path, st)
		}
	}
	if skipped == count {
		return Skipped, nil
	}
	if skipped+n.completed >= count {
		failed := n.failures >= needFail
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("%d of %d %s failed (max_failures %d)", n.failures, count, english.Plural(count, "child", "children"), needFail))
		}
		n.ResetChildren()
		n.clear()
		if failed {
			return Failure, nil
		}
		return Success, nil
	}
	return Running, nil
}

func (n *ParallelAll) clear() {
	clear(n.done)
	n.completed, n.failures = 0, 0
}

// Halt forgets the finished children and halts the running ones.
func (n *ParallelAll) Halt() {
	n.clear()
	n.ResetChildren()
}
