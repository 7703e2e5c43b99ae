package runtime

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// AsyncWork is the work of an async action. It runs in a goroutine of its
// own, never on the tick's, and returns SUCCESS or FAILURE when the work is
// done, or an error; Fail(reason) in place of the error fails the action
// with that reason (see Leaf). Once ctx is cancelled (the action was halted) the tree
// no longer listens: the work should return promptly, and its result is
// dropped.
//
// The work may write outputs with SetOutput (the blackboard is safe for
// concurrent use); the write lands whenever the work makes it, so a work
// that must not write after a halt checks ctx.Err() first.
type AsyncWork func(ctx context.Context) (Status, error)

// AsyncStart starts an async action. It is called on the tick's goroutine
// on the tick that starts the action: it reads the node's inputs (so one
// run sees the blackboard of one tick) and returns the work to run. An
// error makes that tick return it.
//
//	reg.RegisterAsyncAction("Beep", ports, func(n *runtime.Leaf) (runtime.AsyncWork, error) {
//		hz, err := runtime.GetInput[float64](n, "hz")
//		if err != nil {
//			return nil, err
//		}
//		return func(ctx context.Context) (runtime.Status, error) {
//			return speaker.Beep(ctx, hz) // blocks until done or cancelled
//		}, nil
//	})
type AsyncStart func(n *Leaf) (AsyncWork, error)

// Contract of the async leaf (ARCHITECTURE.md, async leaves):
//   - the tick that starts it (the node was IDLE) calls AsyncStart and runs
//     the work in a new goroutine; that tick returns RUNNING, even if the
//     work finishes at once;
//   - later ticks return RUNNING until the work has returned, then its
//     status (SUCCESS or FAILURE), or FAILURE with the reason the work
//     gave with Fail; any other status, an error, or a panic in the work
//     makes that tick return an error (the tree is then halted);
//   - the work's completion wakes the tree (Tree.Wake), so a loop ticks
//     early to collect it;
//   - halting cancels the work's context and returns at once, without
//     waiting; the halted run's result is dropped and does not wake the
//     tree;
//   - a halted run's goroutine is gone before the node starts a new run: a
//     tick that would start the action while the halted work has not yet
//     returned returns RUNNING without starting it, and the halted work's
//     exit wakes the tree so the next tick starts the new run. No node ever
//     has two runs at once, and a tick never blocks;
//   - ticked while SUCCESS or FAILURE (a parent that did not reset it) it
//     returns that status again, as BehaviorTree.CPP's ThreadedAction does.
type asyncLogic struct {
	start AsyncStart
	run   *asyncRun // the latest run; a halted one may still be stopping
}

// asyncRun is one run of the work. The goroutine writes status and err,
// then closes done; the tick's goroutine reads them only after done.
type asyncRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	wake   atomic.Bool // wake the tree when the work returns
	halted bool        // tick's goroutine only
	status Status
	err    error
}

func (r *asyncRun) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *asyncRun) result() (Status, error) {
	if r.err != nil {
		return Failure, r.err
	}
	if !r.status.Completed() {
		return Failure, fmt.Errorf("the async work returned %v; it must finish with SUCCESS or FAILURE", r.status)
	}
	return r.status, nil
}

func (a *asyncLogic) tick(n *Leaf) (Status, error) {
	if r := a.run; r != nil && !r.halted {
		if !r.exited() {
			return Running, nil
		}
		a.run = nil
		st, err := r.result()
		if err != nil {
			return failed(n, err)
		}
		return st, nil
	}
	if n.status.Completed() {
		return n.status, nil
	}
	if r := a.run; r != nil {
		// A halted run is still stopping. Ask its exit to wake the tree,
		// then look again: either it has gone, or it will wake us.
		if !r.exited() {
			r.wake.Store(true)
			if !r.exited() {
				return Running, nil
			}
		}
		a.run = nil
	}
	return a.launch(n)
}

func (a *asyncLogic) launch(n *Leaf) (Status, error) {
	work, err := a.start(n)
	if err != nil {
		return failed(n, err)
	}
	if work == nil {
		return Failure, errors.New("the async action's start returned no work")
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &asyncRun{cancel: cancel, done: make(chan struct{})}
	r.wake.Store(true)
	a.run = r
	go r.do(ctx, work, n.tree)
	return Running, nil
}

func (r *asyncRun) do(ctx context.Context, work AsyncWork, tree *Tree) {
	st, err := runAsyncWork(ctx, work)
	r.cancel()
	r.status, r.err = st, err
	close(r.done)
	if r.wake.Load() {
		tree.Wake()
	}
}

func runAsyncWork(ctx context.Context, work AsyncWork) (st Status, err error) {
	defer func() {
		if v := recover(); v != nil {
			st, err = Failure, &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return work(ctx)
}

func (a *asyncLogic) halt(*Leaf) {
	if r := a.run; r != nil && !r.halted {
		r.halted = true
		r.wake.Store(false)
		r.cancel()
	}
}

// NewAsyncAction returns an async action leaf started by start, for a
// NodeType.New that builds its nodes itself.
func NewAsyncAction(start AsyncStart) *Leaf { return &Leaf{logic: &asyncLogic{start: start}} }

// AsyncActionType returns the declaration of an action node type whose
// every instance runs the work start returns in a goroutine.
func AsyncActionType(id string, ports []PortSpec, start AsyncStart) NodeType {
	return NodeType{
		ID: id, Kind: ActionKind, Ports: ports,
		New: func(*Config) (Node, error) {
			if start == nil {
				return nil, fmt.Errorf("async action %s has no start function", id)
			}
			return NewAsyncAction(start), nil
		},
	}
}

// AwaitAsync waits, up to patience, for the async work of the leaf's
// running run (if any, and not halted) to return, so that the next Tick
// collects it. An async action that knows its work is about to return (its
// result is in) calls it before Tick, so that the tick that follows the
// result collects it whatever the goroutines' scheduling. It reports
// whether no work is left running.
func (n *Leaf) AwaitAsync(patience time.Duration) bool {
	a, ok := n.logic.(*asyncLogic)
	if !ok || a.run == nil || a.run.halted {
		return true
	}
	t := time.NewTimer(patience)
	defer t.Stop()
	select {
	case <-a.run.done:
		return true
	case <-t.C:
		return false
	}
}
