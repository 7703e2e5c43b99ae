// Package runtime is btrobot's behavior-tree engine: node statuses, the node
// base every node embeds, the typed blackboard and ports, the node registry,
// the built-in nodes with BehaviorTree.CPP v4 semantics, and the fixed-rate
// tick loop.
//
// A tree is built from a [TreeSpec] (what the XML loader in package trees
// produces, or what Go code writes by hand) against a [Registry]: the
// registry is the single source of truth for node types, their ports and
// their documentation.
//
//	reg := runtime.NewRegistry()          // the built-in palette
//	tree, err := runtime.Build(reg, doc, runtime.BuildConf{})
//	status, err := tree.TickOnce()
//
// The contracts (tick, halt, async leaves, scan cycle, blackboard, time,
// errors) are those of ARCHITECTURE.md; each node type's contract is in the
// comment at the top of its file.
//
// Why a tree ended as it did: nodes state the reason for what they return
// ([Base.SetReason], [Fail] from Go-written leaves), and after the root
// completes [Tree.Explain] returns the chain of nodes from the root to the
// leaf whose result decided it, each with its reason (and, on a node that
// fails only once all its alternatives did, such as a Fallback, each
// alternative's own chain: [Cause].Alternatives); [FormatExplanation]
// prints it. Reasons are kept only while the tree is explaining
// ([Tree.SetExplaining]); a tree that nobody asks why pays for none.
//
//	tree.SetExplaining(true)
//	if st, _ := tree.TickWhileRunning(period); st == runtime.Failure {
//		fmt.Print(runtime.FormatExplanation(tree.Explain()))
//	}
package runtime
