package runtime

// Suspender is an async leaf whose work goes on in the world outside the
// tree — a navigation goal that drives the robot — and can be held while
// the tree is paused, so that a pause holds a real robot still and not
// only a simulation frozen with the tick.
//
// The tree (Tree.Suspend, Tree.Resume) calls both on the tick's goroutine
// for its RUNNING nodes, when a pause, a breakpoint or a paused Groot2
// session holds the tick (Breakpoints) and when the tree goes on. The leaf
// stays RUNNING throughout from the tree's point of view: its parents keep
// their place, nothing is halted, and the tick after the pause finds the
// leaf as it left it. Neither method may block.
//
//	hold:    Suspend  -> the goal is cancelled; no goal leaves until Resume
//	go on:   Resume   -> the same goal is sent again on the leaf's next tick
//	halt:             -> as for any async leaf; nothing is sent again
type Suspender interface {
	// Suspend holds the work: a goal in flight is cancelled, and none is
	// sent until Resume. It returns a channel closed once the world has
	// been told (the server acknowledged the cancel, or did not answer
	// within the leaf's patience), or nil when there was nothing to hold.
	// Called again while suspended, it returns the same channel.
	Suspend() <-chan struct{}
	// Resume lets the work go on: the goal Suspend held is sent again on
	// the leaf's next tick (so that a run that ends instead sends
	// nothing). It does nothing when the leaf is not suspended.
	Resume()
}

// suspension is what the latest Tree.Suspend held: the channels of its
// leaves (see Suspender.Suspend).
type suspension struct {
	waits []<-chan struct{}
}

// Suspend suspends every RUNNING node of the tree that is a Suspender (see
// there): the runtime's pause control calls it when a tick is held, and a
// mission server may call it when it pauses a tree it ticks. Call it on
// the tick's goroutine, or while the tree is not ticking. A node started
// after a Suspend (a step of the debugger ticks the tree) is held by the
// next one.
func (t *Tree) Suspend() {
	s := &suspension{}
	for _, n := range t.nodes {
		if sp, ok := n.(Suspender); ok && n.base().status == Running {
			if w := sp.Suspend(); w != nil {
				s.waits = append(s.waits, w)
			}
		}
	}
	t.suspended.Store(s)
}

// Resume lets every RUNNING Suspender of the tree go on (see there); it
// does nothing unless the tree is suspended. Same goroutine as Suspend.
func (t *Tree) Resume() {
	if t.suspended.Swap(nil) == nil {
		return
	}
	for _, n := range t.nodes {
		if sp, ok := n.(Suspender); ok && n.base().status == Running {
			sp.Resume()
		}
	}
}

// Suspended reports whether the tree is suspended (Suspend without Resume
// or Halt since), how many leaves hold work, and whether every one of them
// has settled: the world has been told, so that the robot's owner can
// confirm a zero velocity after the last command that a navigation server
// sent. Safe from any goroutine.
func (t *Tree) Suspended() (suspended bool, leaves int, settled bool) {
	s := t.suspended.Load()
	if s == nil {
		return false, 0, false
	}
	for _, w := range s.waits {
		select {
		case <-w:
		default:
			return true, len(s.waits), false
		}
	}
	return true, len(s.waits), true
}
