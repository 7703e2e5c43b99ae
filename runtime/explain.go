package runtime

import (
	"cmp"
	"slices"
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
	// Alternatives are, on a node that fails only once every alternative
	// it tried failed (Fallback, AsyncFallback, ReactiveFallback,
	// RandomSelector, WeightedSelector; RetryUntilSuccessful, whose
	// alternatives are its attempts), the alternatives that failed before
	// the one the chain goes on to, in the order they were tried, each
	// with its own chain: the first alternative is usually the one the
	// author cared about ("level >= needed is false"), and the last one
	// alone would not say why it was not taken. Nil on other nodes and on
	// a node that did not fail.
	Alternatives [][]Cause `json:",omitempty"`
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
	if c.Type != "" {
		sb.WriteString(" (")
		sb.WriteString(c.Type)
		sb.WriteString(")")
	}
	sb.WriteString(" ")
	sb.WriteString(c.Status.String())
	if c.Reason != "" {
		sb.WriteString(": ")
		sb.WriteString(c.Reason)
	}
}

// FormatExplanation writes an explanation (Tree.Explain's) one node a line,
// each line indented two spaces deeper than its parent's, and ends every
// line with a newline. A node's failed alternatives (Cause.Alternatives)
// come under it, each chain indented as a child of the node, before the
// chain goes on, so that every alternative a Fallback tried reads as its
// child in the order they were tried:
//
//	MainTree/ways (Fallback) FAILURE: all 2 children failed
//	  MainTree/ways/charged (ScriptCondition) FAILURE: level >= needed is false (level = 7, needed = 12)
//	  MainTree/ways/AlwaysFailure (AlwaysFailure) FAILURE
//
// An empty chain is the empty string.
func FormatExplanation(chain []Cause) string {
	var sb strings.Builder
	writeChain(&sb, chain, 0)
	return sb.String()
}

func writeChain(sb *strings.Builder, chain []Cause, depth int) {
	for i, c := range chain {
		for range depth + i {
			sb.WriteString("  ")
		}
		c.write(sb)
		sb.WriteByte('\n')
		for _, alt := range c.Alternatives {
			writeChain(sb, alt, depth+i+1)
		}
	}
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
//     failed (the Fallback's reason counts them, and the earlier
//     alternatives' chains are its Cause.Alternatives), the failure that reached a Parallel's
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
// The chain costs next to nothing to keep: every node records its last
// result as a status and a counter, whatever the tree does. Reasons are
// kept only while the tree is explaining (SetExplaining); without it the
// causes carry none.
func (t *Tree) Explain() []Cause {
	if t.root == nil {
		return nil
	}
	root := t.root.base()
	if at, st := root.lastDone(); at == 0 || st == Idle || root.status == Running {
		return nil // not completed yet, or a new run has begun (and was halted or failed with an error)
	}
	return explainFrom(t.root)
}

// explainFrom is the chain from n, which completed, on (see Explain).
func explainFrom(n Node) []Cause {
	var chain []Cause
	for n != nil {
		b := n.base()
		_, st := b.lastDone()
		c := Cause{Path: b.path, Type: b.typeID, Status: st}
		if b.why != nil {
			c.Reason = b.why.done
		}
		next := decisiveChild(b)
		if a, ok := n.(triesAlternatives); ok && st == Failure {
			c.Alternatives = a.failedAlternatives(next)
		}
		chain = append(chain, c)
		n = next
	}
	return chain
}

// triesAlternatives is implemented by the nodes that fail only once every
// alternative they tried failed. failedAlternatives returns the chains of
// those that failed before decisive (the child Explain goes on to), in
// the order they were tried; it is called only after the node failed, by
// Explain, never during a tick.
type triesAlternatives interface {
	failedAlternatives(decisive Node) [][]Cause
}

// failedChildren is failedAlternatives for the nodes whose alternatives
// are their children: the children other than decisive that failed
// during b's last run, in the order they completed (the order they were
// tried; a ReactiveFallback's children are those of its last tick, in
// which they all failed). It reads what every node records anyway, so
// a tick costs nothing more for it.
func failedChildren(b *Base, decisive Node) [][]Cause {
	bAt, _ := b.lastDone()
	var failed []Node
	for _, c := range b.children {
		cAt, cSt := c.base().lastDone()
		if c == decisive || cSt != Failure || cAt <= b.startAt || cAt >= bAt {
			continue
		}
		failed = append(failed, c)
	}
	slices.SortFunc(failed, func(x, y Node) int {
		return cmp.Compare(x.base().doneAt, y.base().doneAt)
	})
	var out [][]Cause
	for _, c := range failed {
		out = append(out, explainFrom(c))
	}
	return out
}

// decisiveChild is the child Explain follows from b (see its rule), or nil.
func decisiveChild(b *Base) Node {
	var last, same Node
	var lastAt, sameAt uint64
	bAt, bSt := b.lastDone()
	for _, c := range b.children {
		cAt, cSt := c.base().lastDone()
		if cAt <= b.startAt || cAt >= bAt || cSt == Idle {
			continue // not completed during b's last run, or halted in it
		}
		if cAt > lastAt {
			last, lastAt = c, cAt
		}
		if cSt == bSt && cAt > sameAt {
			same, sameAt = c, cAt
		}
	}
	if same != nil {
		return same
	}
	return last
}

// reasons is what a node stated: about its latest tick, and with its last
// completion. A node that never states a reason has none, and pays one
// nil check a tick.
type reasons struct{ now, done string }

// complete records a SUCCESS or FAILURE the node returned, for Explain.
// The run that ends here began when the previous one ended (completed,
// halted or failed with an error: b.doneAt before this completion), so no
// bookkeeping is needed when a run starts: every tick of a node that
// stays RUNNING costs nothing here.
func (b *Base) complete(st Status) {
	if w := b.why; w != nil {
		w.done = w.now
	}
	if t := b.tree; t != nil {
		c := t.completions + 1
		t.completions = c
		b.startAt, b.doneAt, b.doneSt = b.doneAt, c, st
	}
}

// abandon records that the node's run ended without a completion (it was
// halted, or its tick failed with an error; err is returned wrapped): the
// next run begins after it, and Explain follows no chain through it.
func (b *Base) abandon(err error) error {
	if t := b.tree; t != nil {
		b.doneAt, b.doneSt = t.completions, Idle
	}
	if err == nil {
		return nil
	}
	return b.wrap(err)
}

// lastDone returns when the node last completed (Tree.completions then; 0
// never) and what it returned.
func (b *Base) lastDone() (at uint64, st Status) { return b.doneAt, b.doneSt }

// SetExplaining turns reasons on or off, from the next tick on. Mission runners, reports and live views that show reasons turn
// it on; a tree that nobody asks why costs nothing more to tick with it
// off, which is the default. Call it between ticks.
func (t *Tree) SetExplaining(on bool) {
	t.explaining = on
	for _, n := range t.nodes {
		n.base().explain = on
	}
}

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
// could look.) A reason that needs no formatting (a constant, a message
// already made) is set without asking: SetReason itself does nothing while
// the tree is not explaining.
func (b *Base) Explaining() bool { return b.explain }

// SetReason states why the node returns the status its current tick
// returns: "move_base aborted the goal", "battery at 12%, not above 15%".
// Each tick starts with no reason (Execute clears it), so a node states one
// on every tick it wants one shown, RUNNING ticks included. The last call
// of a tick wins. Control nodes and decorators state their own ("failed at
// child 2 of 3", "timed out after 5s"); Explain follows their children.
// SetReason does nothing while the tree is not explaining (a node outside
// a tree keeps what it is told); the first reason a node keeps allocates
// its record of them, once in its life.
func (b *Base) SetReason(s string) {
	if !b.explain && b.tree != nil {
		return
	}
	if b.why == nil {
		if s == "" {
			return
		}
		b.why = &reasons{} // once in the node's life
		b.detour |= detourWhy
	}
	b.why.now = s
}

// Reason returns what the node stated about its latest tick (see
// SetReason). Read it on the tick's goroutine or from an observer; an
// observer that sees a node complete reads the reason of that completion,
// which Transition.Reason also carries.
func (b *Base) Reason() string {
	if b.why == nil {
		return ""
	}
	return b.why.now
}
