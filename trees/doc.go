// Package trees turns behavior trees written as BehaviorTree.CPP v4 XML into
// [runtime.Document]s and back, and exports the node palette of a
// [runtime.Registry] for editors (a Groot2 TreeNodesModel, an XSD) and for
// people (the Markdown node reference in docs/nodes.md).
//
// The loader only reads: what a node type is, which ports it has and whether
// a tree is sound is decided by [runtime.Check] and [runtime.Build], driven by
// the registry, so there is one source of truth. The loader reports what
// only it can see: XML that is not well-formed, a file that exceeds a limit,
// a <BehaviorTree> with two roots, an <include> that cannot be followed.
//
//	doc, err := trees.Load("missions/patrol.xml")
//	if err != nil { ... }           // every problem, each file:line:col: message
//	tree, err := runtime.Build(reg, doc, runtime.BuildConf{})
//
// Hostile files do no harm: sizes, nesting and counts are bounded (see
// [MaxFileSize] and its neighbours), DTDs and entity definitions are
// refused, and no input makes the loader panic.
//
// Like BehaviorTree.CPP, the loader reads some files that are not
// well-formed XML ("--" inside a comment, say), which xmllint, browsers and
// most XML tools reject; [Lint] finds those places, and `btrobot check`
// prints them as warnings.
package trees
