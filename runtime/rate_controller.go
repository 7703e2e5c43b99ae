package runtime

import (
	"fmt"
	"math"
	"time"
)

// RateController ticks its child at most hz times a second; between two
// runs it returns RUNNING.
//
//	<RateController hz="1.0">
//	  <ComputePathToPose goal="{goal}" path="{path}"/>   replan once a second
//	</RateController>
//
// Where it comes from: Nav2's RateController decorator
// (nav2_behavior_tree/plugins/decorator/rate_controller.cpp), which the
// Nav2 navigation trees use to replan at a fixed rate; the semantics are
// Nav2's.
//
// Contract:
//   - when the node starts (from IDLE) it reads hz (default 10) and starts
//     its period; the child is ticked on that first tick;
//   - the node is RUNNING; on later ticks it ticks the child when the child
//     is RUNNING, or when a period 1/hz has passed since the start of the
//     period, and otherwise returns RUNNING without ticking it (asking the
//     tree for a tick when the period ends);
//   - a child SUCCESS starts a new period, resets the child and returns
//     SUCCESS; a child FAILURE resets it and returns FAILURE (the period is
//     not restarted); RUNNING returns RUNNING;
//   - a parent that keeps ticking the node after its SUCCESS without
//     resetting it (Nav2's PipelineSequence) sees RUNNING until the period
//     ends and the child runs again; a parent that resets it starts it
//     afresh, child first;
//   - halting halts the child; the next tick starts afresh.
//
// One difference from Nav2, whose code predates SKIPPED and turns it into
// FAILURE: a SKIPPED child makes the node return SKIPPED, as
// BehaviorTree.CPP's own decorators do.
type RateController struct {
	Base
	period time.Duration
	start  time.Time
	first  bool
}

func rateControllerTypes() []NodeType {
	return []NodeType{{
		ID: "RateController", Kind: DecoratorKind,
		Summary: "Ticks its child at most hz times a second (Nav2); RUNNING in between.",
		Ports: []PortSpec{
			InputPort[float64]("hz", "Rate").WithDefault("10"),
		},
		New: func(c *Config) (Node, error) {
			if hz, ok := LiteralAs[float64](c, "hz"); ok {
				if _, err := ratePeriod(hz); err != nil {
					return nil, err
				}
			}
			return &RateController{}, nil
		},
	}}
}

// ratePeriod converts a rate into the period between two runs.
func ratePeriod(hz float64) (time.Duration, error) {
	if !(hz > 0) || math.IsInf(hz, 0) {
		return 0, fmt.Errorf("hz is %v; want a rate > 0", hz)
	}
	p := float64(time.Second) / hz
	if p > math.MaxInt64 {
		return 0, fmt.Errorf("hz is %v; the period 1/hz is longer than a time.Duration holds", hz)
	}
	return time.Duration(p), nil
}

// Tick ticks the child when it runs or its period has passed.
func (n *RateController) Tick() (Status, error) {
	if n.status == Idle {
		hz, err := GetInput[float64](n, "hz")
		if err != nil {
			return Failure, err
		}
		if n.period, err = ratePeriod(hz); err != nil {
			return Failure, err
		}
		n.start, n.first = n.Now(), true
	}
	n.setStatus(Running)
	child := n.children[0]
	if n.first || child.base().status == Running || n.Now().Sub(n.start) >= n.period {
		n.first = false
		st, err := Execute(child)
		if err != nil {
			return st, err
		}
		if st == Success {
			n.start = n.Now()
		}
		if st.Completed() {
			n.completeBeforeChild(st)
		}
		return st, nil
	}
	n.tree.WakeAt(n.start.Add(n.period))
	return Running, nil
}
