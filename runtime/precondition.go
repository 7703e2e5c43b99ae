package runtime

import "fmt"

// Precondition ticks its child only when the script in "if" is true, and
// otherwise returns the status in "else".
//
//	<Precondition if="battery > 0.2" else="FAILURE">
//	  <NavigateTo goal="{goal}"/>
//	</Precondition>
//
// Contract (BehaviorTree.CPP v4 Precondition):
//   - while the child is not running, every tick evaluates "if": false
//     returns "else" (FAILURE by default; SUCCESS, RUNNING or SKIPPED may
//     be asked for) without ticking the child;
//   - true ticks the child and returns its status; once the child has been
//     started, "if" is not evaluated again until the child completes;
//   - a completed child is reset;
//   - halting halts the child. As in BT.CPP, a halt does not forget that
//     the child was started: the next tick resumes it without evaluating
//     "if".
//
// "if" is parsed when the tree is built; a script that does not parse is a
// build error.
type Precondition struct {
	Base
	cond    *scriptPort
	started bool
}

func preconditionTypes() []NodeType {
	return []NodeType{{
		ID: "Precondition", Kind: DecoratorKind,
		Summary: "Ticks its child only when the script \"if\" is true; otherwise returns \"else\".",
		Ports: []PortSpec{
			InputPort[string]("if", "A script: the child is ticked when it is true.").AsScript(),
			InputPort[Status]("else", "Return status if condition is false").WithDefault("FAILURE"),
		},
		New: func(c *Config) (Node, error) {
			cond, err := newScriptPort(c, "if", false)
			if err != nil {
				return nil, err
			}
			if st, ok := LiteralAs[Status](c, "else"); ok && st == Idle {
				return nil, fmt.Errorf("port \"else\" is IDLE; want SUCCESS, FAILURE, RUNNING or SKIPPED")
			}
			return &Precondition{cond: cond}, nil
		},
	}}
}

// Tick evaluates the condition unless the child was started, then ticks it.
func (n *Precondition) Tick() (Status, error) {
	elseStatus, err := GetInput[Status](n, "else")
	if err != nil {
		return Failure, err
	}
	if elseStatus == Idle {
		return Failure, fmt.Errorf("port \"else\" is IDLE; want SUCCESS, FAILURE, RUNNING or SKIPPED")
	}
	if !n.started {
		ok, err := n.cond.evalBool(n)
		if err != nil {
			return Failure, err
		}
		if !ok {
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("if: %s; else %v", ExplainScript(n.cond.prog, n.scriptEnv(), false), elseStatus))
			}
			return elseStatus, nil
		}
		n.started = true
	}
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	if st.Completed() {
		n.HaltChild(0)
		n.started = false
	}
	return st, nil
}
