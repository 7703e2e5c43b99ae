package runtime

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/btrobot/btrobot/internal/english"
)

// WeightedSelector is a Fallback that picks which child to try next by a
// weighted random draw among the children not yet tried, so that a robot
// favours some alternatives without always choosing them.
//
//	WeightedSelector weights="3;1;1"
//	├── PatrolEast   tried first 3 times in 5
//	├── PatrolWest   FAILURE → draw again among the others, same tick
//	└── Wait
//
// It is the probability (weighted random) selector of game-AI
// behavior-tree toolkits, for example LimboAI's BTProbabilitySelector,
// which likewise renormalizes the weights over the children left after a
// failure; BehaviorTree.CPP has no such node.
//
// Port weights: one integer weight per child, at least 1 each, separated
// by ';' as BT.CPP writes lists. A literal is checked when the tree is
// built; a blackboard entry (a []int or a string such as "3;1;1") is read
// and checked when an activation starts, and a bad value fails that tick.
//
// Contract:
//   - an activation starts when the node is ticked while not in the middle
//     of one; all children are then untried;
//   - each draw picks an untried child with probability its weight over the
//     sum of the untried weights, from the tree's random source
//     (BuildConf.Seed: the same seed and the same ticks give the same
//     draws);
//   - the child's SUCCESS resets every child and returns SUCCESS; FAILURE
//     or SKIPPED marks it tried and draws again in the same tick; RUNNING
//     returns RUNNING, and the next tick resumes that child without a draw;
//   - when every child has been tried, all are reset and the node returns
//     FAILURE, or SKIPPED if every child was skipped;
//   - a halt halts the running child and ends the activation.
type WeightedSelector struct {
	Base
	rng     *rand.Rand
	literal []int // the weights when written in the tree; nil when bound to the blackboard
	weights []int // this activation's weights
	tried   []bool
	running int // index of the running child, or -1
	left    int // children not yet tried
	skipped int
	active  bool
}

func weightedSelectorTypes() []NodeType {
	return []NodeType{{
		ID: "WeightedSelector", Kind: ControlKind,
		Summary: "A Fallback that tries untried children in a weighted random order until one succeeds.",
		Ports: []PortSpec{
			InputPort[[]int]("weights", `one weight per child, each at least 1, separated by ';' (like "3;1;1")`),
		},
		New: func(c *Config) (Node, error) {
			if c.Rand == nil {
				return nil, errNoRand
			}
			n := &WeightedSelector{
				rng: c.Rand, running: -1,
				weights: make([]int, c.Children), tried: make([]bool, c.Children),
			}
			if w, ok := LiteralAs[[]int](c, "weights"); ok {
				if err := checkWeights(w, c.Children); err != nil {
					return nil, err
				}
				n.literal = w
			}
			return n, nil
		},
	}}
}

// checkWeights checks one weight per child, each at least 1, and a sum that
// an int holds.
func checkWeights(w []int, children int) error {
	if len(w) != children {
		return fmt.Errorf("weights has %d %s for %d %s: give one weight per child, like \"3;1;1\"",
			len(w), english.Plural(len(w), "value", "values"), children, english.Plural(children, "child", "children"))
	}
	sum := 0
	for i, x := range w {
		if x < 1 {
			return fmt.Errorf("weights: the weight of child %d is %d; every weight must be at least 1", i+1, x)
		}
		if x > math.MaxInt-sum {
			return fmt.Errorf("weights: the weights add up to more than %d", math.MaxInt)
		}
		sum += x
	}
	return nil
}

// Tick resumes the running child, or draws untried children until one
// succeeds or runs.
func (n *WeightedSelector) Tick() (Status, error) {
	count := len(n.children)
	if !n.active {
		if err := n.start(count); err != nil {
			return Failure, err
		}
	}
	n.setStatus(Running)
	for {
		i := n.running
		if i < 0 {
			if i = n.draw(); i < 0 {
				break
			}
		}
		st, err := Execute(n.children[i])
		if err != nil {
			return st, err
		}
		switch st {
		case Running:
			n.running = i
			return Running, nil
		case Success:
			n.end()
			return Success, nil
		case Failure, Skipped:
			n.tried[i] = true
			n.running = -1
			n.left--
			if st == Skipped {
				n.skipped++
			}
		default:
			return Failure, fmt.Errorf("child %s returned %v", n.children[i].base().path, st)
		}
	}
	allSkipped := n.skipped == count
	n.end()
	if allSkipped {
		return Skipped, nil
	}
	return Failure, nil
}

// start begins an activation: it reads the weights and marks every child
// untried.
func (n *WeightedSelector) start(count int) error {
	w := n.literal
	if w == nil {
		var err error
		if w, err = GetInput[[]int](n, "weights"); err != nil {
			return err
		}
		if err := checkWeights(w, count); err != nil {
			return err
		}
	}
	if len(n.weights) != count {
		n.weights, n.tried = make([]int, count), make([]bool, count)
	}
	copy(n.weights, w)
	clear(n.tried)
	n.running, n.left, n.skipped, n.active = -1, count, 0, true
	return nil
}

// draw picks an untried child by weight, or returns -1 when none is left.
func (n *WeightedSelector) draw() int {
	if n.left == 0 {
		return -1
	}
	total := 0
	for i, w := range n.weights {
		if !n.tried[i] {
			total += w
		}
	}
	r := n.rng.IntN(total)
	for i, w := range n.weights {
		if n.tried[i] {
			continue
		}
		if r < w {
			return i
		}
		r -= w
	}
	return -1 // unreachable: r < total
}

func (n *WeightedSelector) end() {
	n.ResetChildren()
	clear(n.tried)
	n.running, n.skipped, n.active = -1, 0, false
}

// Halt halts the running child and ends the activation.
func (n *WeightedSelector) Halt() { n.end() }

// failedAlternatives: the children that failed before the last one, in
// the order they were drawn.
func (n *WeightedSelector) failedAlternatives(decisive Node) [][]Cause {
	return failedChildren(&n.Base, decisive)
}
