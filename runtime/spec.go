package runtime

import (
	"fmt"
	"math"
)

// Pos is a place in a source file: where a tree, node or attribute was
// written. Line and Col count from 1; a zero Pos means "built in Go".
type Pos struct {
	File string
	Line int32
	Col  int32
}

func (p Pos) String() string {
	switch {
	case p.File == "" && p.Line == 0:
		return ""
	case p.Line == 0:
		return p.File
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Attr is one attribute of a node as written: a port, a pre/post condition,
// name, or an editor's own attribute (kept for round trips).
type Attr struct {
	Name  string
	Value string
	Pos   Pos
}

// NodeSpec describes one node before it is built: what the XML loader
// produces and what Go code may write by hand.
type NodeSpec struct {
	Type     string
	Attrs    []Attr
	Children []*NodeSpec
	Pos      Pos
	Notes    *Notes // its comments and layout as written (for round trips); nil when none
}

// Attr returns the value of attribute name.
func (s *NodeSpec) Attr(name string) (string, bool) {
	for _, a := range s.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// AttrPos returns where attribute name was written, or the node's position.
func (s *NodeSpec) AttrPos(name string) Pos {
	for _, a := range s.Attrs {
		if a.Name == name && a.Pos.Line != 0 {
			return a.Pos
		}
	}
	return s.Pos
}

// Name returns the instance name: the name attribute, else the type (for a
// SubTree, the ID of the tree it runs, as in BehaviorTree.CPP).
func (s *NodeSpec) Name() string {
	if n, ok := s.Attr("name"); ok && n != "" {
		return n
	}
	if s.Type == "SubTree" {
		if id, ok := s.Attr("ID"); ok && id != "" {
			return id
		}
	}
	return s.Type
}

// TreeSpec is one <BehaviorTree ID="..."> with its root node.
type TreeSpec struct {
	ID    string
	Root  *NodeSpec
	Attrs []Attr // attributes of the BehaviorTree element besides ID
	Pos   Pos
	Notes *Notes // its comments and layout as written (for round trips); nil when none
	// Include is the <include> of the document's file that brought this
	// tree in (directly, or through the included file's own includes; Pos
	// names the file that holds it); nil for a tree of the file itself.
	// Writing the file writes the include, not the tree. Check and Build
	// do not look at it: an included tree is a tree like any other.
	Include *Include
}

// Document is a set of trees and node models as one file (and its includes)
// declares them.
type Document struct {
	Main   string // main_tree_to_execute
	Trees  []*TreeSpec
	Models []*NodeModel
	// Attrs are the other attributes of <root> (Groot2's project_name...),
	// kept for round trips.
	Attrs []Attr
	// Includes are the file's own <include> elements, in order; the trees
	// and models they bring in are in Trees and Models, marked with their
	// Include.
	Includes []*Include
	// Notes are the comments before <root> (Comments) and before </root>
	// (End), the blank line that opens the file and <root>'s wrapped
	// attributes. The loader always sets them; nil means a document built
	// in Go, which trees.Write lays out its own way (a blank line between
	// trees).
	Notes *Notes
	// ModelsNotes are the comments around the file's <TreeNodesModel>.
	ModelsNotes *Notes
	// NoDecl says the file had no XML declaration (<?xml …?>).
	NoDecl bool
}

// Include is an <include> element of a file, as written.
type Include struct {
	Path   string // the path attribute: a file, relative to the including one
	RosPkg string // the ros_pkg attribute, "" when absent
	// At is where the element stood: after this many of the file's own
	// trees (0: before the first).
	At    int
	Notes *Notes
	Pos   Pos
}

// Notes are what a file says around an element besides the element: its
// comments and the lines it was laid out on. The loader records them and
// trees.Write writes them back, so that a file opened and saved keeps
// them; nothing else reads them. A comment is the text between <!-- and
// -->.
type Notes struct {
	Comments []string // the comments before the element, in order
	End      []string // the comments after its last child, before its end tag
	Blank    bool     // a blank line before the element (before its first comment)
	Apart    bool     // a blank line between the comments and the element
	EndBlank bool     // a blank line before its end tag (before End's first comment)
	// Breaks names the attributes written on a line of their own, the
	// start tag continued, and Multiline those whose value was written
	// over several lines (nodes, trees and <root>).
	Breaks    []string
	Multiline []string
}

// Tree returns the tree with the given ID.
func (d *Document) Tree(id string) *TreeSpec {
	for _, t := range d.Trees {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// Model returns the node model with the given ID.
func (d *Document) Model(id string) *NodeModel {
	for _, m := range d.Models {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// NodeModel is a node type as a <TreeNodesModel> declares it: enough to check
// and draw a tree that uses a node not registered here.
type NodeModel struct {
	ID          string
	Kind        Kind
	Ports       []PortSpec
	TypeNames   map[string]string // port name -> type as written in the model
	Description string
	// Attrs are the model element's other attributes (Groot2's editable)
	// and Metadata its <MetadataFields> entries in order (the description
	// among them), kept for round trips.
	Attrs    []Attr
	Metadata []Attr
	Pos      Pos
	// Notes are the comments before the model element (Comments) and
	// inside it (End: those between its ports are written after them).
	Notes *Notes
	// Include is the <include> that brought the model in, as for a tree.
	Include *Include
}

// N is shorthand for building a NodeSpec in Go:
//
//	N("Sequence", nil, N("AlwaysSuccess", nil), N("Script", A("code", "x := 1")))
func N(typ string, attrs []Attr, children ...*NodeSpec) *NodeSpec {
	return &NodeSpec{Type: typ, Attrs: attrs, Children: children}
}

// A is shorthand for a list of attributes from name, value pairs.
func A(nameValues ...string) []Attr {
	out := make([]Attr, 0, len(nameValues)/2)
	for i := 0; i+1 < len(nameValues); i += 2 {
		out = append(out, Attr{Name: nameValues[i], Value: nameValues[i+1]})
	}
	return out
}

// PosAt is the Pos of line and col in file. Numbers past the range of an
// int32 (a line of a file over 2 GiB: btrobot reads none) are held at its
// largest value.
func PosAt(file string, line, col int) Pos {
	return Pos{File: file, Line: clamp32(line), Col: clamp32(col)}
}

func clamp32(n int) int32 {
	return int32(min(max(n, 0), math.MaxInt32))
}
