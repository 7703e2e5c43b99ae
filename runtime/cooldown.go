package runtime

import (
	"fmt"
	"time"
)

// Cooldown keeps its child from starting again within period after a run
// of it ended.
//
//	<Cooldown period="10s">
//	  <ClearCostmap/>   at most one clearing started every 10 s
//	</Cooldown>
//
// Where it comes from: the Cooldown decorator of Unreal Engine's behavior
// trees ("locks execution of a node or branch until the cooldown time
// expires"), itself from the game-AI literature on behavior trees
// (Champandard, AiGameDev.com, 2007–2008), where a decorator that fails
// while cooling down keeps a costly or disruptive behavior from being
// retried in a tight loop. On a robot: a recovery that must not be
// retried more often than every few seconds.
//
// Contract:
//   - while cooling down, the node returns FAILURE without ticking the
//     child: a parent Fallback moves on to its alternatives, which is what
//     a branch that may not run now should look like. (The choice of
//     FAILURE rather than RUNNING or SKIPPED is ours; Unreal's decorator
//     likewise fails the branch);
//   - otherwise the node becomes RUNNING, ticks its child and returns its
//     status; period is read when a run starts;
//   - a run ends when the child completes (SUCCESS or FAILURE, then reset)
//     or when the node is halted while the child is running: either starts
//     the cooldown, measured on the tree's clock. A SKIPPED child did not
//     run and starts no cooldown;
//   - period 0 never cools down.
type Cooldown struct {
	Base
	period  time.Duration
	inRun   bool
	readyAt time.Time
}

func cooldownTypes() []NodeType {
	return []NodeType{{
		ID: "Cooldown", Kind: DecoratorKind,
		Summary: "After a run of its child ends, returns FAILURE without ticking it until period has passed.",
		Ports: []PortSpec{
			InputPort[time.Duration]("period", "How long after a run of the child ends before it may start again (1.5s, 200ms, or milliseconds)."),
		},
		New: func(c *Config) (Node, error) {
			if d, ok := LiteralAs[time.Duration](c, "period"); ok && d < 0 {
				return nil, fmt.Errorf("period is %v; want a duration >= 0", d)
			}
			return &Cooldown{}, nil
		},
	}}
}

// Tick refuses to start the child while cooling down, else ticks it.
func (n *Cooldown) Tick() (Status, error) {
	fresh := false
	if !n.inRun {
		if n.Now().Before(n.readyAt) {
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("cooling down for another %v", n.readyAt.Sub(n.Now())))
			}
			return Failure, nil
		}
		d, err := GetInput[time.Duration](n, "period")
		if err != nil {
			return Failure, err
		}
		if d < 0 {
			return Failure, fmt.Errorf("period is %v; want a duration >= 0", d)
		}
		n.period, n.inRun, fresh = d, true, true
	}
	n.setStatus(Running)
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	switch {
	case st.Completed():
		n.HaltChild(0)
		n.endRun()
	case st == Skipped && fresh:
		n.inRun = false
	}
	return st, nil
}

func (n *Cooldown) endRun() {
	n.inRun = false
	n.readyAt = n.Now().Add(n.period)
}

// Halt halts the child; a run cut short starts the cooldown too.
func (n *Cooldown) Halt() {
	if n.inRun {
		n.endRun()
	}
	n.ResetChildren()
}
