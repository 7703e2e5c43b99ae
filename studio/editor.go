package studio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// The editor (Conf.Dir): the XML files of one folder, never anything
// outside it (os.Root), each tree as the page edits it, checked by the
// checker of `btrobot check` and saved through trees.Write.

// docNode is a node as the page edits it: its type, its attributes in
// order (name, value pairs) and its children. Notes (its comments) the
// page passes back untouched, so they go where the node goes.
type docNode struct {
	Type     string         `json:"type"`
	Attrs    [][2]string    `json:"attrs"`
	Children []*docNode     `json:"children"`
	Notes    *runtime.Notes `json:"notes,omitempty"`
}

// docTree is one <BehaviorTree>. File names the file of the folder it
// comes from when an <include> brought it in: the page shows it, and it
// is read-only there (the file's own version is what is saved: the
// <include>).
type docTree struct {
	ID    string         `json:"id"`
	Attrs [][2]string    `json:"attrs"`
	Root  *docNode       `json:"root"`
	Notes *runtime.Notes `json:"notes,omitempty"`
	File  string         `json:"file,omitempty"`
}

// docJSON is a file's trees as the page edits them; what else the file
// holds (node models, <root>'s other attributes, Groot2's metadata, its
// <include>s and the comments around them) stays on the server and is
// written back as it was.
type docJSON struct {
	Main  string     `json:"main"`
	Trees []*docTree `json:"trees"`
}

// valid refuses a document the page could not have sent: none at all (a
// Save of nothing would empty the file), a null tree or a null node.
func (d *docJSON) valid() error {
	if d == nil || d.Trees == nil {
		return errors.New("request: no doc: want {\"main\": …, \"trees\": […]}")
	}
	var node func(n *docNode) error
	node = func(n *docNode) error {
		for _, c := range n.Children {
			if c == nil {
				return fmt.Errorf("request: a null child of a %s node", n.Type)
			}
			if err := node(c); err != nil {
				return err
			}
		}
		return nil
	}
	for i, t := range d.Trees {
		if t == nil {
			return fmt.Errorf("request: tree %d is null", i)
		}
		if t.Root != nil {
			if err := node(t.Root); err != nil {
				return err
			}
		}
	}
	return nil
}

// problem is one problem of a file, with the node it belongs to (its
// index in depth-first order over every tree, trees in order; -1: the
// file's).
type problem struct {
	Msg  string `json:"msg"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Path string `json:"path,omitempty"`
	Node int    `json:"node"`
}

func attrsJSON(as []runtime.Attr) [][2]string {
	out := [][2]string{}
	for _, a := range as {
		out = append(out, [2]string{a.Name, a.Value})
	}
	return out
}

func attrsDoc(as [][2]string) []runtime.Attr {
	var out []runtime.Attr
	for _, a := range as {
		out = append(out, runtime.Attr{Name: a[0], Value: a[1]})
	}
	return out
}

func nodeJSONOf(n *runtime.NodeSpec) *docNode {
	if n == nil {
		return nil
	}
	d := &docNode{Type: n.Type, Attrs: attrsJSON(n.Attrs), Children: []*docNode{}, Notes: n.Notes}
	for _, c := range n.Children {
		d.Children = append(d.Children, nodeJSONOf(c))
	}
	return d
}

func nodeSpecOf(n *docNode) *runtime.NodeSpec {
	if n == nil {
		return nil
	}
	s := &runtime.NodeSpec{Type: n.Type, Attrs: attrsDoc(n.Attrs), Notes: n.Notes}
	for _, c := range n.Children {
		s.Children = append(s.Children, nodeSpecOf(c))
	}
	return s
}

// docJSONOf is a file's document as the page edits it; the trees of its
// includes are named by their file, relative to the folder.
func (e *editor) docJSONOf(doc *runtime.Document) docJSON {
	d := docJSON{Main: doc.Main, Trees: []*docTree{}}
	for _, t := range doc.Trees {
		dt := &docTree{ID: t.ID, Attrs: attrsJSON(t.Attrs), Root: nodeJSONOf(t.Root), Notes: t.Notes}
		if t.Include != nil {
			dt.File = t.Include.Path
			if t.Pos.File != "" {
				dt.File = e.rel(t.Pos.File)
			}
		}
		d.Trees = append(d.Trees, dt)
	}
	return d
}

// withTrees is base (the file as read) with the page's trees: the file's
// own trees as the page has them, the trees of its includes as base has
// them (they are read-only here; editedIncluded says whether the page
// changed one).
func withTrees(base *runtime.Document, d docJSON) *runtime.Document {
	out := *base
	out.Main, out.Trees = d.Main, nil
	taken := map[*runtime.TreeSpec]bool{}
	for _, t := range d.Trees {
		if t.File != "" {
			if bt := includedTree(base, t.ID); bt != nil && !taken[bt] {
				out.Trees = append(out.Trees, bt)
				taken[bt] = true
			}
			continue
		}
		out.Trees = append(out.Trees, &runtime.TreeSpec{ID: t.ID, Attrs: attrsDoc(t.Attrs), Root: nodeSpecOf(t.Root), Notes: t.Notes})
	}
	for _, bt := range base.Trees { // the page lost none of them
		if bt.Include != nil && !taken[bt] {
			out.Trees = append(out.Trees, bt)
		}
	}
	return &out
}

// includedTree returns base's tree id that an include brought in.
func includedTree(base *runtime.Document, id string) *runtime.TreeSpec {
	for _, t := range base.Trees {
		if t.ID == id && t.Include != nil {
			return t
		}
	}
	return nil
}

// editedIncluded returns a tree of an included file that the page
// changed, or nil.
func editedIncluded(base *runtime.Document, d docJSON) *docTree {
	for _, t := range d.Trees {
		if t.File == "" {
			continue
		}
		bt := includedTree(base, t.ID)
		if bt == nil {
			return t
		}
		was, _ := json.Marshal(&docTree{ID: bt.ID, Attrs: attrsJSON(bt.Attrs), Root: nodeJSONOf(bt.Root), Notes: bt.Notes, File: t.File})
		now, _ := json.Marshal(t)
		if !bytes.Equal(was, now) {
			return t
		}
	}
	return nil
}

// base is the file p as read, or an empty document when p is not there
// yet (a new file).
func (e *editor) base(p string) (*runtime.Document, error) {
	base, _, err := e.read(p)
	if base == nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return &runtime.Document{}, nil
	}
	return base, nil
}

// readOnlyError refuses a save that changed a tree of an included file:
// saving writes this file only, and the edit would be lost.
type readOnlyError struct{ tree, file, in string }

func (r *readOnlyError) Error() string {
	return fmt.Sprintf("tree %s is in %s, read-only in %s: open %s to edit it", r.tree, r.file, r.in, r.file)
}

// save writes the page's document d to p (base is p as read), problems and
// all, and returns the problems and whether it was written: a document the
// writer cannot write is not. Save (Ctrl+S) and Run save through it.
func (e *editor) save(p string, base *runtime.Document, d docJSON, t target) ([]problem, bool, error) {
	if it := editedIncluded(base, d); it != nil {
		return nil, false, &readOnlyError{tree: it.ID, file: it.File, in: p}
	}
	xml, probs, _ := e.check(p, base, d, t)
	if xml == nil {
		return probs, false, nil
	}
	if err := e.root.WriteFile(p, xml, 0o644); err != nil {
		return probs, false, err
	}
	return probs, true, nil
}

// editor serves the files of one folder.
type editor struct {
	dir  string // absolute
	real string // dir, its symbolic links followed
	root *os.Root
	reg  *runtime.Registry

	shipped shipped // the shipped profiles and worlds on disk (target.go)
}

func newEditor(dir string) (*editor, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("studio: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("studio: %w", err)
	}
	return &editor{dir: abs, real: real, root: root, reg: mission.Nodes()}, nil
}

// clean checks a path of an XML file the page gives (inFolder).
func (e *editor) clean(p string) (string, error) {
	c, err := e.inFolder(p)
	if err != nil {
		return "", fmt.Errorf("path %w", err)
	}
	if strings.ToLower(path.Ext(c)) != ".xml" {
		return "", fmt.Errorf("path %q: the editor opens .xml files", p)
	}
	return c, nil
}

// named is a message with the folder's files named relative to it, as
// `btrobot check` run there names them.
func (e *editor) named(msg string) string {
	return strings.ReplaceAll(msg, e.dir+string(filepath.Separator), "")
}

// read loads a file of the folder as trees.Load does, what it includes
// read only where it stays inside the folder (readInclude).
func (e *editor) read(p string) (*runtime.Document, []byte, error) {
	data, err := e.readIn(p, input.Tree)
	if err != nil {
		return nil, nil, err
	}
	doc, err := trees.ParseReading(e.abs(p), data, e.readInclude)
	return doc, data, err
}

// fileInfo is one file of the folder.
type fileInfo struct {
	Path     string   `json:"path"`
	Trees    []string `json:"trees"`
	Main     string   `json:"main,omitempty"` // the tree main_tree_to_execute names
	Problems int      `json:"problems"`
	Error    string   `json:"error,omitempty"`
}

// files lists the folder's XML files and their trees, and says whether
// that is all of them (walk's bounds).
func (e *editor) files() ([]fileInfo, bool) {
	out := []fileInfo{}
	whole := e.walk(func(p string, d fs.DirEntry) {
		if d.IsDir() || strings.ToLower(path.Ext(p)) != ".xml" {
			return
		}
		fi := fileInfo{Path: p, Trees: []string{}}
		doc, _, err := e.read(p)
		if doc != nil {
			fi.Main = doc.Main
			for _, t := range doc.Trees {
				fi.Trees = append(fi.Trees, t.ID)
			}
		}
		if err != nil && doc == nil {
			fi.Error = err.Error()
		}
		out = append(out, fi)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, whole
}

// check writes d as the file would be saved and checks that text with
// `btrobot check`'s checker, against t's robot profile and places (as
// mission.Load does) when chosen; each problem is given the node it names
// (by the line the writer put the node on: one node a line).
func (e *editor) check(p string, base *runtime.Document, d docJSON, t target) ([]byte, []problem, error) {
	doc := withTrees(base, d)
	reg, terrs := e.registry(t)
	withNewModels(reg, base, doc, d)
	var buf bytes.Buffer
	if err := trees.Write(&buf, doc); err != nil {
		return nil, []problem{{Msg: err.Error(), Node: -1}}, nil
	}
	name := filepath.Join(e.dir, filepath.FromSlash(p))
	lines := map[runtime.Pos]int{} // file and line (an include's nodes are in their file) -> node index
	written, perr := trees.ParseReading(name, buf.Bytes(), e.readInclude)
	if written != nil {
		i := 0
		var walk func(n *runtime.NodeSpec)
		walk = func(n *runtime.NodeSpec) {
			if n == nil {
				return
			}
			lines[runtime.Pos{File: n.Pos.File, Line: n.Pos.Line}] = i
			i++
			for _, c := range n.Children {
				walk(c)
			}
		}
		for _, t := range written.Trees {
			walk(t.Root)
		}
	}
	probs := []problem{}
	for _, te := range terrs {
		probs = append(probs, problem{Msg: e.named(te.Error()), Node: -1})
	}
	err := trees.CheckParsed(reg, name, written, perr) // trees.CheckData, the document kept
	var le *trees.LoadError
	switch {
	case err == nil:
	case errors.As(err, &le):
		for _, be := range le.Errs {
			msg := e.named(be.Error())
			pr := problem{Msg: msg, Line: int(be.Pos.Line), Col: int(be.Pos.Col), Path: be.Path, Node: -1}
			if n, ok := lines[runtime.Pos{File: be.Pos.File, Line: be.Pos.Line}]; ok {
				pr.Node = n
			}
			probs = append(probs, pr)
		}
	default:
		probs = append(probs, problem{Msg: err.Error(), Node: -1})
	}
	return buf.Bytes(), probs, nil
}

// routes adds the editor's API to mux.
func (e *editor) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/files", func(w http.ResponseWriter, r *http.Request) {
		files, whole := e.files()
		writeJSON(w, map[string]any{"dir": e.dir, "files": files, "whole": whole})
	})
	mux.HandleFunc("GET /api/palette", func(w http.ResponseWriter, r *http.Request) {
		reg, _ := e.registry(targetOf(r))
		writeJSON(w, paletteOf(reg))
	})
	mux.HandleFunc("GET /api/file", func(w http.ResponseWriter, r *http.Request) {
		p, err := e.clean(r.URL.Query().Get("path"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		doc, _, err := e.read(p)
		if doc == nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		d := e.docJSONOf(doc)
		_, probs, _ := e.check(p, doc, d, targetOf(r))
		writeJSON(w, map[string]any{"path": p, "doc": d, "problems": probs})
	})
	edit := func(save bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Path string  `json:"path"`
				Doc  docJSON `json:"doc"`
				target
			}
			if !readJSON(w, r, maxBody, false, &req) {
				return
			}
			if err := req.Doc.valid(); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			p, err := e.clean(req.Path)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			base, err := e.base(p)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if !save {
				_, probs, _ := e.check(p, base, req.Doc, req.target)
				writeJSON(w, map[string]any{"problems": probs, "saved": false})
				return
			}
			probs, saved, err := e.save(p, base, req.Doc, req.target)
			var ro *readOnlyError
			switch {
			case errors.As(err, &ro):
				http.Error(w, err.Error(), http.StatusConflict)
				return
			case err != nil:
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			writeJSON(w, map[string]any{"problems": probs, "saved": saved})
		}
	}
	mux.HandleFunc("POST /api/new", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Path string `json:"path"`
		}
		if !readJSON(w, r, 1<<12, false, &req) {
			return
		}
		p, err := e.clean(req.Path)
		if err == nil {
			err = e.create(p)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]string{"path": p})
	})
	mux.HandleFunc("POST /api/check", edit(false))
	mux.HandleFunc("POST /api/save", edit(true))
	e.authoringRoutes(mux)
}

// newFile is the template of a new file: one tree that checks.
const newFile = `<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="main">
      <AlwaysSuccess/>
    </Sequence>
  </BehaviorTree>
</root>
`

// create makes a new file from the template; an existing file is left
// alone.
func (e *editor) create(p string) error {
	if dir := path.Dir(p); dir != "." {
		if err := e.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := e.root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s exists already: open it instead", p)
		}
		return err
	}
	_, err = f.WriteString(newFile)
	return errors.Join(err, f.Close())
}

// paletteType is a node type as the editor's palette lists it: the
// registry's declaration (the text of docs/nodes.md).
type paletteType struct {
	ID       string        `json:"id"`
	Kind     string        `json:"kind"`
	Category string        `json:"category"`
	Summary  string        `json:"summary"`
	Doc      string        `json:"doc"`
	Ports    []palettePort `json:"ports"`
	Min      int           `json:"min_children"`
	Max      int           `json:"max_children"`
}

type palettePort struct {
	Name        string `json:"name"`
	Dir         string `json:"dir"`
	Type        string `json:"type"`
	Default     string `json:"default,omitempty"`
	HasDefault  bool   `json:"has_default"`
	Required    bool   `json:"required"`
	Description string `json:"description"`
	// Choices are the values of a type with a fixed set of them (a
	// select in the inspector); Script marks a port holding a script,
	// EntryName one naming a blackboard entry as text (the inspector
	// offers the keys as names, not as {key}).
	Choices   []string `json:"choices,omitempty"`
	Script    bool     `json:"script,omitempty"`
	EntryName bool     `json:"entry_name,omitempty"`
}

func paletteOf(reg *runtime.Registry) []paletteType {
	out := []paletteType{}
	for _, t := range reg.Types() {
		lo, hi := t.ChildBounds()
		pt := paletteType{ID: t.ID, Kind: t.Kind.String(), Category: t.Category, Summary: t.Summary, Doc: t.Doc, Ports: []palettePort{}, Min: lo, Max: hi}
		for _, p := range t.Ports {
			pt.Ports = append(pt.Ports, palettePort{Name: p.Name, Dir: p.Dir.String(), Type: runtime.TypeName(p.Type), Default: p.Default,
				HasDefault: p.HasDefault, Required: p.Required(), Description: p.Description, Choices: choicesOf(p.Type), Script: p.Script, EntryName: p.EntryName})
		}
		out = append(out, pt)
	}
	return out
}
