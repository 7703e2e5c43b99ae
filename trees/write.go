package trees

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/btrobot/btrobot/runtime"
)

// Write writes doc as BehaviorTree.CPP v4 XML: an XML declaration,
// <root BTCPP_format="4"> with main_tree_to_execute when doc names one,
// the file's <include>s and trees in their order, then a <TreeNodesModel>
// when doc has models of its own. Nodes are written in the compact form
// (<Sequence>, <MyAction/>), attributes in their order, two spaces per
// level.
//
// Loading what Write wrote gives the same Document, positions aside: every
// attribute (editors' own, such as Groot2's _fullpath and _uid, included),
// every model port with its type name as written, default and description.
// Editors' own attributes of <root> and of model elements (Groot2's
// project_name and editable) and every <Metadata> entry are kept too.
//
// What a file said besides its trees is written back from the Document:
// its comments and blank lines (runtime.Notes), whether it had an XML
// declaration, and its <include>s — a tree or model that came from an
// include (TreeSpec.Include, NodeModel.Include) is not written, the
// <include> is. A document built in Go (Notes nil) gets a blank line
// between trees. How far the text of a file opened and saved stays as it
// was is said in the package documentation.
//
// A node type that is not an XML name is written in the explicit form
// (<Action ID="my type"/>), so it too reads back as written.
//
// Write fails, writing nothing, when doc holds something XML cannot say: an
// attribute name that is not an XML name, a character XML does not allow,
// an attribute given twice, a node without a type, a comment holding "-->",
// a tree or model of an include doc does not list.
func Write(w io.Writer, doc *runtime.Document) error {
	if err := checkWritable(doc); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	x := &xmlWriter{w: bw, loaded: doc.Notes != nil}
	if !doc.NoDecl {
		x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	}
	x.lead(doc.Notes, 0, false)
	x.raw(`<root`)
	x.start(doc.Notes, 0, "root")
	x.attr("BTCPP_format", "4")
	if doc.Main != "" {
		x.attr("main_tree_to_execute", doc.Main)
	}
	for _, a := range doc.Attrs {
		x.attr(a.Name, a.Value)
	}
	x.raw(">\n")
	written := false // something is written inside <root>
	inc := 0         // the includes written
	own := 0         // the trees written
	for _, t := range doc.Trees {
		if t.Include != nil {
			continue
		}
		for ; inc < len(doc.Includes) && doc.Includes[inc].At <= own; inc++ {
			x.include(doc.Includes[inc])
			written = true
		}
		own++
		x.lead(t.Notes, 1, written)
		written = true
		x.indent(1)
		x.raw("<BehaviorTree")
		x.start(t.Notes, 1, "BehaviorTree")
		x.attr("ID", t.ID) // even when empty: a lone tree without ID would get a name
		for _, a := range t.Attrs {
			x.attr(a.Name, a.Value)
		}
		if t.Root == nil && !hasEnd(t.Notes) {
			x.raw("/>\n")
			continue
		}
		x.raw(">\n")
		if t.Root != nil {
			x.node(t.Root, 2)
		}
		x.end(t.Notes, 1)
		x.raw("</BehaviorTree>\n")
	}
	for ; inc < len(doc.Includes); inc++ {
		x.include(doc.Includes[inc])
		written = true
	}
	models := 0
	for _, m := range doc.Models {
		if m.Include == nil {
			models++
		}
	}
	if models > 0 || doc.ModelsNotes != nil && len(doc.ModelsNotes.Comments)+len(doc.ModelsNotes.End) > 0 {
		x.lead(doc.ModelsNotes, 1, written)
		x.indent(1)
		x.raw("<TreeNodesModel>\n")
		for _, m := range doc.Models {
			if m.Include == nil {
				x.model(m, m.TypeNames)
			}
		}
		x.end(doc.ModelsNotes, 1)
		x.raw("</TreeNodesModel>\n")
	}
	x.end(doc.Notes, 0)
	x.raw("</root>\n")
	return bw.Flush()
}

// checkWritable finds what XML cannot say before anything is written.
func checkWritable(doc *runtime.Document) error {
	var errs runtime.ErrorList
	add := func(pos runtime.Pos, format string, args ...any) {
		errs = append(errs, &runtime.BuildError{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	text := func(pos runtime.Pos, what, s string) {
		if msg := unwritable(s); msg != "" {
			add(pos, "%s: %s", what, msg)
		}
	}
	attrs := func(pos runtime.Pos, elem string, as []runtime.Attr, reserved ...string) {
		for i, a := range as {
			if !xmlName(a.Name) {
				add(orPos(a.Pos, pos), "<%s>: attribute name %q is not an XML name", elem, a.Name)
			}
			for _, r := range reserved {
				if a.Name == r {
					add(orPos(a.Pos, pos), "<%s>: attribute %s is written from the document itself and cannot be an attribute too", elem, r)
				}
			}
			for _, b := range as[:i] {
				if b.Name == a.Name {
					add(orPos(a.Pos, pos), "<%s>: attribute %s is given twice", elem, a.Name)
				}
			}
			text(orPos(a.Pos, pos), "attribute "+a.Name, a.Value)
		}
	}
	notes := func(pos runtime.Pos, n *runtime.Notes) {
		if n == nil {
			return
		}
		for _, cs := range [2][]string{n.Comments, n.End} {
			for _, c := range cs {
				text(pos, "comment", c)
				if strings.Contains(c, "-->") {
					add(pos, "comment %q: a comment cannot hold -->", c)
				}
			}
		}
	}
	included := func(pos runtime.Pos, what, id string, inc *runtime.Include) {
		if inc != nil && !slices.Contains(doc.Includes, inc) {
			add(pos, "%s %s comes from an <include> that the document does not list", what, id)
		}
	}
	text(runtime.Pos{}, "main_tree_to_execute", doc.Main)
	attrs(runtime.Pos{}, "root", doc.Attrs, "BTCPP_format", "main_tree_to_execute")
	notes(runtime.Pos{}, doc.Notes)
	notes(runtime.Pos{}, doc.ModelsNotes)
	for _, inc := range doc.Includes {
		if inc == nil {
			add(runtime.Pos{}, "a nil include")
			continue
		}
		text(inc.Pos, "include path", inc.Path)
		text(inc.Pos, "include ros_pkg", inc.RosPkg)
		notes(inc.Pos, inc.Notes)
	}
	var walk func(n *runtime.NodeSpec, depth int)
	walk = func(n *runtime.NodeSpec, depth int) {
		if n == nil {
			add(runtime.Pos{}, "a nil node")
			return
		}
		if depth > MaxDepth {
			add(n.Pos, "nodes nested more than %d deep", MaxDepth)
			return
		}
		elem, explicit := nodeElement(n)
		switch {
		case n.Type == "":
			add(n.Pos, "a node without a type")
		case n.Type != "SubTree" && !explicit:
			if _, has := n.Attr("ID"); has {
				add(n.AttrPos("ID"), "<%s>: only SubTree nodes have an ID attribute", n.Type)
			}
		}
		text(n.Pos, "node type", n.Type)
		notes(n.Pos, n.Notes)
		if explicit {
			attrs(n.Pos, elem, n.Attrs, "ID")
		} else {
			attrs(n.Pos, elem, n.Attrs)
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	for _, t := range doc.Trees {
		text(t.Pos, "tree ID", t.ID)
		notes(t.Pos, t.Notes)
		included(t.Pos, "tree", t.ID, t.Include)
		attrs(t.Pos, "BehaviorTree", t.Attrs, "ID")
		if t.Root != nil {
			walk(t.Root, 2)
		}
	}
	for _, m := range doc.Models {
		text(m.Pos, "model ID", m.ID)
		notes(m.Pos, m.Notes)
		included(m.Pos, "model", m.ID, m.Include)
		text(m.Pos, "description of model "+m.ID, m.Description)
		attrs(m.Pos, m.Kind.String(), m.Attrs, "ID")
		attrs(m.Pos, "Metadata", m.Metadata)
		for _, p := range m.Ports {
			text(m.Pos, "port name", p.Name)
			text(m.Pos, "port "+p.Name, p.Default)
			text(m.Pos, "port "+p.Name, p.Description)
			text(m.Pos, "port "+p.Name, m.TypeNames[p.Name])
		}
		if m.Kind > runtime.SubTreeKind {
			add(m.Pos, "model %s: unknown kind %v", m.ID, m.Kind)
		}
	}
	return errs.Err()
}

func orPos(p, q runtime.Pos) runtime.Pos {
	if p.Line == 0 {
		return q
	}
	return p
}

// unwritable says why s cannot be written in XML, or "".
func unwritable(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return "invalid UTF-8"
		}
		if !xmlChar(r) {
			return fmt.Sprintf("character U+%04X cannot be written in XML", r)
		}
		i += size
	}
	return ""
}

func xmlName(s string) bool {
	if s == "" || !nameStart[s[0]] || len(s) > MaxNameSize {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !nameChar[s[i]] {
			return false
		}
	}
	return utf8.ValidString(s)
}

type xmlWriter struct {
	w      *bufio.Writer
	loaded bool // the document was read from a file: blank lines are where its notes say
	// The layout of the start tag being written: the attributes that
	// start a line, where that line starts them, and the attributes whose
	// line ends are written as they are.
	breaks, lines []string
	col           int
}

// start begins the attributes of element elem at level: those n.Breaks
// names are written on a line of their own, under the first, and those
// n.Multiline names with their line ends as they are.
func (x *xmlWriter) start(n *runtime.Notes, level int, elem string) {
	x.breaks, x.lines = nil, nil
	if n != nil {
		x.breaks, x.lines = n.Breaks, n.Multiline
		x.col = len(indentUnit)*level + 1 + len(elem) + 1
	}
}

// lead writes what comes before an element at level: a blank line (where
// n says, or for a document built in Go where canonical says) and the
// comments.
func (x *xmlWriter) lead(n *runtime.Notes, level int, canonical bool) {
	blank := canonical && !x.loaded
	if n != nil && x.loaded {
		blank = n.Blank
	}
	if blank {
		x.raw("\n")
	}
	if n != nil {
		x.comments(n.Comments, level)
		if n.Apart && len(n.Comments) > 0 && x.loaded {
			x.raw("\n")
		}
	}
}

// end writes what comes before the end tag of an element at level: a
// blank line and the comments after its last child, then the indentation
// of the end tag.
func (x *xmlWriter) end(n *runtime.Notes, level int) {
	if n != nil {
		if n.EndBlank {
			x.raw("\n")
		}
		x.comments(n.End, level+1)
	}
	x.indent(level)
}

func (x *xmlWriter) comments(cs []string, level int) {
	for _, c := range cs {
		x.indent(level)
		x.raw("<!--")
		x.raw(c)
		x.raw("-->\n")
	}
}

// hasEnd reports whether n holds comments that need an end tag to stand
// before.
func hasEnd(n *runtime.Notes) bool { return n != nil && len(n.End) > 0 }

func (x *xmlWriter) include(inc *runtime.Include) {
	x.breaks, x.lines = nil, nil
	x.lead(inc.Notes, 1, false)
	x.indent(1)
	x.raw("<include")
	if inc.RosPkg != "" {
		x.attr("ros_pkg", inc.RosPkg)
	}
	if inc.Path != "" || inc.RosPkg == "" {
		x.attr("path", inc.Path)
	}
	if !hasEnd(inc.Notes) {
		x.raw("/>\n")
		return
	}
	x.raw(">\n")
	x.end(inc.Notes, 1)
	x.raw("</include>\n")
}

func (x *xmlWriter) raw(s string) { x.w.WriteString(s) }

const indentUnit = "  "

func (x *xmlWriter) indent(level int) {
	for range level {
		x.w.WriteString(indentUnit)
	}
}

// attr writes ` name="value"`, escaping so that any parser reads value back
// exactly: line ends and tabs as character references, since XML parsers
// that normalize attribute values would turn them into spaces — unless
// the file wrote the value over several lines (a script, say), which is
// written so again.
func (x *xmlWriter) attr(name, value string) {
	if len(x.breaks) > 0 && slices.Contains(x.breaks, name) {
		x.w.WriteByte('\n')
		for range x.col {
			x.w.WriteByte(' ')
		}
	} else {
		x.w.WriteByte(' ')
	}
	x.w.WriteString(name)
	x.w.WriteString(`="`)
	x.escape(value, true, len(x.lines) > 0 && slices.Contains(x.lines, name))
	x.w.WriteByte('"')
}

// escape writes s escaped for an attribute value (attr) or for text; lines
// keeps an attribute's line ends and tabs as they are.
func (x *xmlWriter) escape(s string, attr, lines bool) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			if !attr {
				continue
			}
			esc = "&quot;"
		case '\n':
			if !attr || lines {
				continue
			}
			esc = "&#10;"
		case '\r':
			esc = "&#13;"
		case '\t':
			if !attr || lines {
				continue
			}
			esc = "&#9;"
		default:
			continue
		}
		x.w.WriteString(s[last:i])
		x.w.WriteString(esc)
		last = i + 1
	}
	x.w.WriteString(s[last:])
}

// nodeElement returns the element a node is written as: its type (the
// compact form), or Action or Control with the type as ID (the explicit
// form) when the type is named like a kind or is not an XML name.
func nodeElement(n *runtime.NodeSpec) (elem string, explicit bool) {
	switch {
	case explicitKind(n.Type):
		return n.Type, true
	case !xmlName(n.Type) && len(n.Children) > 0:
		return "Control", true
	case !xmlName(n.Type):
		return "Action", true
	}
	return n.Type, false
}

func (x *xmlWriter) node(n *runtime.NodeSpec, level int) {
	x.lead(n.Notes, level, false)
	x.indent(level)
	x.w.WriteByte('<')
	elem, explicit := nodeElement(n)
	x.raw(elem)
	if explicit {
		x.breaks, x.lines = nil, nil
		x.attr("ID", n.Type)
	}
	x.start(n.Notes, level, elem)
	for _, a := range n.Attrs {
		x.attr(a.Name, a.Value)
	}
	if len(n.Children) == 0 && !hasEnd(n.Notes) {
		x.raw("/>\n")
		return
	}
	x.raw(">\n")
	for _, c := range n.Children {
		x.node(c, level+1)
	}
	x.end(n.Notes, level)
	x.raw("</")
	x.raw(elem)
	x.raw(">\n")
}

// model writes one node model; typeNames overrides the type names derived
// from the ports' Go types.
func (x *xmlWriter) model(m *runtime.NodeModel, typeNames map[string]string) {
	x.breaks, x.lines = nil, nil
	x.lead(m.Notes, 2, false)
	x.indent(2)
	x.w.WriteByte('<')
	x.raw(m.Kind.String())
	x.attr("ID", m.ID)
	for _, a := range m.Attrs {
		x.attr(a.Name, a.Value)
	}
	if len(m.Ports) == 0 && m.Description == "" && len(m.Metadata) == 0 && !hasEnd(m.Notes) {
		x.raw("/>\n")
		return
	}
	x.raw(">\n")
	for _, p := range m.Ports {
		elem := p.Dir.String() + "_port"
		x.indent(3)
		x.w.WriteByte('<')
		x.raw(elem)
		x.attr("name", p.Name)
		if typeName, ok := typeNames[p.Name]; ok {
			x.attr("type", typeName)
		} else if typeName := PortTypeName(p.Type); typeName != "" {
			x.attr("type", typeName)
		}
		if p.HasDefault {
			x.attr("default", p.Default)
		}
		desc := p.Description
		if desc != strings.TrimSpace(desc) {
			// Text is trimmed when read; an attribute keeps it all.
			x.attr("description", desc)
			desc = ""
		}
		if desc == "" {
			x.raw("/>\n")
			continue
		}
		x.w.WriteByte('>')
		x.escape(desc, false, false)
		x.raw("</")
		x.raw(elem)
		x.raw(">\n")
	}
	metadata := m.Metadata
	if len(metadata) == 0 && m.Description != "" {
		metadata = []runtime.Attr{{Name: "description", Value: m.Description}}
	}
	if len(metadata) > 0 {
		x.indent(3)
		x.raw("<MetadataFields>\n")
		for _, a := range metadata {
			x.indent(4)
			x.raw("<Metadata")
			x.attr(a.Name, a.Value)
			x.raw("/>\n")
		}
		x.indent(3)
		x.raw("</MetadataFields>\n")
	}
	x.end(m.Notes, 2)
	x.raw("</")
	x.raw(m.Kind.String())
	x.raw(">\n")
}
