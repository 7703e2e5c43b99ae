package runtime

import (
	"iter"
	"math/bits"
)

// ChangesObserver is an Observer that also wants, with each batch, the
// set of nodes whose status the batch changed: a live view that shows
// each node's state at the end of a tick reads the few changed nodes
// from the tree instead of going through every transition of a busy tick
// (a node that went IDLE → SUCCESS → IDLE is one entry). The tree notes
// the set only while such an observer is registered: one bit a
// transition.
type ChangesObserver interface {
	Observer
	// OnChanged is called after the batch's OnTransitions (of every
	// observer), on the tick's goroutine, with the nodes the batch
	// changed. The set is the tree's and is emptied once OnChanged
	// returns.
	OnChanged(c *Changed)
}

// ChangesOnDemand is a ChangesObserver that can say it wants no changes
// for a while (a live view that nobody is looking at): WantsChanges is
// asked at the start of each tick of the root, on the tick's goroutine,
// and while every ChangesObserver of the tree is a ChangesOnDemand that
// says false, the tree notes no changes, not a bit a transition, from
// that tick's start to the next one's (the tick, and the halts and
// Base.SetStatus calls after it), and calls no OnChanged. (While one
// says true, every one is given the sets.)
//
// An observer that said false has missed changes: the sets it is given
// once it says true again hold only what changed from that tick's start
// on. To show the nodes as they are, it reads them itself, on the tick's
// goroutine, once that tick has ended (Base.Status, Base.Reason,
// Base.LastResult), and goes by the sets after that.
type ChangesOnDemand interface {
	ChangesObserver
	WantsChanges() bool
}

// LastResult returns what the node returned when it last completed,
// SUCCESS or FAILURE; IDLE when it never completed, or was halted or
// failed with an error since. An IDLE node that completed before its
// parent reset it shows it (IDLE after SUCCESS, as Groot2 draws it). Read
// it on the tick's goroutine or from an observer.
func (b *Base) LastResult() Status { return b.doneSt }

// Changed is the set of nodes whose status changed in a batch of
// transitions (ChangesObserver).
type Changed struct {
	bits  []uint64 // bit uid-1: the node's status changed
	left  []Status // by uid-1: what the node left when it last went IDLE
	bases []*Base  // the tree's nodes, by uid-1
	n     int      // bits set
}

func newChanged(bases []*Base) *Changed {
	return &Changed{bits: make([]uint64, (len(bases)+63)/64), left: make([]Status, len(bases)), bases: bases}
}

// note records a transition of b.
func (c *Changed) note(b *Base, from, to Status) {
	i := int(b.uid) - 1
	if uint(i) >= uint(len(c.left)) {
		return // not one of the tree's nodes
	}
	w := &c.bits[i>>6]
	if *w&(1<<(i&63)) == 0 {
		*w |= 1 << (i & 63)
		c.n++
	}
	if to == Idle {
		c.left[i] = from
	}
}

// Len returns how many nodes changed.
func (c *Changed) Len() int { return c.n }

// Each calls fn for every node that changed, in UID order, with the
// status it left when it last went IDLE in the batch (meaningful when
// the node is IDLE now: IDLE after SUCCESS, as Groot2 shows it). The
// node's status, reason and the rest are read from it as they are at
// the batch's end.
func (c *Changed) Each(fn func(b *Base, left Status)) {
	for b, left := range c.All() {
		fn(b, left)
	}
}

// All is Each as an iterator.
func (c *Changed) All() iter.Seq2[*Base, Status] {
	return func(yield func(*Base, Status) bool) {
		for w, word := range c.bits {
			for word != 0 {
				i := w<<6 + bits.TrailingZeros64(word)
				word &= word - 1
				if !yield(c.bases[i], c.left[i]) {
					return
				}
			}
		}
	}
}

// reset empties the set.
func (c *Changed) reset() {
	if c.n == 0 {
		return
	}
	clear(c.bits)
	c.n = 0
}
