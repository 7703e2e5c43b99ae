package trees

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/btrobot/btrobot/runtime"
)

// MaxMermaidAttrs is how many of a node's attributes a Mermaid picture
// shows under its type; the rest are summed up as "…".
const MaxMermaidAttrs = 3

// WriteMermaid draws the tree called id of doc as a Mermaid flowchart, top
// down, children in order from left to right, so that a document (such as
// docs/missions.md) shows a picture drawn from the XML itself and never
// drifts from it.
//
//	flowchart TD
//	  n1["patrol<br/>Sequence"]
//	  n1 --> n2[["WaitForRobot"]]
//
// Each node shows its name (when it has one) and its type, then up to
// MaxMermaidAttrs of its attributes as written (ports; not the scripts and
// flags whose names start with '_'); the shape says its kind:
// a rectangle for a control node, a hexagon for a decorator, a stadium for
// an action, an asymmetric box for a condition, a subroutine box for a
// SubTree (which is drawn as a box, not expanded: draw its tree on its
// own). The kind comes from reg, else from the document's node models;
// a node of an unknown type is drawn as an action. An empty id draws the
// main tree.
func WriteMermaid(w io.Writer, doc *runtime.Document, id string, reg *runtime.Registry) error {
	if doc == nil {
		return fmt.Errorf("mermaid: no document")
	}
	if id == "" {
		id = doc.Main
		if id == "" && len(doc.Trees) == 1 {
			id = doc.Trees[0].ID
		}
	}
	t := doc.Tree(id)
	if t == nil {
		ids := make([]string, len(doc.Trees))
		for i, tr := range doc.Trees {
			ids[i] = tr.ID
		}
		return fmt.Errorf("mermaid: the document has no tree %q%s", id, didYouMean(id, ids))
	}
	m := &mermaid{w: bufio.NewWriter(w), doc: doc, reg: reg}
	m.line("flowchart TD")
	if t.Root != nil {
		m.node(t.Root)
	}
	return m.w.Flush()
}

type mermaid struct {
	w   *bufio.Writer
	doc *runtime.Document
	reg *runtime.Registry
	n   int
}

func (m *mermaid) line(s string) { m.w.WriteString(s + "\n") }

// node writes s and its subtree and returns s's Mermaid ID.
func (m *mermaid) node(s *runtime.NodeSpec) string {
	m.n++
	id := fmt.Sprintf("n%d", m.n)
	open, close := m.shape(s)
	m.line("  " + id + open + `"` + m.label(s) + `"` + close)
	for _, c := range s.Children {
		cid := m.node(c)
		m.line("  " + id + " --> " + cid)
	}
	return id
}

// shape returns the brackets of a node's kind.
func (m *mermaid) shape(s *runtime.NodeSpec) (string, string) {
	kind := runtime.ActionKind
	if s.Type == "SubTree" {
		kind = runtime.SubTreeKind
	} else if m.reg != nil {
		if t, ok := m.reg.Lookup(s.Type); ok {
			kind = t.Kind
		} else if mo := m.doc.Model(s.Type); mo != nil {
			kind = mo.Kind
		}
	} else if mo := m.doc.Model(s.Type); mo != nil {
		kind = mo.Kind
	}
	switch kind {
	case runtime.ControlKind:
		return "[", "]"
	case runtime.DecoratorKind:
		return "{{", "}}"
	case runtime.ConditionKind:
		return ">", "]"
	case runtime.SubTreeKind:
		return "[[", "]]"
	}
	return "([", "])"
}

// label is the node's name and type, then its attributes.
func (m *mermaid) label(s *runtime.NodeSpec) string {
	var parts []string
	typ := s.Type
	if s.Type == "SubTree" {
		typ, _ = s.Attr("ID")
	}
	if name, ok := s.Attr("name"); ok && name != "" && name != typ {
		parts = append(parts, escapeMermaid(name))
	}
	parts = append(parts, "<b>"+escapeMermaid(typ)+"</b>")
	var attrs []string
	for _, a := range s.Attrs {
		if a.Name == "name" || a.Name == "ID" || strings.HasPrefix(a.Name, "_") {
			continue // the name is shown; scripts and remapping flags would crowd the box
		}
		attrs = append(attrs, a.Name+"="+a.Value)
	}
	for i, a := range attrs {
		if i == MaxMermaidAttrs {
			parts = append(parts, "…")
			break
		}
		if r := []rune(a); len(r) > 40 {
			a = string(r[:39]) + "…"
		}
		parts = append(parts, escapeMermaid(a))
	}
	return strings.Join(parts, "<br/>")
}

// escapeMermaid makes text safe inside a quoted Mermaid label: quotes and
// the characters Markdown or HTML would read are written as entities.
func escapeMermaid(s string) string {
	r := strings.NewReplacer(
		`"`, "#quot;",
		"&", "#amp;",
		"<", "#lt;",
		">", "#gt;",
		"#", "#35;",
		"|", "#124;",
		"`", "#96;",
		"\n", " ",
	)
	return r.Replace(s)
}
