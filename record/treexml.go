package record

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// MaxNodes is the largest tree BT.CPP's formats can describe: a .btlog and
// Groot2's protocol carry a node's UID in 16 bits.
const MaxNodes = 65535

// TooManyNodesError says a tree is past the 16-bit node UIDs of BT.CPP's
// .btlog and of Groot2's protocol, so they would draw a wrong picture.
type TooManyNodesError struct{ Nodes int }

func (e *TooManyNodesError) Error() string {
	return fmt.Sprintf("the tree has %d nodes; BT.CPP's .btlog and Groot2 number nodes in 16 bits (at most %d): split the mission or record it as SQLite (.db3)", e.Nodes, MaxNodes)
}

// TreeXML writes the built tree as BT.CPP's WriteTreeToXML does for its
// loggers and for Groot2: one <BehaviorTree> per tree instance (the main
// tree, then every SubTree in depth-first order) with its _fullpath, every
// node with its _uid, and the palette's <TreeNodesModel> (empty when
// palette is nil). doc is the document tree was built from; its specs give
// the attributes as written.
func TreeXML(tree *runtime.Tree, doc *runtime.Document, palette *runtime.Registry) (string, error) {
	if tree == nil || tree.Root() == nil {
		return "", fmt.Errorf("tree XML: no tree")
	}
	if doc == nil {
		return "", fmt.Errorf("tree XML: no document to take the node attributes from")
	}
	if n := len(tree.Nodes()); n > MaxNodes {
		return "", &TooManyNodesError{Nodes: n}
	}
	root := runtime.NodeOf(tree.Root())
	mainID, _, _ := strings.Cut(root.Path(), "/")
	main := doc.Tree(mainID)
	if main == nil || main.Root == nil {
		return "", fmt.Errorf("tree XML: the document has no tree %q, the one the tree was built from", mainID)
	}
	w := &xmlOut{doc: doc}
	w.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<root BTCPP_format="4">` + "\n")
	w.instances = append(w.instances, instance{id: mainID, root: main.Root, node: tree.Root()})
	w.collect(main.Root, tree.Root())
	for _, in := range w.instances {
		w.WriteString(`  <BehaviorTree ID="`)
		w.escape(in.id)
		w.WriteString(`" _fullpath="`)
		w.escape(in.path)
		w.WriteString("\">\n")
		w.node(in.root, in.node, 2)
		w.WriteString("  </BehaviorTree>\n")
	}
	if w.err != nil {
		return "", w.err
	}
	w.WriteString(paletteModels(palette))
	w.WriteString("</root>\n")
	return w.String(), nil
}

// conditionAttrs are the pre- and post-condition attributes, the only ones
// starting with '_' that BT.CPP writes back.
var conditionAttrs = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range runtime.PreConditions {
		m[c] = true
	}
	for _, c := range runtime.PostConditions {
		m[c] = true
	}
	return m
}()

type instance struct {
	id, path string
	root     *runtime.NodeSpec
	node     runtime.Node
}

type xmlOut struct {
	bytes.Buffer
	doc       *runtime.Document
	instances []instance
	err       error
}

func (w *xmlOut) escape(s string) { xml.EscapeText(w, []byte(s)) }

// collect lists the subtree instances under spec/node in depth-first
// order, the order BT.CPP creates (and writes) them.
func (w *xmlOut) collect(spec *runtime.NodeSpec, node runtime.Node) {
	b := runtime.NodeOf(node)
	kids := b.Children()
	if spec.Type == "SubTree" {
		id, _ := spec.Attr("ID")
		t := w.doc.Tree(id)
		if t == nil || t.Root == nil || len(kids) != 1 {
			w.fail(b, "its tree %q is not in the document", id)
			return
		}
		w.instances = append(w.instances, instance{id: id, path: b.Path(), root: t.Root, node: kids[0]})
		w.collect(t.Root, kids[0])
		return
	}
	if lu, ok := node.(*runtime.LookUp); ok {
		// A leaf in the XML whose goals' trees are instances of their
		// own, as a SubTree's is, at the path LookUp/TreeID.
		for i, id := range lu.TreeIDs() {
			t := w.doc.Tree(id)
			if t == nil || t.Root == nil || i >= len(kids) {
				w.fail(b, "its tree %q is not in the document", id)
				return
			}
			w.instances = append(w.instances, instance{id: id, path: b.Path() + "/" + id, root: t.Root, node: kids[i]})
			w.collect(t.Root, kids[i])
		}
		return
	}
	if len(kids) != len(spec.Children) {
		w.fail(b, "the document gives it %d children, the tree %d", len(spec.Children), len(kids))
		return
	}
	for i, c := range kids {
		w.collect(spec.Children[i], c)
	}
}

func (w *xmlOut) fail(b *runtime.Base, format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("tree XML: %s: the tree was not built from this document: %s", b.Path(), fmt.Sprintf(format, args...))
	}
}

func (w *xmlOut) node(spec *runtime.NodeSpec, node runtime.Node, level int) {
	if w.err != nil {
		return
	}
	b := runtime.NodeOf(node)
	w.WriteString(strings.Repeat("  ", level))
	w.WriteString("<" + spec.Type)
	sub := spec.Type == "SubTree"
	if sub {
		id, _ := spec.Attr("ID")
		w.attr("ID", id)
		w.attr("_fullpath", b.Path())
	} else {
		w.attr("name", b.Name())
	}
	w.attr("_uid", strconv.FormatUint(uint64(b.UID()), 10))
	for _, a := range spec.Attrs {
		if a.Name == "name" || a.Name == "ID" || (strings.HasPrefix(a.Name, "_") && !conditionAttrs[a.Name]) {
			continue // as BT.CPP: ports and conditions only, no _autoremap, no editor's attributes
		}
		w.attr(a.Name, a.Value)
	}
	kids := b.Children()
	if _, lookUp := node.(*runtime.LookUp); sub || lookUp || len(kids) == 0 {
		w.WriteString("/>\n")
		return
	}
	w.WriteString(">\n")
	for i, c := range kids {
		w.node(spec.Children[i], c, level+1)
	}
	w.WriteString(strings.Repeat("  ", level))
	w.WriteString("</" + spec.Type + ">\n")
}

func (w *xmlOut) attr(name, value string) {
	w.WriteString(" " + name + `="`)
	w.escape(value)
	w.WriteString(`"`)
}

// paletteModels returns the <TreeNodesModel> element of the palette's
// Groot2 export, indented under <root>.
func paletteModels(palette *runtime.Registry) string {
	if palette == nil {
		return "  <TreeNodesModel/>\n"
	}
	var buf bytes.Buffer
	if err := trees.WriteGrootModel(&buf, palette); err != nil {
		return "  <TreeNodesModel/>\n"
	}
	s := buf.String()
	i := strings.Index(s, "<TreeNodesModel")
	j := strings.LastIndex(s, "</TreeNodesModel>")
	if i < 0 || j < i {
		return "  <TreeNodesModel/>\n"
	}
	return "  " + s[i:j+len("</TreeNodesModel>")] + "\n"
}
