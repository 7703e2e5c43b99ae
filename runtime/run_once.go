package runtime

// RunOnce runs its child to completion once; after that it is skipped, or
// repeats the child's first result without ticking it again.
//
//	<RunOnce then_skip="true">
//	  <Script code="visits := 0"/>   run on the first pass only
//	</RunOnce>
//
// Contract (BehaviorTree.CPP v4 RunOnce):
//   - until the child has completed once, the node becomes RUNNING, ticks
//     the child and returns its status (a RUNNING child is resumed on the
//     next ticks);
//   - when the child completes it is reset and its status remembered;
//   - from then on the child is never ticked again: the node returns
//     SKIPPED when then_skip (read on every tick) is true, the default, or
//     the remembered status when it is false;
//   - halting halts the child but does not forget a completed run: the
//     node runs once per tree.
type RunOnce struct {
	Base
	done   bool
	result Status
}

func runOnceTypes() []NodeType {
	return []NodeType{{
		ID: "RunOnce", Kind: DecoratorKind,
		Summary: "Runs its child to completion once; then is SKIPPED, or repeats the child's first status.",
		Ports: []PortSpec{
			InputPort[bool]("then_skip", "If true, skip after the first execution, otherwise return the same NodeStatus returned once by the child.").WithDefault("true"),
		},
		New: func(*Config) (Node, error) { return &RunOnce{}, nil },
	}}
}

// Tick ticks the child until it has completed once, then skips or repeats.
var ranOnceReason = map[Status]string{
	Success: "ran once already; its child returned SUCCESS",
	Failure: "ran once already; its child returned FAILURE",
}

func (n *RunOnce) Tick() (Status, error) {
	skip, err := GetInput[bool](n, "then_skip")
	if err != nil {
		skip = true // BT.CPP skips when the port cannot be read
	}
	if n.done {
		if skip {
			return Skipped, nil
		}
		n.SetReason(ranOnceReason[n.result])
		return n.result, nil
	}
	n.setStatus(Running)
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	if st.Completed() {
		n.done, n.result = true, st
		n.HaltChild(0)
	}
	return st, nil
}
