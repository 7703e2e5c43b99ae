package examples

import (
	"context"
	"fmt"
	"time"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// dockTree gives docking 30 s: a Timeout halts Dock if it is still
// RUNNING then, and fails.
const dockTree = `
<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Timeout msec="30000">
      <Dock station="dock_west"/>
    </Timeout>
  </BehaviorTree>
</root>`

// Example_asyncSkill writes a robot skill that takes time as an async
// action. The tick that starts it calls the start function on the tick's
// goroutine (read the ports there), which returns the work; the work runs
// in a goroutine of its own while the node is RUNNING, and its return
// wakes the tree. When the tree halts the node (a Timeout expired, a
// reactive sequence's condition failed), the work's context is cancelled:
// the work stops the motors and returns, and its result is dropped. The
// tick never waits for it.
func Example_asyncSkill() {
	contact := make(chan struct{}) // the charger's contact sensor
	stopped := make(chan string)   // what the work did when cancelled

	reg := runtime.NewRegistry()
	err := reg.RegisterAsyncAction("Dock", []runtime.PortSpec{
		runtime.InputPort[string]("station", "the charging station"),
	}, func(n *runtime.Leaf) (runtime.AsyncWork, error) {
		station, err := runtime.GetInput[string](n, "station")
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) (runtime.Status, error) {
			select {
			case <-contact:
				return runtime.Success, nil
			case <-ctx.Done():
				// Halted: undo what the skill started, then return.
				stopped <- "docking at " + station + " cancelled: motors stopped"
				return runtime.Failure, ctx.Err()
			}
		}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	doc, err := trees.Parse("dock.xml", []byte(dockTree))
	if err != nil {
		fmt.Println(err)
		return
	}
	// A manual clock lets the example expire the Timeout at will.
	clock := runtime.NewManualClock(time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC))
	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Clock: clock})
	if err != nil {
		fmt.Println(err)
		return
	}

	// 1. The contact comes: the work returns, wakes the tree, and the
	// next tick collects SUCCESS.
	status, _ := tree.TickOnce()
	fmt.Println("first tick:", status)
	contact <- struct{}{}
	status, err = tree.TickWhileRunning(time.Minute) // ticks on the wake-up
	fmt.Println("docked:", status, err)

	// 2. No contact within 30 s: the Timeout halts Dock, whose work sees
	// its context cancelled.
	status, _ = tree.TickOnce()
	fmt.Println("first tick:", status)
	clock.Advance(30 * time.Second)
	status, err = tree.TickOnce()
	fmt.Println("after 30 s:", status, err)
	fmt.Println(<-stopped)
	// Output:
	// first tick: RUNNING
	// docked: SUCCESS <nil>
	// first tick: RUNNING
	// after 30 s: FAILURE <nil>
	// docking at dock_west cancelled: motors stopped
}
