package runtime

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Transition is one status change of one node, as observers see it.
type Transition struct {
	Node *Base
	From Status
	To   Status
	Time time.Time
	// Reason is what the node stated about the tick that made the
	// transition (Base.Reason, copied so that an observer may hand the
	// transition to another goroutine): a live view shows it beside the
	// status. Reasons that take formatting are there only while the tree
	// is explaining (Tree.SetExplaining). A transition to IDLE (a reset, a
	// halt) has none.
	Reason string
}

// Observer watches a tree's status transitions. Logging, live views and
// metrics are observers; nodes never print.
//
// OnTransitions is given the transitions in batches, on the tick's
// goroutine, in the order they happen, and must be quick. A tick's
// transitions come at the end of the tick (in more than one batch when
// the tick makes many), a halt's at the end of the halt, a transition
// made outside a tick or a halt (Base.SetStatus) at once; a breakpoint
// that holds the tree delivers the tick's transitions so far before it
// waits (see Tree.Deliver). The transitions of one tick carry the time of
// one reading of the tree's clock, taken at the tick's first transition
// (after a breakpoint held the tree, at the next one).
//
// The slice is the tree's and is reused once OnTransitions returns: keep
// the transitions (they hold no reference into the slice), never the
// slice. A node's state read through Transition.Node is its state at the
// batch's delivery; what the transition needs of it at the time it
// happened (statuses, reason) the Transition carries.
type Observer interface {
	OnTransitions(batch []Transition)
}

// ObserverFunc adapts a function of one transition into an Observer: it
// is called for each transition of a batch, in order.
type ObserverFunc func(Transition)

// OnTransitions calls f for each transition of batch.
func (f ObserverFunc) OnTransitions(batch []Transition) {
	for i := range batch {
		f(batch[i])
	}
}

// maxBatch bounds the transitions a tree holds before it delivers them: a
// tick that loops (a Repeat of a synchronous child) delivers every
// maxBatch transitions instead of holding them all.
const maxBatch = 16384

// Tree is a built behavior tree: its nodes, its root blackboard, its clock
// and the wake-up signal that async leaves use to ask for an early tick.
//
// Ticking (TickOnce and friends) and Halt must be called from one goroutine
// at a time; Wake may be called from any.
type Tree struct {
	root      Node
	nodes     []Node // depth-first, UID order
	bb        *Blackboard
	clock     Clock
	observers []Observer
	// observed holds one token per observer, in the same order: what
	// Observe's remove looks for (an ObserverFunc cannot be compared).
	observed []*byte
	// batch holds the transitions not yet delivered to the observers
	// (while held > 0: a tick or a halt is under way), and stamp the time
	// they carry (read at the first of them: stamped).
	batch   []Transition
	stamp   time.Time
	stamped bool
	held    int
	// changed notes the nodes a batch changes while a ChangesObserver
	// is registered (changers: those observers); it and spareChanged are
	// swapped at each delivery, so that what an observer makes happen
	// is noted for the next batch.
	changed      *Changed
	spareChanged *Changed
	changers     []ChangesObserver
	changedBases []*Base // the nodes, by uid-1, for both
	// askChanges says that every changer is a ChangesOnDemand: the tree
	// asks them at the start of each tick whether they want the tick's
	// changes, and while none does, changed is nil (nothing noted) and
	// its set waits in parkedChanged.
	askChanges    bool
	parkedChanged *Changed
	// hooks is what Execute runs: nil unless a hook attached is armed
	// (see armHooks), or TrackTicking is on; attached is every hook
	// attached (Hook), and armable says that each of them can say it
	// has nothing to do (ArmedHook).
	hooks    []TickHook
	attached []TickHook
	armable  bool
	// ticking is the node whose tick is under way while TrackTicking is
	// on (tracking counts its users); nil otherwise.
	ticking  *atomic.Pointer[Base]
	tracking int
	wake     chan struct{}
	haltErr  error
	ticks    uint64

	enums map[string]int // the registry's, for scripts

	explaining  bool   // nodes format their reasons (SetExplaining)
	completions uint64 // SUCCESS and FAILURE results so far, to order them

	wakeMu sync.Mutex
	wakeAt time.Time // earliest time a node asked to be ticked again

	suspended atomic.Pointer[suspension] // Suspend's, until Resume or Halt

	substituted map[uint32]string // by UID: what a substitution rule built in the node's place
}

func newTree(clock Clock, bb *Blackboard) *Tree {
	if clock == nil {
		clock = WallClock{}
	}
	return &Tree{clock: clock, bb: bb, wake: make(chan struct{}, 1)}
}

// Root returns the root node (the main tree's root).
func (t *Tree) Root() Node { return t.root }

// Nodes returns every node in depth-first order; Nodes()[i] has UID i+1.
func (t *Tree) Nodes() []Node { return t.nodes }

// Node returns the node at path, or nil.
func (t *Tree) Node(path string) Node {
	for _, n := range t.nodes {
		if n.base().path == path {
			return n
		}
	}
	return nil
}

// Blackboard returns the main tree's root blackboard.
func (t *Tree) Blackboard() *Blackboard { return t.bb }

// Clock returns the tree's clock.
func (t *Tree) Clock() Clock { return t.clock }

// Ticks returns how many times the root was ticked.
func (t *Tree) Ticks() uint64 { return t.ticks }

// Observe registers o for every status transition from now on and returns a
// function that removes it. Call it between ticks.
func (t *Tree) Observe(o Observer) (remove func()) {
	token := new(byte)
	t.observers = append(t.observers, o)
	t.observed = append(t.observed, token)
	t.setDetour(detourObserved, true)
	co, changes := o.(ChangesObserver)
	if changes {
		t.changers = append(t.changers, co)
		t.setChanged()
	}
	return func() {
		for i, x := range t.observed {
			if x == token {
				t.observers = append(t.observers[:i:i], t.observers[i+1:]...)
				t.observed = append(t.observed[:i:i], t.observed[i+1:]...)
				t.setDetour(detourObserved, len(t.observers) > 0)
				if changes {
					for j, c := range t.changers {
						if c == co {
							t.changers = append(t.changers[:j:j], t.changers[j+1:]...)
							break
						}
					}
					t.setChanged()
				}
				return
			}
		}
	}
}

// setChanged notes changes while a ChangesObserver is registered (from
// now to the next tick's start, when each is a ChangesOnDemand: the tick
// asks them then).
func (t *Tree) setChanged() {
	t.askChanges = len(t.changers) > 0
	for _, c := range t.changers {
		if _, ok := c.(ChangesOnDemand); !ok {
			t.askChanges = false
		}
	}
	switch {
	case len(t.changers) == 0:
		t.changed, t.spareChanged, t.parkedChanged, t.changedBases = nil, nil, nil, nil
	case t.changed == nil && t.parkedChanged != nil:
		t.changed, t.parkedChanged = t.parkedChanged, nil
	case t.changed == nil:
		t.changedBases = make([]*Base, len(t.nodes))
		for i, n := range t.nodes {
			t.changedBases[i] = n.base()
		}
		t.changed, t.spareChanged = newChanged(t.changedBases), newChanged(t.changedBases)
	}
}

// askForChanges notes the coming tick's changes (and what happens until
// the next tick's start) when a ChangesOnDemand wants them; every one is
// asked.
func (t *Tree) askForChanges() {
	want := false
	for _, c := range t.changers {
		if c.(ChangesOnDemand).WantsChanges() {
			want = true
		}
	}
	switch {
	case want && t.changed == nil && t.parkedChanged != nil:
		t.changed, t.parkedChanged = t.parkedChanged, nil
	case !want && t.changed != nil:
		// Emptied: what an observer made happen during the last
		// delivery, if anything, is not handed over later as this
		// tick's.
		t.changed.reset()
		t.changed, t.parkedChanged = nil, t.changed
	}
}

// notify queues a transition for the observers; it is delivered at once
// unless a tick or a halt holds the batch.
func (t *Tree) notify(b *Base, from, to Status) {
	if !t.stamped {
		t.stamp, t.stamped = t.clock.Now(), true
	}
	t.batch = append(t.batch, Transition{Node: b, From: from, To: to, Time: t.stamp})
	if t.changed != nil {
		t.changed.note(b, from, to)
	}
	if to != Idle {
		t.batch[len(t.batch)-1].Reason = b.Reason()
	}
	if t.held == 0 || len(t.batch) >= maxBatch {
		t.deliverBatch()
	}
}

// deliverBatch hands the transitions queued to every observer and empties
// the batch; the clock is read again at the next transition unless a
// tick holds the batch (a tick's transitions carry one time).
func (t *Tree) deliverBatch() {
	if t.held == 0 {
		t.stamped = false
	}
	if len(t.batch) == 0 {
		return
	}
	batch := t.batch
	t.batch = nil // what an observer makes happen queues anew
	changed := t.changed
	if changed != nil { // and is noted anew
		next := t.spareChanged
		if next == nil { // an observer's own transitions delivered meanwhile
			next = newChanged(changed.bases)
		}
		t.changed, t.spareChanged = next, nil
	}
	for _, o := range t.observers {
		o.OnTransitions(batch)
	}
	if changed != nil {
		for _, o := range t.changers {
			o.OnChanged(changed)
		}
		changed.reset()
		if t.changed != nil && t.spareChanged == nil { // still wanted
			t.spareChanged = changed
		}
	}
	// Not cleared (a tick's worth of memory written again): the slice
	// keeps at most maxBatch reasons alive until it is written over.
	if t.batch == nil {
		t.batch = batch[:0]
	}
}

// Deliver hands the transitions of the tick under way to the observers
// now, rather than at the tick's end, and reads the clock again for the
// next ones: a tick hook that holds the tree (a breakpoint) calls it
// before it waits, so that the observers show the tick as far as it went.
// Call it on the tick's goroutine.
func (t *Tree) Deliver() {
	t.deliverBatch()
	t.stamped = false
}

// Wake asks for the tree to be ticked as soon as possible. Async leaves call
// it, from any goroutine, when their work completes. It never blocks.
func (t *Tree) Wake() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// WakeC returns the channel that receives after Wake; the tick loop selects
// on it.
func (t *Tree) WakeC() <-chan struct{} { return t.wake }

// WakeAt asks for a tick no later than at: a Timeout or Delay calls it with
// its deadline so the loop can tick then instead of at its next period.
func (t *Tree) WakeAt(at time.Time) {
	t.wakeMu.Lock()
	if t.wakeAt.IsZero() || at.Before(t.wakeAt) {
		t.wakeAt = at
	}
	t.wakeMu.Unlock()
}

// NextWake returns and clears the earliest time asked for with WakeAt.
func (t *Tree) NextWake() (time.Time, bool) {
	t.wakeMu.Lock()
	defer t.wakeMu.Unlock()
	at := t.wakeAt
	t.wakeAt = time.Time{}
	return at, !at.IsZero()
}

func (t *Tree) drainWake() {
	select {
	case <-t.wake:
	default:
	}
}

// TickExactlyOnce ticks the root once. A completed root is reset, so the
// next tick starts the tree again, as in BehaviorTree.CPP.
//
// An error (a script that fails, a node that returns one, a panic in a node)
// halts the whole tree and is returned with the node's path.
func (t *Tree) TickExactlyOnce() (Status, error) { return t.tick(false) }

// TickOnce ticks the root, and again at once while the tree is RUNNING and
// a wake-up arrived during the tick (BehaviorTree.CPP's tickOnce).
func (t *Tree) TickOnce() (Status, error) { return t.tick(true) }

// TickWhileRunning ticks until the root is no longer RUNNING, waiting for a
// wake-up or at most sleep between ticks.
func (t *Tree) TickWhileRunning(sleep time.Duration) (Status, error) {
	for {
		st, err := t.TickOnce()
		if err != nil || st != Running {
			return st, err
		}
		if sleep > 0 {
			timer := time.NewTimer(sleep)
			select {
			case <-t.wake:
			case <-timer.C:
			}
			timer.Stop()
		}
	}
}

func (t *Tree) tick(againOnWake bool) (st Status, err error) {
	if t.root == nil {
		return Idle, errors.New("empty tree")
	}
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
			st = Failure
		}
		if t.ticking != nil {
			t.ticking.Store(nil) // a panic skipped the restores
		}
		if err != nil {
			t.root.base().abandon(nil) // a panic's too: Explain has no run to explain
			t.Halt()
		}
	}()
	t.drainWake()
	t.held++
	defer t.release() // before the halt above: its transitions come after the tick's
	st, err = t.tickRoot()
	for againOnWake && err == nil && st == Running && t.woken() {
		st, err = t.tickRoot()
	}
	return st, err
}

func (t *Tree) tickRoot() (Status, error) {
	t.ticks++
	if t.armable {
		t.armHooks()
	}
	if t.askChanges {
		t.askForChanges()
	}
	t.haltErr = nil
	st, err := execute(t.root, t.root.base())
	if err == nil && t.haltErr != nil {
		err = t.haltErr
	}
	if err == nil && st.Completed() {
		t.root.base().setStatus(Idle)
	}
	t.Deliver() // each tick's transitions, with their own time
	return st, err
}

// release ends a hold of the observers' batch (a tick's, a halt's) and
// delivers the batch when it was the last.
func (t *Tree) release() {
	if t.held--; t.held == 0 {
		t.deliverBatch()
	}
}

func (t *Tree) woken() bool {
	select {
	case <-t.wake:
		return true
	default:
		return false
	}
}

// Halt halts every running node, from the top, leaving the tree IDLE (and
// no longer suspended: a halted leaf sends nothing again).
func (t *Tree) Halt() {
	t.held++
	defer t.release()
	t.suspended.Store(nil)
	for _, n := range t.nodes {
		if n.base().status == Running {
			HaltNode(n)
		}
	}
	for _, n := range t.nodes {
		n.base().setStatus(Idle)
	}
}

func (t *Tree) recordHaltError(err error) {
	if t.haltErr == nil {
		t.haltErr = err
	}
}

// PanicError is a panic recovered from a node during a tick.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic in a node: %v", e.Value) }
