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
// # Saving a file keeps it
//
// [Write] writes a loaded [runtime.Document] back as the file it came
// from, so that an editor (the studio's) can open a file and save it
// without losing what it does not edit. Load → Write → Load gives the same
// document, and every shipped mission is written back byte for byte. Kept:
//
//   - comments, each attached to the element after it
//     ([runtime.Notes].Comments of a node, a tree, a model, an <include>,
//     the <TreeNodesModel> or <root>) or, after the last child, to the end
//     of its parent (Notes.End), so that a comment moves and is deleted
//     with its node;
//   - <include>s, where they stood (Document.Includes): the trees and
//     models they bring in are in the document, marked with the include
//     (TreeSpec.Include, NodeModel.Include), and are not written — the
//     <include> is;
//   - blank lines before an element, between its comments and it, and
//     before an end tag; attributes the file put on lines of their own
//     (aligned under the first) and values it wrote over several lines (a
//     script); whether the file had an XML declaration;
//   - attribute order, editors' own attributes, models and metadata.
//
// What the text loses (the meaning stays): indentation is two spaces a
// level, an element a line, continuation lines of a tag align under its
// first attribute; "<X />" and "<X></X>" become "<X/>"; values are
// written in double quotes with the writer's escapes (&gt;, &quot;, and
// &#10; for a line end in a value the file wrote on one line); <root>
// starts with BTCPP_format and main_tree_to_execute; any XML declaration
// becomes `<?xml version="1.0" encoding="UTF-8"?>`; a byte order mark,
// CRLF line ends and processing instructions are not kept; a comment on
// the line of an element gets a line of its own; blank lines between two
// comments, or between the last comment and an end tag, go. Comments that
// the model has no place for move rather than go: those inside a node
// model (between its ports, inside a port or its <MetadataFields>) are
// written after its ports, those after </root> before it. Comments inside
// an element the loader reports as unknown are not kept (nor is the
// element). Nav2's trees (testdata/nav2) save with 3 of their 412 lines
// changed, in white space only (TestNav2SaveKeepsMeaning logs them); of
// the 118 files of missions/ and testdata/ that load, 109 are written back
// byte for byte.
//
// Like BehaviorTree.CPP, the loader reads some files that are not
// well-formed XML ("--" inside a comment, say), which xmllint, browsers and
// most XML tools reject; [Lint] finds those places, and `btrobot check`
// prints them as warnings.
package trees
