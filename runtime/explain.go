package runtime

import (
	"strings"
)

// Cause is one link of a tree's explanation of its outcome: a node on the
// path from the root to the leaf whose result decided it, with the status
// it returned and the reason it stated (empty when it stated none).
type Cause struct {
	Path   string
	Type   string
	Status Status
	Reason string
}

// String writes the cause on one line, as a mission report prints it:
//
//	MainTree/Patrol/NavigateTo#2 (NavigateTo) FAILURE: move_base aborted the goal to kitchen
func (c Cause) String() string {
	var sb strings.Builder
	c.write(&sb)
	return sb.String()
}

func (c Cause) write(sb *strings.Builder) {
	sb.WriteString(c.Path)
	sb.WriteString(" (")
	sb.WriteString(c.Type)
	sb.WriteString(") ")
	sb.WriteString(c.Status.String())
	if c.Reason != "" {
		sb.WriteString(": ")
		sb.WriteString(c.Reason)
	}
}

// FormatExplanation writes an explanation (Tree.Explain's) one node a line,
// each line indented two spaces deeper than its parent's, and ends every
// line with a newline. An empty chain is the empty string.
func FormatExplanation(chain []Cause) string {
	var sb strings.Builder
	for i, c := range chain {
		sb.WriteString(strings.Repeat("  ", i))
		c.write(&sb)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Explain returns why the tree ended as it did: the chain of nodes from the
// root to the first leaf whose result decided the root's last status, each
// with the status it returned then and the reason it stated. Nil before the
// root has completed, and again once a new run of the root has started:
// call it after the tick that completed the root, before the next one.
//
// The chain is read from what the nodes returned when they completed, not
// from their statuses now (their parents have reset them to IDLE). From
// each node it goes on to the decisive child, the same rule for every node
// type:
//
//   - of the children that completed during the node's last run, the one
//     that completed last with the node's own status: the child that failed
//     a Sequence, the last alternative of a Fallback whose children all
//     failed (the Fallback's reason counts them; the earlier alternatives'
//     chains are not followed), the failure that reached a Parallel's
//     failure threshold, the last attempt of a Retry, the branch an
//     IfThenElse took, the subtree of a SubTree;
//   - when none completed with that status, the child that completed last:
//     the child of an Inverter or ForceFailure, which changed its status;
//   - when no child completed during the run, the chain ends at the node:
//     it decided by itself (a leaf; a Timeout that halted its child; a
//     node whose _failureIf held). A child that was halted never completed,
//     so a reactive parent's chain goes to the condition that failed and
//     halted the running child, never to the child it halted.
//
// The chain costs nothing to keep: every node records its last result as a
// status and a counter. Reasons that take formatting are there only while
// the tree is explaining (SetExplaining); without it a cause carries only
// the reasons that nodes state for free.
func (t *Tree) Explain() []Cause {
	if t.root == nil {
		return nil
	}
	root := t.root.base()
	if root.doneAt == 0 || root.startAt >= root.doneAt {
		return nil
	}
	var chain []Cause
	for n := t.root; n != nil; n = decisiveChild(n.base()) {
		b := n.base()
		chain = append(chain, Cause{Path: b.path, Type: b.typeID, Status: b.done, Reason: b.doneReason})
	}
	return chain
}

// decisiveChild is the child Explain follows from b (see its rule), or nil.
func decisiveChild(b *Base) Node {
	var last, same Node
	var lastAt, sameAt uint64
	for _, c := range b.children {
		cb := c.base()
		if cb.doneAt <= b.startAt || cb.doneAt >= b.doneAt {
			continue // not completed during b's last run
		}
		if cb.doneAt > lastAt {
			last, lastAt = c, cb.doneAt
		}
		if cb.done == b.done && cb.doneAt > sameAt {
			same, sameAt = c, cb.doneAt
		}
	}
	if same != nil {
		return same
	}
	return last
}

// complete records a SUCCESS or FAILURE the node returned, for Explain.
func (b *Base) complete(st Status) {
	b.done, b.doneReason = st, b.reason
	if t := b.tree; t != nil {
		t.completions++
		b.doneAt = t.completions
	}
}

// SetExplaining turns the formatting of reasons on or off, from the next
// tick on. Mission runners, reports and live views that show reasons turn
// it on; a tree that nobody asks why costs nothing more to tick with it
// off, which is the default. Call it between ticks.
func (t *Tree) SetExplaining(on bool) { t.explaining = on }

// Explaining reports whether the tree's nodes format their reasons.
func (t *Tree) Explaining() bool { return t.explaining }

// Explaining reports whether the node should state reasons that cost
// something to make. A node formats a reason only when it is true:
//
//	if n.Explaining() {
//		n.SetReason(fmt.Sprintf("battery at %.0f%%, not above %.0f%%", level, min))
//	}
//
// (A helper taking a format and its arguments would cost an allocation per
// call even with explaining off: the arguments are boxed before the helper
// could look.) A reason that is a constant string is free: set it always.
func (b *Base) Explaining() bool { return b.tree != nil && b.tree.explaining }

// SetReason states why the node returns the status its current tick
// returns: "move_base aborted the goal", "battery at 12%, not above 15%".
// Each tick starts with no reason (Execute clears it), so a node states one
// on every tick it wants one shown, RUNNING ticks included. The last call
// of a tick wins. Control nodes and decorators state their own ("failed at
// child 2 of 3", "timed out after 5s"); Explain follows their children.
func (b *Base) SetReason(s string) { b.reason = s }

// Reason returns what the node stated about its latest tick (see
// SetReason). Read it on the tick's goroutine or from an observer; an
// observer that sees a node complete reads the reason of that completion,
// which Transition.Reason also carries.
func (b *Base) Reason() string { return b.reason }
