package runtime

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// asyncTree builds a tree whose "Work" leaves run start.
func asyncTree(t *testing.T, root *NodeSpec, start AsyncStart) *Tree {
	t.Helper()
	reg := pipelineRegistry(&eventLog{})
	err := reg.RegisterAsyncAction("Work", []PortSpec{
		InputPort[string]("label", "passed to the work").WithDefault(""),
		OutputPort[string]("out", "written by the work"),
	}, start)
	require.NoError(t, err)
	tree, _ := buildWith(t, reg, root)
	return tree
}

// waitWake waits for the tree's wake-up signal.
func waitWake(t *testing.T, tree *Tree) {
	t.Helper()
	select {
	case <-tree.WakeC():
	case <-time.After(5 * time.Second):
		require.Fail(t, "the tree was not woken")
	}
}

func tickWant(t *testing.T, tree *Tree, want Status) {
	t.Helper()
	st, err := tree.TickExactlyOnce()
	require.NoError(t, err, "tick = %v, %v; want %v", st, err, want)
	require.Equal(t, want, st, "tick = %v, %v; want %v", st, err, want)
}

func tickErr(t *testing.T, tree *Tree, want string) {
	t.Helper()
	st, err := tree.TickExactlyOnce()
	require.ErrorContains(t, err, want, "tick = %v, %v; want an error containing %q", st, err, want)
}

func TestAsyncAction(t *testing.T) {
	work := N("Work", nil)

	t.Run("RUNNING until the work returns; completion wakes the tree", func(t *testing.T) {
		release := make(chan Status)
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) {
			return func(context.Context) (Status, error) { return <-release, nil }, nil
		})
		tickWant(t, tree, Running)
		tickWant(t, tree, Running)
		release <- Success
		waitWake(t, tree)
		tickWant(t, tree, Success)
		// The root was reset: the next tick starts a new run.
		tickWant(t, tree, Running)
		release <- Failure
		waitWake(t, tree)
		tickWant(t, tree, Failure)
	})

	t.Run("the starting tick is RUNNING even when the work is instant", func(t *testing.T) {
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) {
			return func(context.Context) (Status, error) { return Success, nil }, nil
		})
		tickWant(t, tree, Running)
		waitWake(t, tree)
		tickWant(t, tree, Success)
	})

	t.Run("TickOnce collects a completion that arrives during the tick", func(t *testing.T) {
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) {
			return func(context.Context) (Status, error) { return Success, nil }, nil
		})
		st, err := tree.TickWhileRunning(time.Second)
		require.NoError(t, err, "TickWhileRunning = %v, %v", st, err)
		require.Equal(t, Success, st, "TickWhileRunning = %v, %v", st, err)
	})

	t.Run("start reads the inputs on the tick; the work writes outputs", func(t *testing.T) {
		tree := asyncTree(t, N("Work", A("label", "{who}", "out", "{greeting}")), func(n *Leaf) (AsyncWork, error) {
			who, err := GetInput[string](n, "label")
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) (Status, error) {
				return Success, SetOutput(n, "out", "hello "+who)
			}, nil
		})
		err := tree.Blackboard().Set("who", "dock")
		require.NoError(t, err)
		tickWant(t, tree, Running)
		err = tree.Blackboard().Set("who", "charger") // too late for this run
		require.NoError(t, err)
		waitWake(t, tree)
		tickWant(t, tree, Success)
		v, _ := tree.Blackboard().Get("greeting")
		assert.Equal(t, "hello dock", v, "greeting = %v", v)
	})

	t.Run("an error from the work is the tick's error, with the node's path", func(t *testing.T) {
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) {
			return func(context.Context) (Status, error) { return Failure, errors.New("goal rejected") }, nil
		})
		tickWant(t, tree, Running)
		waitWake(t, tree)
		tickErr(t, tree, "MainTree/Work (Work): goal rejected")
		st := NodeOf(tree.Root()).Status()
		assert.Equal(t, Idle, st, "after the error the node is %v, want IDLE (the tree is halted)", st)
	})

	t.Run("a panic in the work is an error, not a crash", func(t *testing.T) {
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) {
			return func(context.Context) (Status, error) { panic("nil map") }, nil
		})
		tickWant(t, tree, Running)
		waitWake(t, tree)
		tickErr(t, tree, "MainTree/Work (Work): panic in a node: nil map")
	})

	t.Run("the work must finish with SUCCESS or FAILURE", func(t *testing.T) {
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) {
			return func(context.Context) (Status, error) { return Running, nil }, nil
		})
		tickWant(t, tree, Running)
		waitWake(t, tree)
		tickErr(t, tree, "MainTree/Work (Work): the async work returned RUNNING; it must finish with SUCCESS or FAILURE")
	})

	t.Run("an error from start fails the starting tick", func(t *testing.T) {
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) { return nil, errors.New("no goal given") })
		tickErr(t, tree, "MainTree/Work (Work): no goal given")
	})

	t.Run("start returning no work is an error", func(t *testing.T) {
		tree := asyncTree(t, work, func(*Leaf) (AsyncWork, error) { return nil, nil })
		tickErr(t, tree, "MainTree/Work (Work): the async action's start returned no work")
	})

	t.Run("ticked again after completing without a reset, it returns that status", func(t *testing.T) {
		var starts atomic.Int32
		tree := asyncTree(t, N("Pipeline", nil, work), func(*Leaf) (AsyncWork, error) {
			starts.Add(1)
			return func(context.Context) (Status, error) { return Success, nil }, nil
		})
		tickWant(t, tree, Running)
		waitWake(t, tree)
		tickWant(t, tree, Success)
		tickWant(t, tree, Success)
		n := starts.Load()
		assert.Equal(t, int32(1), n, "%d starts, want 1", n)
	})
}

func TestAsyncActionHalt(t *testing.T) {
	t.Run("halt cancels the context and does not wait; the result is dropped", func(t *testing.T) {
		cancelled := make(chan struct{})
		exit := make(chan struct{})
		tree := asyncTree(t, N("Work", nil), func(*Leaf) (AsyncWork, error) {
			return func(ctx context.Context) (Status, error) {
				<-ctx.Done()
				close(cancelled)
				<-exit // a work slow to stop
				return Success, nil
			}, nil
		})
		tickWant(t, tree, Running)
		done := make(chan struct{})
		go func() { tree.Halt(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			require.Fail(t, "Halt waited for the work")
		}
		select {
		case <-cancelled:
		case <-time.After(5 * time.Second):
			require.Fail(t, "the work's context was not cancelled")
		}
		close(exit)
		// The halted run must not wake the tree.
		select {
		case <-tree.WakeC():
			assert.Fail(t, "a halted run woke the tree")
		case <-time.After(50 * time.Millisecond):
		}
	})

	t.Run("a new start waits, RUNNING, for a halted run to exit, and its exit wakes the tree", func(t *testing.T) {
		var starts, live, maxLive atomic.Int32
		exit := make(chan struct{})
		tree := asyncTree(t, N("Work", nil), func(*Leaf) (AsyncWork, error) {
			starts.Add(1)
			return func(ctx context.Context) (Status, error) {
				if n := live.Add(1); n > maxLive.Load() {
					maxLive.Store(n)
				}
				defer live.Add(-1)
				<-ctx.Done()
				<-exit
				return Failure, nil
			}, nil
		})
		tickWant(t, tree, Running)
		tree.Halt()
		tickWant(t, tree, Running) // the halted run is still stopping
		tickWant(t, tree, Running)
		n := starts.Load()
		require.Equal(t, int32(1), n, "%d starts while the halted run was alive, want 1", n)
		close(exit)
		waitWake(t, tree)
		tickWant(t, tree, Running)
		n = starts.Load()
		require.Equal(t, int32(2), n, "%d starts after the halted run exited, want 2", n)
		tree.Halt()
		m := maxLive.Load()
		assert.Equal(t, int32(1), m, "%d runs were alive at once, want 1", m)
	})

	t.Run("10,000 start/halt cycles leave no goroutine behind", func(t *testing.T) {
		opts := goleak.IgnoreCurrent()
		var starts, live, maxLive atomic.Int32
		tree := asyncTree(t, N("Work", nil), func(*Leaf) (AsyncWork, error) {
			starts.Add(1)
			return func(ctx context.Context) (Status, error) {
				if n := live.Add(1); n > maxLive.Load() {
					maxLive.Store(n)
				}
				defer live.Add(-1)
				<-ctx.Done()
				return Failure, ctx.Err()
			}, nil
		})
		pending := 0
		for i := 0; i < 10000; i++ {
			before := starts.Load()
			tickWant(t, tree, Running)
			for starts.Load() == before {
				// The previous run is still stopping: its exit wakes the
				// tree, and the next tick starts the new run.
				pending++
				waitWake(t, tree)
				tickWant(t, tree, Running)
			}
			tree.Halt()
		}
		goleak.VerifyNone(t, opts)
		n := starts.Load()
		assert.Equal(t, int32(10000), n, "%d runs started, want 10000", n)
		m := maxLive.Load()
		assert.Equal(t, int32(1), m, "%d runs were alive at once, want 1", m)
		t.Logf("10000 runs; %d starts waited for the previous run to stop", pending)
	})

	t.Run("a halt from the tree's error path cancels running work", func(t *testing.T) {
		cancelled := make(chan struct{})
		tree := asyncTree(t, N("Parallel", A("success_count", "-1", "failure_count", "1"), N("Work", nil), N("Script", A("code", "nope = 1"))),
			func(*Leaf) (AsyncWork, error) {
				return func(ctx context.Context) (Status, error) {
					<-ctx.Done()
					close(cancelled)
					return Failure, nil
				}, nil
			})
		tickErr(t, tree, "nope")
		select {
		case <-cancelled:
		case <-time.After(5 * time.Second):
			require.Fail(t, "the work was not cancelled when the tree was halted")
		}
	})
}
