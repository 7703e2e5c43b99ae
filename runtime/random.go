package runtime

import (
	"errors"
	"math/rand/v2"
)

// RandomComposite is the node behind RandomSequence and RandomSelector: a
// Sequence and a Fallback that tick their children in an order shuffled anew
// on every activation, so that a robot does not always try its alternatives
// (or its chores) in the same order.
//
//	RandomSelector                 this activation's order: C, A, B
//	├── A   FAILURE → go on to B
//	├── B   RUNNING → resumed on the next tick, in the same order
//	└── C   FAILURE (ticked first)
//
// They are the "non-deterministic composite tasks" of the game-AI
// behavior-tree literature (I. Millington and J. Funge, Artificial
// Intelligence for Games, 2nd ed., 2009, ch. 5.4 "Behavior Trees"; the
// random selector and sequence of tools such as LimboAI); BehaviorTree.CPP
// has no such node.
//
// Contract:
//   - an activation starts when the node is ticked while not in the middle
//     of one (the first tick, or after it completed or was halted); the
//     order is then drawn with a Fisher-Yates shuffle from the tree's random
//     source (BuildConf.Seed: the same seed and the same ticks give the same
//     orders, run after run);
//   - RandomSequence then behaves as Sequence and RandomSelector as
//     Fallback, in that order: SUCCESS (FAILURE for the selector) and
//     SKIPPED move on, RUNNING returns RUNNING and is resumed on the next
//     tick in the same order, FAILURE (SUCCESS for the selector) resets
//     every child and ends the activation with that status;
//   - when every child is done, all are reset and the activation ends with
//     SUCCESS (FAILURE for the selector), or SKIPPED if every child was
//     skipped;
//   - a halt halts the running child and ends the activation.
type RandomComposite struct {
	Base
	selector bool // RandomSelector: go on while children fail
	rng      *rand.Rand
	order    []int // child indices of this activation, in tick order
	pos      int
	skipped  int
	active   bool
}

func randomTypes() []NodeType {
	return []NodeType{
		{
			ID: "RandomSequence", Kind: ControlKind,
			Summary: "A Sequence whose children's order is shuffled on every activation (seeded by the tree).",
			New:     func(c *Config) (Node, error) { return newRandomComposite(c, false) },
		},
		{
			ID: "RandomSelector", Kind: ControlKind,
			Summary: "A Fallback whose children's order is shuffled on every activation (seeded by the tree).",
			New:     func(c *Config) (Node, error) { return newRandomComposite(c, true) },
		},
	}
}

var errNoRand = errors.New("no random source in Config.Rand (the tree builder provides one)")

func newRandomComposite(c *Config, selector bool) (Node, error) {
	if c.Rand == nil {
		return nil, errNoRand
	}
	return &RandomComposite{selector: selector, rng: c.Rand, order: make([]int, c.Children)}, nil
}

// shuffle fills order with a random permutation of the child indices. It
// is written out rather than calling rand.Shuffle so that it allocates
// nothing.
func shuffle(rng *rand.Rand, order []int) {
	for i := range order {
		order[i] = i
	}
	for i := len(order) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		order[i], order[j] = order[j], order[i]
	}
}

// Tick draws an order when an activation starts, then runs the children in it.
func (n *RandomComposite) Tick() (Status, error) {
	count := len(n.children)
	if !n.active {
		if len(n.order) != count {
			n.order = make([]int, count)
		}
		shuffle(n.rng, n.order)
		n.pos, n.skipped, n.active = 0, 0, true
	}
	n.setStatus(Running)
	// goOn is the status that moves on to the next child; the other
	// completed status ends the activation.
	goOn := Success
	if n.selector {
		goOn = Failure
	}
	for n.pos < count {
		st, err := Execute(n.children[n.order[n.pos]])
		if err != nil {
			return st, err
		}
		switch st {
		case Running:
			return Running, nil
		case goOn:
			n.pos++
		case Skipped:
			n.pos++
			n.skipped++
		case Success, Failure:
			n.end()
			return st, nil
		default:
			return Failure, errors.New("a child returned IDLE")
		}
	}
	allSkipped := n.skipped == count
	n.end()
	if allSkipped {
		return Skipped, nil
	}
	return goOn, nil
}

func (n *RandomComposite) end() {
	n.ResetChildren()
	n.pos, n.skipped, n.active = 0, 0, false
}

// Halt halts the running child and ends the activation.
func (n *RandomComposite) Halt() { n.end() }

// failedAlternatives: for a RandomSelector, the children that failed
// before the last one, in the order they were drawn.
func (n *RandomComposite) failedAlternatives(decisive Node) [][]Cause {
	if !n.selector {
		return nil
	}
	return failedChildren(&n.Base, decisive)
}
