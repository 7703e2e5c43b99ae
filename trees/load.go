package trees

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/runtime"
)

// LoadError is what Load, Parse and CheckFile return when a file has
// problems: every problem found in one pass, in source order, each with its
// file:line:column.
type LoadError struct {
	Errs runtime.ErrorList
	// Unreadable is set when a file (the one asked for, or one it includes)
	// could not be read, is not well-formed XML, exceeds a limit, or is not
	// a tree file at all: nothing after that point was looked at.
	// Otherwise the file was read whole and Errs are problems with what it
	// says.
	Unreadable bool
}

func (e *LoadError) Error() string { return e.Errs.Error() }

// Unwrap returns the list of problems, so errors.As finds a
// runtime.ErrorList in a LoadError.
func (e *LoadError) Unwrap() error { return e.Errs }

// Load reads a BehaviorTree.CPP v4 XML file, and the files it includes, into
// a Document. Positions name files as path does, and included files joined
// to the directory of the file that includes them.
//
// On error it returns a *LoadError with every problem found. Unless the
// error is Unreadable, the Document is returned too, holding everything that
// could be read, so that runtime.Check can report its problems in the same
// pass (CheckFile does both).
func Load(path string) (*runtime.Document, error) {
	src, err := input.ReadFileString(path, input.Tree)
	if err != nil {
		be, ok := err.(*runtime.BuildError)
		if !ok {
			be = &runtime.BuildError{Pos: runtime.Pos{File: path}, Msg: err.Error()}
		}
		return nil, &LoadError{Errs: runtime.ErrorList{be}, Unreadable: true}
	}
	return load(path, src, readFile)
}

// Parse reads BehaviorTree.CPP v4 XML from data, as Load reads a file: name
// is the file name that positions report, and the directory that relative
// <include> paths start from.
func Parse(name string, data []byte) (*runtime.Document, error) {
	if name == "" {
		name = "<input>"
	}
	if err := input.Tree.CheckSize(name, data); err != nil {
		return nil, &LoadError{Errs: runtime.ErrorList{err.(*runtime.BuildError)}, Unreadable: true}
	}
	return load(name, string(data), readFile)
}

// ParseReading is Parse with the files data includes read by read, given
// each path as Load would open it, instead of from disk: a caller that
// must read nothing outside a folder (the studio's editor) checks each
// path there first. read's error is given as why the file could not be
// included.
func ParseReading(name string, data []byte, read func(path string) ([]byte, error)) (*runtime.Document, error) {
	if name == "" {
		name = "<input>"
	}
	if err := input.Tree.CheckSize(name, data); err != nil {
		return nil, &LoadError{Errs: runtime.ErrorList{err.(*runtime.BuildError)}, Unreadable: true}
	}
	return load(name, string(data), read)
}

// CheckFile loads the file at path and checks every tree in it against reg
// and the node models the file declares (runtime.Check). It returns nil
// when all is well, else a *LoadError holding the loader's problems and
// then the checker's.
func CheckFile(reg *runtime.Registry, path string) error {
	doc, err := Load(path)
	return check(reg, path, doc, err)
}

// CheckData checks XML text as CheckFile checks a file: name is the file
// name positions report and relative <include>s start from (the studio's
// editor checks a tree as it is typed with it).
func CheckData(reg *runtime.Registry, name string, data []byte) error {
	doc, err := Parse(name, data)
	return CheckParsed(reg, name, doc, err)
}

// CheckParsed is CheckFile's check of what Load or Parse returned (doc and
// err, for a caller that keeps the document too): the loader's problems
// and runtime.Check's, as a *LoadError; nil when all is well.
func CheckParsed(reg *runtime.Registry, path string, doc *runtime.Document, err error) error {
	return check(reg, path, doc, err)
}

// check adds runtime.Check's problems to the loader's.
func check(reg *runtime.Registry, path string, doc *runtime.Document, err error) error {
	var le *LoadError
	if err != nil && !errors.As(err, &le) {
		return err
	}
	if le != nil && le.Unreadable {
		return le
	}
	cerr := runtime.Check(reg, doc, runtime.BuildConf{})
	if cerr == nil {
		return err
	}
	if le == nil {
		le = &LoadError{}
	}
	var list runtime.ErrorList
	if errors.As(cerr, &list) {
		le.Errs = append(le.Errs, list...)
	} else {
		le.Errs = append(le.Errs, &runtime.BuildError{Pos: runtime.Pos{File: path}, Msg: cerr.Error()})
	}
	return le
}

// readFile reads a regular file of at most MaxFileSize bytes; a FIFO or a
// device is refused before it is read (input.ReadFile).
func readFile(path string) ([]byte, error) { return input.ReadFile(path, input.Tree) }

func load(name, src string, read func(string) ([]byte, error)) (*runtime.Document, error) {
	l := &loader{doc: &runtime.Document{}, files: map[string]bool{}, models: map[string]*runtime.NodeModel{}, readFile: read}
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	l.files[abs] = true
	l.read(name, abs, src, true)
	if !l.unreadable {
		l.checkExpansion()
	}
	if len(l.errs) > 0 {
		le := &LoadError{Errs: l.errs, Unreadable: l.unreadable}
		if l.unreadable {
			return nil, le
		}
		return l.doc, le
	}
	return l.doc, nil
}

// loader holds the state of one load, shared by the files it includes.
type loader struct {
	doc        *runtime.Document
	errs       runtime.ErrorList
	unreadable bool
	files      map[string]bool // absolute paths read: each file is read once
	stack      []string        // the files being read, outermost first
	stackAbs   []string
	elements   int
	models     map[string]*runtime.NodeModel
	mainPos    runtime.Pos
	alloc      specAlloc
	kids       []*runtime.NodeSpec               // children being collected, a stack
	include    *runtime.Include                  // the top file's <include> being read; nil in the top file
	ownModels  bool                              // the top file declares a model of its own
	ownTrees   int                               // the top file's own trees read so far
	readFile   func(path string) ([]byte, error) // reads an included file
	// The strings the document keeps are copies (names interned, values
	// in shared blocks), not pieces of the file's text, so that the text
	// is garbage once read: before the tree is built, and while the tree
	// runs (node names are the document's strings). For a 100,000-node
	// tree that is 1.7 MB less at the peak of a load.
	names map[string]string
	strs  []byte
}

// maxInterned bounds the names a load interns; past it, names are copied.
const maxInterned = 4096

// intern returns a copy of name, the same one for every equal name: node
// types and attribute names repeat over a tree.
func (l *loader) intern(name string) string {
	if v, ok := l.names[name]; ok {
		return v
	}
	v := l.keep(name)
	if l.names == nil {
		l.names = map[string]string{}
	}
	if len(l.names) < maxInterned {
		l.names[v] = v
	}
	return v
}

// keep returns a copy of v that does not point into the file's text,
// written into a shared block: no allocation of its own unless v is long.
// The bytes of a block are never written again, so the string may point
// at them.
func (l *loader) keep(v string) string {
	const block = 16 << 10
	switch {
	case v == "":
		return ""
	case len(v) > block/8:
		return strings.Clone(v)
	}
	if cap(l.strs)-len(l.strs) < len(v) {
		l.strs = make([]byte, 0, block)
	}
	start := len(l.strs)
	l.strs = append(l.strs, v...)
	b := l.strs[start:]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// fileReader reads one file.
type fileReader struct {
	l     *loader
	name  string
	dir   string
	sc    *scanner
	lc    lineCounter
	fatal bool
	top   bool // the file asked for, not one it includes
}

func (f *fileReader) pos(off int) runtime.Pos {
	line, col := f.lc.pos(off)
	return runtime.PosAt(f.name, line, col)
}

func (f *fileReader) errorf(off int, format string, args ...any) {
	f.l.errs = append(f.l.errs, &runtime.BuildError{Pos: f.pos(off), Msg: fmt.Sprintf(format, args...)})
}

// syntax records a problem after which the file cannot be read further.
func (f *fileReader) syntax(err *syntaxError) {
	f.errorf(err.off, "%s", err.msg)
	f.fatal = true
	f.l.unreadable = true
}

// next returns the next token, or nil once the file cannot be read further.
func (f *fileReader) next() *token {
	if f.fatal {
		return nil
	}
	tok, err := f.sc.next()
	if err != nil {
		f.syntax(err)
		return nil
	}
	return tok
}

// value returns an attribute's value with its references resolved.
func (f *fileReader) value(a *rawAttr) string {
	if a.plain {
		return f.l.keep(a.value)
	}
	v, at, msg := decode(a.value)
	if msg != "" {
		f.errorf(a.valOff+at, "attribute %s: %s", a.name, msg)
		return f.l.keep(a.value)
	}
	return v
}

func (f *fileReader) text(t *token) string {
	if t.plain {
		return t.text
	}
	v, at, msg := decode(t.text)
	if msg != "" {
		f.errorf(t.off+at, "%s", msg)
		return t.text
	}
	return v
}

// countElement bounds the elements of the whole load.
func (f *fileReader) countElement(off int) bool {
	f.l.elements++
	if f.l.elements > MaxElements {
		f.syntax(errAt(off, "more than %d elements in one load (the limit)", MaxElements))
		return false
	}
	return true
}

func (l *loader) read(name, abs, src string, top bool) {
	f := &fileReader{l: l, name: name, dir: filepath.Dir(name), lc: newLineCounter(src), top: top}
	l.stack = append(l.stack, name)
	l.stackAbs = append(l.stackAbs, abs)
	defer func() {
		l.stack = l.stack[:len(l.stack)-1]
		l.stackAbs = l.stackAbs[:len(l.stackAbs)-1]
	}()
	sc, err := newScanner(src)
	if err != nil {
		f.syntax(err)
		return
	}
	f.sc = sc
	var pend *runtime.Notes
	tok := f.next()
	for tok != nil && tok.kind == tokComment {
		pend = lead(pend, tok)
		tok = f.next()
	}
	if tok == nil {
		return
	}
	if tok.name != "root" {
		f.syntax(errAt(tok.off, "the root element is <%s>; a BehaviorTree.CPP tree file starts with <root BTCPP_format=\"4\">", tok.name))
		return
	}
	if top {
		notes := startNotes(pend, tok)
		if notes == nil {
			notes = &runtime.Notes{}
		}
		f.l.doc.Notes = f.attrLayout(notes, tok, false)
		f.l.doc.NoDecl = !sc.decl
	}
	f.root(tok, top)
}

// lead adds a comment read before an element to the notes that element
// will get, made on the first one.
func lead(n *runtime.Notes, t *token) *runtime.Notes {
	if n == nil {
		n = &runtime.Notes{Blank: t.blank}
	}
	n.Comments = append(n.Comments, commentText(t))
	return n
}

// commentText is a comment's text with its line ends read as XML reads
// them ("\r\n" and "\r" as "\n").
func commentText(t *token) string {
	if t.plain {
		return strings.Clone(t.text) // not a piece of the file's text: see loader.keep
	}
	return strings.ReplaceAll(strings.ReplaceAll(t.text, "\r\n", "\n"), "\r", "\n")
}

// startNotes are the notes of the element tok opens: the comments before
// it, or only the blank line before it.
func startNotes(pend *runtime.Notes, tok *token) *runtime.Notes {
	switch {
	case pend == nil && tok.blank:
		return &runtime.Notes{Blank: true}
	case pend != nil:
		pend.Apart = tok.blank
	}
	return pend
}

// attrLayout adds to n the attributes of tok that start a line of their
// own, and those whose value spans lines (but for ID, when the element
// names its type with it: that is not kept as an attribute).
func (f *fileReader) attrLayout(n *runtime.Notes, tok *token, skipID bool) *runtime.Notes {
	prev := tok.off + 1 + len(tok.name)
	for i := range tok.attrs {
		a := &tok.attrs[i]
		newLine := strings.IndexByte(f.sc.src[prev:a.off], '\n') >= 0
		lines := strings.IndexAny(a.value, "\n\r") >= 0
		prev = a.valOff + len(a.value) + 1
		if !newLine && !lines || skipID && a.name == "ID" {
			continue
		}
		if n == nil {
			n = &runtime.Notes{}
		}
		if newLine {
			n.Breaks = append(n.Breaks, f.l.intern(a.name))
		}
		if lines {
			n.Multiline = append(n.Multiline, f.l.intern(a.name))
		}
	}
	return n
}

// endNotes adds to n the comments read after an element's last child
// (tail) and the blank line before its end tag (end is that tag; blank
// lines are kept where the writer writes an end tag: written says so, or
// there are comments).
func endNotes(n, tail *runtime.Notes, end *token, written bool) *runtime.Notes {
	blank := end != nil && end.blank
	if tail != nil {
		blank = tail.Blank
	}
	if tail == nil && !(blank && written) {
		return n
	}
	if n == nil {
		n = &runtime.Notes{}
	}
	if tail != nil {
		n.End = append(n.End, tail.Comments...)
	}
	n.EndBlank = blank
	return n
}

func (f *fileReader) root(tok *token, top bool) {
	for i := range tok.attrs {
		a := &tok.attrs[i]
		switch a.name {
		case "BTCPP_format": // when missing, the file reads as v4, as in BehaviorTree.CPP
			if v := strings.TrimSpace(f.value(a)); v != "4" {
				f.errorf(a.off, "BTCPP_format=%q: this loader reads BehaviorTree.CPP v4 files (BTCPP_format=\"4\"); convert older files with BehaviorTree.CPP's convert_v3_to_v4.py", v)
			}
		case "main_tree_to_execute":
			if top {
				f.l.doc.Main = f.value(a)
				f.l.mainPos = f.pos(a.off)
			}
		default: // an editor's own (Groot2's project_name), kept for round trips
			if top {
				f.l.doc.Attrs = append(f.l.doc.Attrs, runtime.Attr{Name: f.l.intern(a.name), Value: f.value(a), Pos: f.pos(a.off)})
			}
		}
	}
	var ids []*runtime.TreeSpec // trees of this file without an ID
	elements := 0
	var pend *runtime.Notes // comments not yet given to an element
	for {
		tok := f.next()
		if tok == nil {
			return
		}
		switch tok.kind {
		case tokEOF:
			if top && pend != nil { // comments after </root>: kept before it
				f.l.doc.Notes.End = append(f.l.doc.Notes.End, pend.Comments...)
			}
			f.finish(top, ids, elements)
			return
		case tokEnd:
			if top {
				endNotes(f.l.doc.Notes, pend, tok, true)
			}
			pend = nil
		case tokComment:
			pend = lead(pend, tok)
		case tokText:
			f.noText(tok, "root")
		case tokStart:
			elements++
			if !f.countElement(tok.off) {
				return
			}
			notes := startNotes(pend, tok)
			pend = nil
			switch tok.name {
			case "BehaviorTree":
				_, hasID := attrOf(tok, "ID")
				if t := f.behaviorTree(tok, notes); !hasID {
					ids = append(ids, t)
				}
			case "TreeNodesModel":
				f.treeNodesModel(tok, notes)
			case "include":
				f.include(tok, notes)
			default:
				hint := didYouMean(tok.name, []string{"BehaviorTree", "TreeNodesModel", "include"})
				f.errorf(tok.off, "unknown element <%s> in <root>%s: a tree file holds <BehaviorTree>, <TreeNodesModel> and <include> elements", tok.name, hint)
				f.skip(tok)
			}
		}
	}
}

// finish names a lone <BehaviorTree> without ID as BehaviorTree.CPP does,
// and checks main_tree_to_execute once every include has been read.
func (f *fileReader) finish(top bool, ids []*runtime.TreeSpec, elements int) {
	if len(ids) == 1 && elements == 1 {
		ids[0].ID = "BehaviorTree_0"
	}
	if top && !f.l.ownModels {
		// An empty <TreeNodesModel> is not written: nor are its notes,
		// but for its comments.
		if m := f.l.doc.ModelsNotes; m != nil && len(m.Comments)+len(m.End) == 0 {
			f.l.doc.ModelsNotes = nil
		}
	}
	if top && f.l.doc.Main != "" && f.l.doc.Tree(f.l.doc.Main) == nil && !f.l.unreadable {
		treeIDs := make([]string, 0, len(f.l.doc.Trees))
		for _, t := range f.l.doc.Trees {
			treeIDs = append(treeIDs, t.ID)
		}
		f.l.errs = append(f.l.errs, &runtime.BuildError{Pos: f.l.mainPos,
			Msg: fmt.Sprintf("main_tree_to_execute=%q names no <BehaviorTree>%s", f.l.doc.Main, didYouMean(f.l.doc.Main, treeIDs))})
	}
}

func attrOf(tok *token, name string) (*rawAttr, bool) {
	for i := range tok.attrs {
		if tok.attrs[i].name == name {
			return &tok.attrs[i], true
		}
	}
	return nil, false
}

func didYouMean(s string, names []string) string {
	near := runtime.NearestNames(s, names, 3)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

// noText reports character data where only elements belong, in <elem>.
func (f *fileReader) noText(tok *token, elem string) {
	for i := 0; i < len(tok.text); i++ {
		if !isSpace(tok.text[i]) {
			f.errorf(tok.off+i, "text in <%s>: only elements belong here", elem)
			return
		}
	}
}

// skip reads past the element tok opened.
// children walks the child elements of tok, an element called elem: text
// between them is an error, each is counted against MaxElements and handed
// to each with the comments before it. It reports whether tok's end tag was
// reached (false: the input ended, or became unreadable), and the notes of
// that end: the comments after the last child, the blank line before it.
func (f *fileReader) children(tok *token, elem string, each func(child *token, notes *runtime.Notes)) (bool, *runtime.Notes) {
	if tok.empty {
		return true, nil
	}
	var pend *runtime.Notes
	for {
		c := f.next()
		if c == nil {
			return false, nil
		}
		switch c.kind {
		case tokEnd:
			return true, endNotes(nil, pend, c, true)
		case tokComment:
			pend = lead(pend, c)
		case tokText:
			f.noText(c, elem)
		case tokStart:
			if !f.countElement(c.off) {
				return false, nil
			}
			notes := startNotes(pend, c)
			pend = nil
			each(c, notes)
		}
	}
}

func (f *fileReader) skip(tok *token) { f.skipKeeping(tok, nil) }

// skipKeeping is skip, adding the comments inside the element to
// comments (when not nil).
func (f *fileReader) skipKeeping(tok *token, comments *[]string) {
	if tok.empty {
		return
	}
	depth := f.sc.depth()
	for {
		t := f.next()
		if t == nil || t.kind == tokEOF {
			return
		}
		if t.kind == tokComment && comments != nil {
			*comments = append(*comments, commentText(t))
		}
		if t.kind == tokStart && !f.countElement(t.off) {
			return
		}
		if t.kind == tokEnd && f.sc.depth() < depth {
			return
		}
	}
}

func (f *fileReader) behaviorTree(tok *token, notes *runtime.Notes) *runtime.TreeSpec {
	t := &runtime.TreeSpec{Pos: f.pos(tok.off), Notes: f.attrLayout(notes, tok, false), Include: f.l.include}
	if f.top {
		f.l.ownTrees++
	}
	for i := range tok.attrs {
		a := &tok.attrs[i]
		v := f.value(a)
		if a.name == "ID" {
			t.ID = v
			continue
		}
		t.Attrs = append(t.Attrs, runtime.Attr{Name: f.l.intern(a.name), Value: v, Pos: f.pos(a.off)})
	}
	f.l.doc.Trees = append(f.l.doc.Trees, t)
	if tok.empty {
		return t
	}
	var pend *runtime.Notes
	for {
		tok := f.next()
		if tok == nil {
			return t
		}
		switch tok.kind {
		case tokEnd:
			t.Notes = endNotes(t.Notes, pend, tok, t.Root != nil)
			return t
		case tokComment:
			pend = lead(pend, tok)
		case tokText:
			f.noText(tok, "BehaviorTree")
		case tokStart:
			off, name := tok.off, tok.name
			notes := startNotes(pend, tok)
			pend = nil
			n := f.node(tok, notes)
			if f.fatal {
				return t
			}
			if t.Root == nil {
				t.Root = n
			} else {
				f.errorf(off, "<BehaviorTree ID=%q> has a second root node <%s>: a tree has exactly one root; put its nodes under a <Sequence> or another control node", t.ID, name)
			}
		}
	}
}

// explicitKinds are the element names of BehaviorTree.CPP's explicit form,
// <Action ID="Type" …/>, which name the node type in the ID attribute.
func explicitKind(name string) bool {
	switch name {
	case "Action", "Condition", "Control", "Decorator":
		return true
	}
	return false
}

// node reads the element tok opened, and its children, as a NodeSpec;
// notes are the comments before it.
func (f *fileReader) node(tok *token, notes *runtime.Notes) *runtime.NodeSpec {
	if !f.countElement(tok.off) {
		return nil
	}
	l := f.l
	s := l.alloc.spec()
	s.Pos = f.pos(tok.off)
	s.Notes = notes
	s.Type = f.l.intern(tok.name)
	explicit := explicitKind(tok.name)
	if explicit {
		if a, ok := attrOf(tok, "ID"); ok {
			s.Type = f.value(a)
			if s.Type == "" {
				f.errorf(a.off, "<%s ID=\"\">: the ID names the node type and cannot be empty", tok.name)
			}
		} else {
			f.errorf(tok.off, "<%s> needs an ID attribute naming the node type: <%s ID=\"MyNode\"/>", tok.name, tok.name)
		}
	}
	if len(tok.attrs) > 0 {
		attrs := l.alloc.attrs(len(tok.attrs))
		for i := range tok.attrs {
			a := &tok.attrs[i]
			if a.name == "ID" {
				if explicit {
					continue
				}
				if tok.name != "SubTree" {
					f.errorf(a.off, "<%s> takes no ID attribute: only <SubTree ID=…> and the explicit forms <Action ID=…>, <Condition ID=…>, <Control ID=…>, <Decorator ID=…> have one", tok.name)
				}
			}
			attrs = append(attrs, runtime.Attr{Name: f.l.intern(a.name), Value: f.value(a), Pos: f.pos(a.off)})
		}
		if len(attrs) > 0 {
			s.Attrs = attrs
		}
		s.Notes = f.attrLayout(s.Notes, tok, explicit)
	}
	if tok.empty {
		return s
	}
	elem := tok.name
	base := len(l.kids)
	var pend *runtime.Notes
	for {
		tok := f.next()
		if tok == nil {
			l.kids = l.kids[:base]
			return s
		}
		switch tok.kind {
		case tokEnd:
			if n := len(l.kids) - base; n > 0 {
				s.Children = l.alloc.children(l.kids[base:])
			}
			l.kids = l.kids[:base]
			s.Notes = endNotes(s.Notes, pend, tok, len(s.Children) > 0)
			return s
		case tokComment:
			pend = lead(pend, tok)
		case tokText:
			f.noText(tok, elem)
		case tokStart:
			child := f.node(tok, startNotes(pend, tok))
			pend = nil
			if f.fatal {
				l.kids = l.kids[:base]
				return s
			}
			l.pushKid(child)
		}
	}
}

// pushKid puts child on the stack of children being collected. The stack
// doubles when full: append grows a large slice by a quarter, which for a
// Sequence of 100,000 children allocated the stack's final size four
// times over as garbage, most of it still uncollected when the tree is
// built.
func (l *loader) pushKid(child *runtime.NodeSpec) {
	if len(l.kids) == cap(l.kids) {
		kids := make([]*runtime.NodeSpec, len(l.kids), max(64, 2*cap(l.kids)))
		copy(kids, l.kids)
		l.kids = kids
	}
	l.kids = append(l.kids, child)
}

// treeNodesModel reads the node models of a <TreeNodesModel>; notes are
// the comments before it. The comments of a file's <TreeNodesModel>s go
// to Document.ModelsNotes, as they are written as one.
func (f *fileReader) treeNodesModel(tok *token, notes *runtime.Notes) {
	_, end := f.children(tok, "TreeNodesModel", func(tok *token, notes *runtime.Notes) {
		kind, ok := runtime.ParseKind(tok.name)
		if !ok {
			hint := didYouMean(tok.name, []string{"Action", "Condition", "Control", "Decorator", "SubTree"})
			f.errorf(tok.off, "unknown element <%s> in <TreeNodesModel>%s: a node model is an <Action>, <Condition>, <Control>, <Decorator> or <SubTree>", tok.name, hint)
			f.skip(tok)
			return
		}
		f.model(tok, kind, notes)
	})
	if !f.top {
		return
	}
	d := f.l.doc
	if d.ModelsNotes == nil {
		d.ModelsNotes = notes
		if d.ModelsNotes == nil {
			d.ModelsNotes = &runtime.Notes{}
		}
	} else if notes != nil {
		d.ModelsNotes.Comments = append(d.ModelsNotes.Comments, notes.Comments...)
	}
	if end != nil {
		d.ModelsNotes.End = append(d.ModelsNotes.End, end.End...)
		d.ModelsNotes.EndBlank = d.ModelsNotes.EndBlank || end.EndBlank
	}
}

var portDirs = map[string]runtime.PortDir{
	"input_port":  runtime.Input,
	"output_port": runtime.Output,
	"inout_port":  runtime.InOut,
	// Nav2's generated models spell it so.
	"bidirectional_port": runtime.InOut,
}

// model reads one <Action ID="…"> (or Condition, Control, Decorator,
// SubTree) of a <TreeNodesModel>.
func (f *fileReader) model(tok *token, kind runtime.Kind, notes *runtime.Notes) {
	m := &runtime.NodeModel{Kind: kind, Pos: f.pos(tok.off), Notes: notes, Include: f.l.include}
	elem, off := tok.name, tok.off
	for i := range tok.attrs {
		a := &tok.attrs[i]
		if a.name == "ID" {
			m.ID = f.value(a)
		} else { // Groot2's editable, kept for round trips
			m.Attrs = append(m.Attrs, runtime.Attr{Name: f.l.intern(a.name), Value: f.value(a), Pos: f.pos(a.off)})
		}
	}
	if m.ID == "" {
		f.errorf(tok.off, "<%s> in <TreeNodesModel> needs an ID attribute naming the node type", elem)
	}
	var inner []string // comments inside the model, written after its ports
	ended, end := f.children(tok, elem, func(tok *token, notes *runtime.Notes) {
		if notes != nil {
			inner = append(inner, notes.Comments...)
		}
		if dir, ok := portDirs[tok.name]; ok {
			f.port(tok, dir, m, &inner)
			return
		}
		if tok.name == "MetadataFields" {
			f.metadata(tok, m, &inner)
			return
		}
		hint := didYouMean(tok.name, []string{"input_port", "output_port", "inout_port", "MetadataFields"})
		f.errorf(tok.off, "unknown element <%s> in a node model%s: a model holds <input_port>, <output_port>, <inout_port> and <MetadataFields>", tok.name, hint)
		f.skip(tok)
	})
	if !ended || f.fatal || m.ID == "" {
		return
	}
	if end != nil {
		inner = append(inner, end.End...)
	}
	// Blank lines kept where the writer writes an end tag.
	blank := end != nil && end.EndBlank && (len(m.Ports) > 0 || m.Description != "" || len(m.Metadata) > 0 || len(inner) > 0)
	if len(inner) > 0 || blank {
		if m.Notes == nil {
			m.Notes = &runtime.Notes{}
		}
		m.Notes.End, m.Notes.EndBlank = inner, blank
	}
	if prev, dup := f.l.models[m.ID]; dup {
		if !sameModel(prev, m) {
			f.errorf(off, "node model %q is declared twice, differently (first at %s)", m.ID, prev.Pos)
		}
		return
	}
	if f.top {
		f.l.ownModels = true
	}
	f.l.models[m.ID] = m
	f.l.doc.Models = append(f.l.doc.Models, m)
}

func sameModel(a, b *runtime.NodeModel) bool {
	return a.Kind == b.Kind && a.Description == b.Description && sameAttrs(a.Attrs, b.Attrs) && sameAttrs(a.Metadata, b.Metadata) &&
		reflect.DeepEqual(a.TypeNames, b.TypeNames) && slices.Equal(a.Ports, b.Ports)
}

// sameAttrs compares attributes by name and value, positions aside.
func sameAttrs(a, b []runtime.Attr) bool {
	return slices.EqualFunc(a, b, func(x, y runtime.Attr) bool { return x.Name == y.Name && x.Value == y.Value })
}

// port reads one port of model m; comments inside it are added to inner.
func (f *fileReader) port(tok *token, dir runtime.PortDir, m *runtime.NodeModel, inner *[]string) {
	p := runtime.PortSpec{Dir: dir}
	elem, off := tok.name, tok.off
	hasName, hasDesc := false, false
	typeName, hasType := "", false
	for i := range tok.attrs {
		a := &tok.attrs[i]
		switch a.name {
		case "name":
			p.Name, hasName = f.value(a), true
		case "type":
			typeName, hasType = f.value(a), true
		case "default":
			p.Default, p.HasDefault = f.value(a), true
		case "description":
			p.Description, hasDesc = f.value(a), true
		}
	}
	var text strings.Builder
	if !tok.empty {
	loop:
		for {
			tok := f.next()
			if tok == nil {
				return
			}
			switch tok.kind {
			case tokEnd:
				break loop
			case tokComment:
				*inner = append(*inner, commentText(tok))
			case tokText:
				if text.Len()+len(tok.text) <= MaxAttrSize {
					text.WriteString(f.text(tok))
				}
			case tokStart:
				f.errorf(tok.off, "unknown element <%s> in <%s>: a port's description is text", tok.name, elem)
				if !f.countElement(tok.off) {
					return
				}
				f.skip(tok)
			}
		}
	}
	if !hasDesc {
		p.Description = strings.TrimSpace(text.String())
	}
	switch {
	case !hasName || p.Name == "":
		f.errorf(off, "<%s> of model %q needs a name attribute", elem, m.ID)
		return
	case !validPortName(p.Name):
		f.errorf(off, "port name %q of model %q: a port name is a letter or '_' followed by letters, digits or '_'", p.Name, m.ID)
		return
	case runtime.IsReservedAttr(p.Name):
		f.errorf(off, "port name %q of model %q is reserved for the engine", p.Name, m.ID)
		return
	}
	for _, q := range m.Ports {
		if q.Name == p.Name {
			f.errorf(off, "port %q of model %q is declared twice", p.Name, m.ID)
			return
		}
	}
	if m.Kind != runtime.SubTreeKind && p.Dir != runtime.Output && !p.HasDefault {
		// A model does not say which ports a tree must give, and
		// BehaviorTree.CPP requires none: Nav2's own models list optional
		// ports (server_name, server_timeout) without defaults. The node's
		// registered declaration, once there is one, says what is required.
		// (A SubTree model is different: its ports without default must be
		// remapped, and runtime.Check says so.)
		p.Optional = true
	}
	if hasType {
		p.Type, _ = ParsePortType(typeName)
		if m.TypeNames == nil {
			m.TypeNames = map[string]string{}
		}
		m.TypeNames[p.Name] = typeName
	}
	// A default that does not convert is not an error here: model files
	// generated by BehaviorTree.CPP write C++ expressions as defaults
	// (numeric_limits<double>::infinity()). runtime.Check reports it where
	// a tree relies on it.
	m.Ports = append(m.Ports, p)
}

func validPortName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// metadata reads <MetadataFields><Metadata key="value"/>…: every entry is
// kept in order, and the description becomes the model's.
func (f *fileReader) metadata(tok *token, m *runtime.NodeModel, inner *[]string) {
	_, end := f.children(tok, "MetadataFields", func(tok *token, notes *runtime.Notes) {
		if notes != nil {
			*inner = append(*inner, notes.Comments...)
		}
		if tok.name == "Metadata" {
			for i := range tok.attrs {
				a := &tok.attrs[i]
				m.Metadata = append(m.Metadata, runtime.Attr{Name: f.l.intern(a.name), Value: f.value(a), Pos: f.pos(a.off)})
				if a.name == "description" {
					m.Description = f.value(a)
				}
			}
		} else {
			f.errorf(tok.off, "unknown element <%s> in <MetadataFields>: it holds <Metadata key=\"value\"/> elements", tok.name)
		}
		f.skipKeeping(tok, inner)
	})
	if end != nil {
		*inner = append(*inner, end.End...)
	}
}

// include reads the file an <include path="…"/> names, relative to the
// including file; notes are the comments before it. The top file's
// includes are kept in Document.Includes, and what they bring in is
// marked with theirs.
func (f *fileReader) include(tok *token, notes *runtime.Notes) {
	var inc *runtime.Include // the top file's include
	// Past the element, keeping the comments inside it.
	defer func() {
		var inside []string
		f.skipKeeping(tok, &inside)
		if inc != nil && len(inside) > 0 {
			if inc.Notes == nil {
				inc.Notes = &runtime.Notes{}
			}
			inc.Notes.End = inside
		}
	}()
	a, hasPath := attrOf(tok, "path")
	path := ""
	if hasPath {
		path = f.value(a)
	}
	pkg, hasPkg := attrOf(tok, "ros_pkg")
	if f.top {
		inc = &runtime.Include{Path: path, At: f.l.ownTrees, Notes: notes, Pos: f.pos(tok.off)}
		if hasPkg {
			inc.RosPkg = f.value(pkg)
		}
		f.l.doc.Includes = append(f.l.doc.Includes, inc)
		f.l.include = inc
		defer func() { f.l.include = nil }()
	}
	if hasPkg {
		f.errorf(pkg.off, "<include ros_pkg=…>: ROS package paths are not resolved here; give path relative to %s", f.name)
		return
	}
	if path == "" {
		f.errorf(tok.off, "<include> needs a path attribute naming the file to include, relative to %s", f.name)
		return
	}
	full := path
	if !filepath.IsAbs(path) {
		full = filepath.Join(f.dir, path)
	}
	abs, err := filepath.Abs(full)
	if err != nil {
		abs = filepath.Clean(full)
	}
	l := f.l
	if i := slices.Index(l.stackAbs, abs); i >= 0 {
		cycle := append(slices.Clone(l.stack[i:]), full)
		f.errorf(a.off, "include cycle: %s", strings.Join(cycle, " → "))
		return
	}
	if l.files[abs] {
		return // read already: a file's trees are included once
	}
	if len(l.files) > MaxIncludes {
		f.errorf(a.off, "more than %d included files (the limit)", MaxIncludes)
		return
	}
	l.files[abs] = true
	data, err := l.readFile(full)
	if err != nil {
		f.errorf(a.off, "cannot include %s: %s", path, includeProblem(err))
		l.unreadable = true
		return
	}
	l.read(full, abs, string(data), false)
}

// includeProblem says why an included file could not be read, without its
// path, which the message gives already.
func includeProblem(err error) string {
	var pe *os.PathError
	var be *runtime.BuildError
	switch {
	case errors.As(err, &be):
		return be.Msg
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}

// specAlloc hands out NodeSpecs, attribute and child slices from chunks, so
// a large tree costs a few allocations rather than several per node.
type specAlloc struct {
	specs []runtime.NodeSpec
	attrv []runtime.Attr
	kidv  []*runtime.NodeSpec
	chunk int
}

func (a *specAlloc) grow() int {
	a.chunk = min(max(a.chunk*2, 32), 4096)
	return a.chunk
}

func (a *specAlloc) spec() *runtime.NodeSpec {
	if len(a.specs) == cap(a.specs) {
		a.specs = make([]runtime.NodeSpec, 0, a.grow())
	}
	a.specs = a.specs[:len(a.specs)+1]
	return &a.specs[len(a.specs)-1]
}

// attrs returns an empty slice with room for n attributes; appending more
// than n allocates.
func (a *specAlloc) attrs(n int) []runtime.Attr {
	if cap(a.attrv)-len(a.attrv) < n {
		a.attrv = make([]runtime.Attr, 0, max(n, a.grow()))
	}
	start := len(a.attrv)
	a.attrv = a.attrv[:start+n]
	return a.attrv[start : start : start+n]
}

func (a *specAlloc) children(kids []*runtime.NodeSpec) []*runtime.NodeSpec {
	n := len(kids)
	if n > 1024 {
		return slices.Clone(kids)
	}
	if cap(a.kidv)-len(a.kidv) < n {
		a.kidv = make([]*runtime.NodeSpec, 0, max(n, a.grow()))
	}
	start := len(a.kidv)
	a.kidv = append(a.kidv, kids...)
	return a.kidv[start : start+n : start+n]
}

// checkExpansion refuses a document in which a tree expands, through its
// SubTrees, to more than MaxExpandedNodes nodes: checking or building it
// would take as long as it is large. Each tree is counted once (a tree's
// size is remembered), so this costs one walk of the document. Unknown and
// recursive subtrees count as nothing here; runtime.Check reports them.
func (l *loader) checkExpansion() {
	trees := map[string]*runtime.TreeSpec{}
	for _, t := range l.doc.Trees {
		if _, dup := trees[t.ID]; !dup {
			trees[t.ID] = t
		}
	}
	size := map[string]int{}
	onStack := map[string]bool{}
	var treeSize func(t *runtime.TreeSpec, depth int) int
	var nodeSize func(n *runtime.NodeSpec, depth int) int
	nodeSize = func(n *runtime.NodeSpec, depth int) int {
		total := 1
		if n.Type == "SubTree" {
			if id, ok := n.Attr("ID"); ok && trees[id] != nil && !onStack[id] {
				total += treeSize(trees[id], depth+1)
			}
		}
		for _, c := range n.Children {
			total = min(total+nodeSize(c, depth+1), MaxExpandedNodes+1)
		}
		return min(total, MaxExpandedNodes+1)
	}
	treeSize = func(t *runtime.TreeSpec, depth int) int {
		if s, ok := size[t.ID]; ok {
			return s
		}
		if t.Root == nil || depth > MaxDepth {
			return 0 // runtime.Check reports an empty or too deep tree
		}
		onStack[t.ID] = true
		s := nodeSize(t.Root, depth)
		delete(onStack, t.ID)
		size[t.ID] = s
		return s
	}
	for _, t := range l.doc.Trees {
		if treeSize(t, 0) > MaxExpandedNodes {
			l.errs = append(l.errs, &runtime.BuildError{Pos: t.Pos,
				Msg: fmt.Sprintf("tree %q expands to more than %d nodes through its SubTrees (the limit)", t.ID, MaxExpandedNodes)})
			l.unreadable = true
			return
		}
	}
}
