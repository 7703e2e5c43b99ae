package runtime

import (
	"fmt"

	"github.com/btrobot/btrobot/internal/english"
)

// Parallel ticks all its children in the same tick, the only control node
// whose children may be RUNNING together, and completes when enough of them
// succeeded or failed.
//
//	Parallel success_count=1 failure_count=-1
//	├── NavigateTo   RUNNING
//	└── WaitForStop  RUNNING → the first to succeed wins; the other is halted
//
// Ports: success_count (default -1) is how many children must succeed,
// failure_count (default 1) how many may fail before the Parallel fails. A
// negative value counts from the number of children as in BehaviorTree.CPP
// (and Python indexing): -1 is all of them, -2 all but one.
//
// Contract (BehaviorTree.CPP 4.10 Parallel):
//   - children are ticked in order; a child that has finished (SUCCESS or
//     FAILURE) is not ticked again until the Parallel completes;
//   - after each child the thresholds are checked: SUCCESS when the
//     successes reach success_count (with a negative success_count, children
//     skipped in this tick count as successes); FAILURE when the failures
//     equal failure_count, or when too few children are left that could
//     still succeed. The children after that one are not ticked: every
//     running child is halted (in child order), all are reset, and the
//     finished-children memory is cleared;
//   - otherwise RUNNING, or SKIPPED when every child ticked was skipped in
//     this tick. A skipped child is ticked again on the next tick;
//   - a threshold that can never be met (more successes or failures than
//     there are children) is rejected when the tree is built if the port is
//     a literal, and makes the tick fail with an error if it comes from the
//     blackboard (ports are read on every tick, as in BT.CPP). A threshold
//     of 0 is met at once: BT.CPP accepts it and so does this node.
//
// The parallel policies of the older behavior-tree literature, RequireOne
// and RequireAll for success and for failure (A. J. Champandard and P.
// Dunstan, "The Behavior Tree Starter Kit", Game AI Pro, 2013; code at
// github.com/aigamedev/btsk), are thresholds and need no node of their own:
// RequireOne is 1 and RequireAll is -1. success_count="1" succeeds with the
// first child that succeeds; failure_count="-1" fails only when every child
// failed.
type Parallel struct {
	Base
	done      []bool // children finished in this activation
	successes int
	failures  int
}

func parallelTypes() []NodeType {
	return []NodeType{{
		ID: "Parallel", Kind: ControlKind,
		Summary: "Ticks all children together; succeeds or fails when success_count or failure_count of them did.",
		Ports: []PortSpec{
			InputPort[int]("success_count", "how many children must succeed; negative counts from the number of children (-1: all)").WithDefault("-1"),
			InputPort[int]("failure_count", "how many children must fail for the Parallel to fail; negative counts from the number of children (-1: all)").WithDefault("1"),
		},
		New: func(c *Config) (Node, error) {
			if err := checkLiteralThreshold(c, "success_count", "succeed"); err != nil {
				return nil, err
			}
			if err := checkLiteralThreshold(c, "failure_count", "fail"); err != nil {
				return nil, err
			}
			return &Parallel{done: make([]bool, c.Children)}, nil
		},
	}}
}

// checkLiteralThreshold rejects a literal threshold port that can never be
// met by c.Children children.
func checkLiteralThreshold(c *Config, port, verb string) error {
	v, ok := LiteralAs[int](c, port)
	if !ok {
		return nil
	}
	return checkThreshold(c.Type.ID, port, v, c.Children, verb)
}

// threshold resolves a count that may be negative (counting from children,
// -1 being all of them) as BehaviorTree.CPP does.
func threshold(v, children int) int {
	if v < 0 {
		return max(children+v+1, 0)
	}
	return v
}

func checkThreshold(typ, port string, v, children int, verb string) error {
	if need := threshold(v, children); need > children {
		return fmt.Errorf("%s=%d can never be met: the %s has only %d %s, so it could never %s (use -1 for all of them)",
			port, v, typ, children, english.Plural(children, "child", "children"), verb)
	}
	return nil
}

// Tick ticks the unfinished children and checks the thresholds.
func (n *Parallel) Tick() (Status, error) {
	succ, err := GetInput[int](n, "success_count")
	if err != nil {
		return Failure, err
	}
	fail, err := GetInput[int](n, "failure_count")
	if err != nil {
		return Failure, err
	}
	count := len(n.children)
	if err := checkThreshold(n.typeID, "success_count", succ, count, "succeed"); err != nil {
		return Failure, err
	}
	if err := checkThreshold(n.typeID, "failure_count", fail, count, "fail"); err != nil {
		return Failure, err
	}
	needSucc, needFail := threshold(succ, count), threshold(fail, count)
	if len(n.done) != count {
		n.done = make([]bool, count)
	}

	n.setStatus(Running)
	skipped := 0
	for i, child := range n.children {
		if !n.done[i] {
			st, err := execute(child, child.base())
			if err != nil {
				return st, err
			}
			switch st {
			case Success:
				n.done[i] = true
				n.successes++
			case Failure:
				n.done[i] = true
				n.failures++
			case Skipped:
				skipped++
			case Running:
			default:
				return Failure, fmt.Errorf("child %s returned %v", child.base().path, st)
			}
		}
		if n.successes >= needSucc || (succ < 0 && n.successes+skipped >= needSucc) {
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("%d of %d %s succeeded (success_count %d)%s", n.successes, count, english.Plural(count, "child", "children"), needSucc, haltsRunning(&n.Base)))
			}
			n.clear()
			n.ResetChildren()
			return Success, nil
		}
		// BT.CPP compares the failures with == here: they grow by one at a
		// time, so this is "reached".
		if count-n.failures < needSucc || n.failures == needFail {
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("%d of %d %s failed (failure_count %d, success_count %d)%s", n.failures, count, english.Plural(count, "child", "children"), needFail, needSucc, haltsRunning(&n.Base)))
			}
			n.clear()
			n.ResetChildren()
			return Failure, nil
		}
	}
	if skipped == count {
		return Skipped, nil
	}
	return Running, nil
}

// haltsRunning names the running children a completing node halts.
func haltsRunning(n *Base) string {
	s := ""
	for _, c := range n.children {
		if c.base().status == Running {
			s += "; halted " + c.base().name
		}
	}
	return s
}

func (n *Parallel) clear() {
	clear(n.done)
	n.successes, n.failures = 0, 0
}

// Halt forgets the finished children and halts the running ones.
func (n *Parallel) Halt() {
	n.clear()
	n.ResetChildren()
}
