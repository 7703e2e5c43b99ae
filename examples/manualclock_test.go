package examples

import (
	"fmt"
	"time"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// waitTree waits 1.5 s, then counts a round; a Script keeps the count on
// the blackboard.
const waitTree = `
<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <Delay delay_msec="1500">
        <Script code="rounds += 1"/>
      </Delay>
    </Sequence>
  </BehaviorTree>
</root>`

// Example_manualClock ticks a tree from XML on a manual clock. Everything
// in a tree that waits (Delay, Timeout, RateController, Sleep, a skill's
// deadline) reads the tree's clock, so a test or a simulator decides when
// time passes, and the same ticks give the same output on any machine.
// A node that waits tells the tree when it wants its next tick
// (Tree.NextWake): a loop can jump there instead of ticking in between,
// as btrobot's tick loop does to tick early.
func Example_manualClock() {
	doc, err := trees.Parse("wait.xml", []byte(waitTree))
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	clock := runtime.NewManualClock(start)
	bb := runtime.NewBlackboard(clock.Now)
	_ = bb.Set("rounds", 0)
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: clock, Blackboard: bb})
	if err != nil {
		fmt.Println(err)
		return
	}

	// A node that waits says when it wants its next tick: jump there.
	status, _ := tree.TickExactlyOnce()
	fmt.Printf("t=%v: %v\n", clock.Now().Sub(start), status)
	if at, ok := tree.NextWake(); ok {
		clock.Set(at)
	}
	status, _ = tree.TickExactlyOnce()
	rounds, _ := bb.Get("rounds")
	fmt.Printf("t=%v: %v, rounds %v\n", clock.Now().Sub(start), status, rounds)

	// Or tick every half second, as a 2 Hz loop would.
	for range 4 {
		clock.Advance(500 * time.Millisecond)
		status, err := tree.TickExactlyOnce()
		if err != nil {
			fmt.Println(err)
			return
		}
		rounds, _ := bb.Get("rounds")
		fmt.Printf("t=%v: %v, rounds %v\n", clock.Now().Sub(start), status, rounds)
	}
	// Output:
	// t=0s: RUNNING
	// t=1.5s: SUCCESS, rounds 1
	// t=2s: RUNNING, rounds 1
	// t=2.5s: RUNNING, rounds 1
	// t=3s: RUNNING, rounds 1
	// t=3.5s: SUCCESS, rounds 2
}
