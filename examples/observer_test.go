package examples

import (
	"fmt"
	"strings"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// doorTree tries the door, then the window.
const doorTree = `
<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Fallback name="get_in">
      <AlwaysFailure name="door"/>
      <AlwaysSuccess name="window"/>
    </Fallback>
  </BehaviorTree>
</root>`

// transitionLog is an Observer: it writes one line per status change.
// Observers are how btrobot's live view, recorders and Groot2 server watch
// a tree; nodes never print. OnTransitions runs on the tick's goroutine
// with a tick's transitions in order (at the tick's end), and must be
// quick: hand slow work to another goroutine. The slice is the tree's,
// reused after the call: keep transitions, not the slice.
type transitionLog struct {
	lines []string
}

func (l *transitionLog) OnTransitions(batch []runtime.Transition) {
	for _, t := range batch {
		l.lines = append(l.lines, fmt.Sprintf("%-20s %v -> %v", t.Node.Path(), t.From, t.To))
	}
}

// Example_observer logs a tree's status transitions with a custom
// Observer. runtime.ObserverFunc adapts a function of one transition,
// called for each transition of a batch.
// The log shows BehaviorTree.CPP's order: a completed Fallback resets its
// children to IDLE before it reports, and a completed root goes back to
// IDLE so that the next tick starts it again.
func Example_observer() {
	doc, err := trees.Parse("door.xml", []byte(doorTree))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{})
	if err != nil {
		fmt.Println(err)
		return
	}
	log := &transitionLog{}
	remove := tree.Observe(log)
	defer remove()

	// An ObserverFunc beside it: count the failures.
	failures := 0
	tree.Observe(runtime.ObserverFunc(func(t runtime.Transition) {
		if t.To == runtime.Failure {
			failures++
		}
	}))

	status, _ := tree.TickOnce()
	fmt.Println(strings.Join(log.lines, "\n"))
	fmt.Println("root:", status, "failures:", failures)
	// Output:
	// Main/get_in          IDLE -> RUNNING
	// Main/get_in/door     IDLE -> FAILURE
	// Main/get_in/window   IDLE -> SUCCESS
	// Main/get_in/door     FAILURE -> IDLE
	// Main/get_in/window   SUCCESS -> IDLE
	// Main/get_in          RUNNING -> SUCCESS
	// Main/get_in          SUCCESS -> IDLE
	// root: SUCCESS failures: 1
}
