package runtime

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/btrobot/btrobot/internal/english"
	"github.com/btrobot/btrobot/runtime/script"
)

// BuildConf configures Build and Check.
type BuildConf struct {
	// Main is the ID of the tree to run; empty takes the document's
	// main_tree_to_execute, or its only tree.
	Main string
	// Clock is the tree's time source (WallClock when nil).
	Clock Clock
	// Blackboard is the main tree's root blackboard (a new one when nil).
	Blackboard *Blackboard
	// Seed seeds the random nodes (RandomSelector, RandomSequence,
	// WeightedSelector); 0 picks a seed from the clock.
	Seed uint64
	// MaxDepth bounds the nesting of nodes and subtrees (256 when 0).
	MaxDepth int
	// MaxNodes bounds the nodes a tree expands to, subtrees copied where
	// they are used (1,000,000 when 0): a few nested subtrees must not
	// become a bomb.
	MaxNodes int
	// Semaphores is the table the tree's Semaphore nodes share
	// [DefaultSemaphores, the process's].
	Semaphores SemaphoreTable
	// Owner names the tree's owner in what other trees are told ("robot2"
	// holds a Semaphore); empty: node paths alone.
	Owner string
	// Substitutions, when set, make Build replace the nodes their rules
	// match (see Substitutions): with test nodes, or with other node
	// types. Check does not apply them.
	Substitutions *Substitutions
}

const (
	defaultMaxDepth = 256
	defaultMaxNodes = 1_000_000
)

// PortError is what a node constructor returns for a problem with one of
// its ports, so that the error points at that attribute.
type PortError struct {
	Port string
	Err  error
}

func (e *PortError) Error() string { return fmt.Sprintf("port %q: %v", e.Port, e.Err) }
func (e *PortError) Unwrap() error { return e.Err }

// Build checks doc against reg and builds the main tree. It returns every
// error found (an ErrorList), never a half-built tree.
func Build(reg *Registry, doc *Document, conf BuildConf) (*Tree, error) {
	b := newBuilder(reg, doc, conf, true)
	main := b.mainTree()
	b.checkDocument()
	if len(b.errs) == 0 {
		b.checkLookUpGoals()
	}
	if main != nil && len(b.errs) == 0 {
		bb := conf.Blackboard
		if bb == nil {
			bb = NewBlackboard(b.tree.clock.Now)
		}
		b.tree.bb = bb
		b.tree.nodes = make([]Node, 0, countNodes(main.Root))
		b.tree.root = b.buildTree(main, main.ID, bb, map[string]bool{}, 0, nil)
	}
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	return b.tree, nil
}

// Check validates every tree of doc against reg (and the node models doc
// declares) without building anything, and returns every error found.
func Check(reg *Registry, doc *Document, conf BuildConf) error {
	b := newBuilder(reg, doc, conf, false)
	b.checkDocument()
	if len(b.errs) == 0 {
		b.checkLookUpGoals()
	}
	if len(b.errs) == 0 {
		for _, t := range doc.Trees {
			b.buildTree(t, t.ID, NewBlackboard(nil), map[string]bool{}, 0, nil)
		}
	}
	return b.errs.Err()
}

type builder struct {
	reg   *Registry
	doc   *Document
	conf  BuildConf
	run   bool // instantiate nodes, not only check
	tree  *Tree
	rand  *rand.Rand
	errs  ErrorList
	trees map[string]*TreeSpec

	visited  int                 // nodes expanded so far
	made     uint32              // nodes made (or checked) so far: the next one's UID is made+1
	btPrefix string              // BT.CPP's path of the subtree being expanded, with its "/"
	tooBig   bool                // MaxNodes reported
	stack    []string            // IDs of the trees being expanded, outermost first
	cycles   map[string]bool     // recursive subtree cycles reported
	declared map[*Entry]declSite // where each typed blackboard entry was first declared

	// A big tree's build time is mostly allocation. paths holds the
	// nodes' paths, appended and never rewritten (each path string points
	// into it); config is what every constructor is given in turn.
	paths  []byte
	config Config
}

// declSite is the port that first declared a blackboard entry's type.
type declSite struct {
	path, port string
	pos        Pos
}

func newBuilder(reg *Registry, doc *Document, conf BuildConf, run bool) *builder {
	if conf.MaxDepth == 0 {
		conf.MaxDepth = defaultMaxDepth
	}
	if conf.MaxNodes == 0 {
		conf.MaxNodes = defaultMaxNodes
	}
	tree := newTree(conf.Clock, nil)
	tree.enums = reg.enums
	seed := conf.Seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	return &builder{
		reg: reg, doc: doc, conf: conf, run: run, tree: tree,
		rand:  rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		trees: map[string]*TreeSpec{},

		cycles: map[string]bool{}, declared: map[*Entry]declSite{},
	}
}

func (b *builder) checkDocument() {
	for _, t := range b.doc.Trees {
		if t.ID == "" {
			b.errs.add(t.Pos, "", "<BehaviorTree> without an ID attribute")
			continue
		}
		if prev, dup := b.trees[t.ID]; dup {
			b.errs.add(t.Pos, "", "tree ID %q is defined twice (first at %s)", t.ID, prev.Pos)
			continue
		}
		b.trees[t.ID] = t
		if t.Root == nil {
			b.errs.add(t.Pos, t.ID, "tree %q has no root node", t.ID)
		}
	}
}

func (b *builder) mainTree() *TreeSpec {
	id := b.conf.Main
	if id == "" {
		id = b.doc.Main
	}
	if id == "" {
		if len(b.doc.Trees) == 1 {
			return b.doc.Trees[0]
		}
		ids := make([]string, len(b.doc.Trees))
		for i, t := range b.doc.Trees {
			ids[i] = t.ID
		}
		if len(ids) == 0 {
			b.errs.add(Pos{}, "", "the document has no <BehaviorTree>")
		} else {
			b.errs.add(Pos{}, "", "several trees and no main_tree_to_execute: say which to run (one of %s)", strings.Join(ids, ", "))
		}
		return nil
	}
	if t := b.doc.Tree(id); t != nil {
		return t
	}
	b.errs.add(Pos{}, "", "main tree %q is not defined%s", id, didYouMean(id, b.treeIDs()))
	return nil
}

func (b *builder) treeIDs() []string {
	ids := make([]string, 0, len(b.doc.Trees))
	for _, t := range b.doc.Trees {
		ids = append(ids, t.ID)
	}
	return ids
}

func didYouMean(s string, names []string) string {
	near := NearestNames(s, names, 3)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

// buildTree builds (or checks) the tree t under path with blackboard bb.
func (b *builder) buildTree(t *TreeSpec, path string, bb *Blackboard, ancestors map[string]bool, depth int, parent *NodeSpec) Node {
	if t.Root == nil {
		return nil
	}
	ancestors[t.ID] = true
	b.stack = append(b.stack, t.ID)
	defer func() {
		delete(ancestors, t.ID)
		b.stack = b.stack[:len(b.stack)-1]
	}()
	return b.buildNode(t.Root, path+"/"+t.Root.Name(), bb, ancestors, depth)
}

func (b *builder) buildNode(s *NodeSpec, path string, bb *Blackboard, ancestors map[string]bool, depth int) Node {
	if depth > b.conf.MaxDepth {
		b.errs.add(s.Pos, path, "nesting deeper than %d nodes; flatten the tree or split it into subtrees", b.conf.MaxDepth)
		return nil
	}
	if b.visited++; b.visited > b.conf.MaxNodes {
		if !b.tooBig {
			b.tooBig = true
			b.errs.add(s.Pos, path, "the tree expands to more than %d nodes (each SubTree is a copy of its tree); nest fewer subtrees", b.conf.MaxNodes)
		}
		return nil
	}
	typ, model := b.lookupType(s, path)
	orig, substitute := s, ""
	if typ != nil {
		b.made++
		if b.conf.Substitutions != nil && b.run {
			// Build only: Check expands every tree on its own, so UIDs
			// (and Type::UID filters) are those of a built tree alone.
			s, typ, substitute = b.substitute(s, typ, path)
		}
	}
	if typ == nil && model == nil {
		// Unknown: the children are still checked, so one pass finds all.
		b.buildChildren(s, path, bb, ancestors, depth, nil)
		return nil
	}
	var ports []PortSpec
	kind := SubTreeKind
	if typ != nil {
		ports, kind = typ.Ports, typ.Kind
	} else {
		ports, kind = model.Ports, model.Kind
	}

	var literals map[string]any
	if len(ports) > 0 {
		literals = make(map[string]any, len(ports))
	}
	bindings := b.bindPorts(s, path, ports, bb, literals, kind == SubTreeKind, typ == nil)
	conds := b.parseConditions(s, path)

	lo, hi := (&NodeType{Kind: kind}).ChildBounds()
	if typ != nil {
		lo, hi = typ.ChildBounds()
	}
	if s.Type == "SubTree" {
		lo, hi = 0, 0 // the subtree's root is its child
	}
	if n := len(s.Children); n < lo || (hi != Unbounded && n > hi) {
		b.errs.add(s.Pos, path, "%s%s", childCountMsg(s.Type, kind, n, lo, hi), leafAsDecorator(s.Type))
	}

	// Check mode asks the constructor too: it rejects impossible
	// configurations (Parallel thresholds, Switch cases).
	var node Node
	var b0 *Base
	if typ != nil {
		// One Config for every constructor (New keeps none), set field by
		// field: a struct copy would take the garbage collector's bulk
		// barrier. Allocating one per node was a fifth of a big tree's
		// build.
		cfg := &b.config
		cfg.Name, cfg.Path, cfg.Type, cfg.Children = s.Name(), path, typ, len(s.Children)
		cfg.Clock, cfg.Rand, cfg.Registry, cfg.spec, cfg.literals = b.tree.clock, b.rand, b.reg, s, literals
		cfg.semaphores, cfg.owner = b.conf.Semaphores, b.conf.Owner
		n, err := typ.New(cfg)
		switch {
		case err != nil:
			pos := s.Pos
			if pe := (*PortError)(nil); errors.As(err, &pe) {
				pos = s.AttrPos(pe.Port)
			}
			b.errs.add(pos, path, "%v", err)
		case n == nil:
			b.errs.add(s.Pos, path, "constructor of %s returned no node", s.Type)
		case b.run:
			node, b0 = n, n.base()
			b0.name, b0.typeID, b0.path, b0.tree, b0.bb = orig.Name(), orig.Type, path, b.tree, bb
			if len(bindings) > 0 || conds != nil {
				b0.ext = &nodeExtras{ports: bindings, conds: conds}
			}
			if conds != nil {
				b0.detour |= detourConds
			}
			b.tree.nodes = append(b.tree.nodes, node)
			b0.uid = uint32(len(b.tree.nodes))
			if substitute != "" {
				if b.tree.substituted == nil {
					b.tree.substituted = map[uint32]string{}
				}
				b.tree.substituted[b0.uid] = substitute
			}
		}
	}

	if s.Type == "SubTree" {
		prefix := b.btPrefix
		b.btPrefix = b.btcppPath(s, s.Name()) + "/"
		child := b.buildSubTree(s, path, bb, ancestors, depth)
		b.btPrefix = prefix
		if b0 != nil && child != nil {
			b0.children = []Node{child}
		}
		return node
	}
	if s.Type == lookUpID && typ != nil && typ.Kind == ActionKind {
		kids := b.buildGoalTrees(s, path, bb, ancestors, depth)
		if b0 != nil && kids != nil {
			b0.children = kids
		}
		return node
	}
	if !b.buildChildren(s, path, bb, ancestors, depth, b0) {
		return nil // a child failed; the error is already recorded
	}
	return node
}

// buildChildren builds the children of s under parent (nil: only checks
// them) and reports whether all of them were built.
func (b *builder) buildChildren(s *NodeSpec, path string, bb *Blackboard, ancestors map[string]bool, depth int, parent *Base) bool {
	if len(s.Children) == 0 {
		return true
	}
	if parent != nil {
		parent.children = make([]Node, 0, len(s.Children))
	}
	// The k-th sibling of a name is name#k: a count per name, kept in a
	// map only across changes of name (a run of siblings of one name,
	// such as 100,000 AlwaysSuccess, counts without it).
	var names map[string]int
	last, lastK := "", 0
	ok := true
	for _, cs := range s.Children {
		name := cs.Name()
		k := 1
		switch {
		case len(s.Children) == 1:
		case name == last:
			lastK++
			k = lastK
		default:
			if names == nil {
				names = make(map[string]int, 4)
			}
			if last != "" {
				names[last] = lastK
			}
			k = names[name] + 1
			last, lastK = name, k
		}
		child := b.buildNode(cs, b.childPath(path, name, k), bb, ancestors, depth+1)
		if child == nil {
			ok = false
		} else if parent != nil {
			parent.children = append(parent.children, child)
		}
	}
	return ok && parent != nil
}

// countNodes counts the nodes of a tree as written (a SubTree counts one):
// the size of most built trees, and a start for the others.
func countNodes(s *NodeSpec) int {
	if s == nil {
		return 0
	}
	n := 1
	for _, c := range s.Children {
		n += countNodes(c)
	}
	return n
}

// childPath is path/name, with #k for the k-th sibling of that name (k>1),
// written at the end of the builder's block of paths: no allocation of
// its own. The bytes of a path are never written again, so the string
// may point at them.
func (b *builder) childPath(path, name string, k int) string {
	const block = 32 << 10
	if n := len(path) + 1 + len(name) + 21; cap(b.paths)-len(b.paths) < n {
		b.paths = make([]byte, 0, max(n, block))
	}
	start := len(b.paths)
	b.paths = append(append(append(b.paths, path...), '/'), name...)
	if k > 1 {
		b.paths = strconv.AppendInt(append(b.paths, '#'), int64(k), 10)
	}
	p := b.paths[start:]
	return unsafe.String(unsafe.SliceData(p), len(p))
}

func childCountMsg(typ string, kind Kind, n, lo, hi int) string {
	want := ""
	switch {
	case hi == 0:
		want = "no children"
	case lo == hi:
		want = fmt.Sprintf("exactly %d %s", lo, english.Plural(lo, "child", "children"))
	case hi == Unbounded:
		want = fmt.Sprintf("at least %d %s", lo, english.Plural(lo, "child", "children"))
	default:
		want = fmt.Sprintf("%d to %d children", lo, hi)
	}
	article := "a"
	if kind == ActionKind {
		article = "an"
	}
	return fmt.Sprintf("%s (%s %s) takes %s, has %d", typ, article, strings.ToLower(kind.String()), want, n)
}

func (b *builder) lookupType(s *NodeSpec, path string) (*NodeType, *NodeModel) {
	if t, ok := b.reg.Lookup(s.Type); ok {
		return t, nil
	}
	if m := b.doc.Model(s.Type); m != nil {
		if b.run {
			b.errs.add(s.Pos, path, "node type %q is only declared in <TreeNodesModel>; register it to run the tree", s.Type)
			return nil, nil
		}
		return nil, m
	}
	names := make([]string, 0)
	for _, t := range b.reg.Types() {
		names = append(names, t.ID)
	}
	for _, m := range b.doc.Models {
		names = append(names, m.ID)
	}
	if hint, ok := foreignName(s.Type, len(s.Children)); ok {
		b.errs.add(s.Pos, path, "unknown node type %q (%s)", s.Type, hint)
		return nil, nil
	}
	b.errs.add(s.Pos, path, "unknown node type %q%s", s.Type, didYouMean(s.Type, names))
	return nil, nil
}

// bindPorts binds every declared port of s to a literal or a blackboard key
// and reports unknown, missing and mistyped ports. For a node known only
// from a model, a default that does not convert is not an error (Nav2's
// models write C++ expressions there).
func (b *builder) bindPorts(s *NodeSpec, path string, ports []PortSpec, bb *Blackboard, literals map[string]any, subtree, modelOnly bool) []portBinding {
	bindings := make([]portBinding, len(ports))
	missing := map[string]*PortSpec{}
	for i := range ports {
		p := &ports[i]
		bindings[i].spec = p
		value, present := s.Attr(p.Name)
		pos := s.AttrPos(p.Name)
		fromDefault := false
		if !present && p.HasDefault {
			value, present, fromDefault = p.Default, true, true
		}
		if !present {
			if p.Required() && !subtree {
				missing[p.Name] = p
			}
			continue
		}
		bindings[i].given, bindings[i].raw = true, value
		if key, isKey := BlackboardKey(value, p.Name); isKey {
			if key == "" {
				b.errs.add(pos, path, "port %q: empty blackboard reference {}", p.Name)
				continue
			}
			bindings[i].key = key
			if !subtree {
				b.declare(bb, key, p, path, pos)
			}
			continue
		}
		if p.Dir == Output {
			b.errs.add(pos, path, "output port %q must name a blackboard entry like {%s}, not the literal %q", p.Name, p.Name, value)
			continue
		}
		v, err := ParseLiteral(value, p.Type)
		if err != nil {
			if !(modelOnly && fromDefault) {
				b.errs.add(pos, path, "port %q (%s): %v", p.Name, TypeName(p.Type), err)
			}
			continue
		}
		bindings[i].literal = v
		literals[p.Name] = v
	}
	if subtree {
		return bindings
	}
	names := make([]string, len(ports))
	for i, p := range ports {
		names[i] = p.Name
	}
	for _, a := range s.Attrs {
		if IsReservedAttr(a.Name) || strings.HasPrefix(a.Name, "_") {
			continue // engine attributes, or an editor's own (kept for round trips)
		}
		if _, declared := portIndex(ports, a.Name); declared {
			continue
		}
		near := NearestNames(a.Name, names, 3)
		var hint string
		switch {
		case len(near) > 0 && missing[near[0]] != nil:
			// A misspelt required port is one mistake, not two.
			delete(missing, near[0])
			hint = " (did you mean " + near[0] + "?)"
		case len(near) > 0:
			hint = " (did you mean " + strings.Join(near, ", ") + "?)"
		case len(names) > 0:
			hint = " (its ports: " + strings.Join(names, ", ") + ")"
		default:
			hint = " (it has no ports)"
		}
		b.errs.add(a.Pos.or(s.Pos), path, "%s has no port %q%s", s.Type, a.Name, hint)
	}
	for i := range ports {
		if p := missing[ports[i].Name]; p != nil {
			b.errs.add(s.Pos, path, "missing required input port %q (%s)%s", p.Name, TypeName(p.Type), portHint(p))
		}
	}
	return bindings
}

// declare gives blackboard entry key the type of port p, or reports where
// the entry was first declared with another type.
func (b *builder) declare(bb *Blackboard, key string, p *PortSpec, path string, pos Pos) {
	e, err := bb.Declare(key, p.Type)
	if err != nil {
		if e = bb.Entry(key); e != nil {
			if first, ok := b.declared[e]; ok {
				where := ""
				if first.pos.Line != 0 {
					where = " at " + first.pos.String()
				}
				b.errs.add(pos, path, "port %q wants blackboard entry %q as %s, but %s port %q declared it %s%s",
					p.Name, key, TypeName(p.Type), first.path, first.port, TypeName(e.Type()), where)
				return
			}
		}
		b.errs.add(pos, path, "port %q: %v", p.Name, err)
		return
	}
	if _, seen := b.declared[e]; !seen && !isAnyType(p.Type) {
		b.declared[e] = declSite{path: path, port: p.Name, pos: pos}
	}
}

func (p Pos) or(q Pos) Pos {
	if p.Line == 0 {
		return q
	}
	return p
}

func portHint(p *PortSpec) string {
	if p.Description == "" {
		return ""
	}
	return ": " + p.Description
}

func portIndex(ports []PortSpec, name string) (int, bool) {
	for i := range ports {
		if ports[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

func (b *builder) parseConditions(s *NodeSpec, path string) *conditions {
	var c *conditions // most nodes have none: allocate only when one is given
	for _, a := range s.Attrs {
		if !strings.HasPrefix(a.Name, "_") || strings.TrimSpace(a.Value) == "" {
			continue
		}
		for i, name := range PreConditions {
			if a.Name == name {
				if c == nil {
					c = &conditions{}
				}
				c.pre[i] = b.parseScript(s, path, name, a.Value)
			}
		}
		for i, name := range PostConditions {
			if a.Name == name {
				if c == nil {
					c = &conditions{}
				}
				c.post[i] = b.parseScript(s, path, name, a.Value)
			}
		}
	}
	if c == nil || (c.pre == [preCount]*script.Program{} && c.post == [postCount]*script.Program{}) {
		return nil
	}
	return c
}

func (b *builder) parseScript(s *NodeSpec, path, attr, src string) *script.Program {
	p, err := script.Parse(src)
	if err != nil {
		b.errs.add(s.AttrPos(attr), path, "%s: script does not parse: %v", attr, err)
		return nil
	}
	return p
}

// buildSubTree instantiates the tree a <SubTree ID=".."> names, with a
// blackboard scoped under bb and remapped as BehaviorTree.CPP does.
func (b *builder) buildSubTree(s *NodeSpec, path string, bb *Blackboard, ancestors map[string]bool, depth int) Node {
	id, _ := s.Attr("ID")
	if id == "" {
		b.errs.add(s.Pos, path, "<SubTree> needs an ID attribute naming a <BehaviorTree>")
		return nil
	}
	t := b.trees[id]
	if t == nil {
		b.errs.add(s.Pos, path, "SubTree names tree %q, which is not defined%s", id, didYouMean(id, b.treeIDs()))
		return nil
	}
	if ancestors[id] {
		b.reportCycle(s, path, id)
		return nil
	}
	autoRemap := false
	if v, ok := s.Attr("_autoremap"); ok {
		var err error
		if autoRemap, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			b.errs.add(s.AttrPos("_autoremap"), path, "_autoremap must be true or false, not %q", v)
		}
	}
	remap := map[string]string{}
	literals := map[string]string{}
	for _, a := range s.Attrs {
		if IsReservedAttr(a.Name) || strings.HasPrefix(a.Name, "_") {
			continue
		}
		if !validName(a.Name) {
			b.errs.add(a.Pos.or(s.Pos), path, "invalid SubTree port name %q", a.Name)
			continue
		}
		if key, isKey := BlackboardKey(a.Value, a.Name); isKey {
			remap[a.Name] = key
		} else {
			literals[a.Name] = a.Value
		}
	}
	// A subtree model may declare ports: mandatory ones must be remapped,
	// the others take their defaults.
	if m := b.doc.Model(id); m != nil && m.Kind == SubTreeKind && !autoRemap {
		for _, p := range m.Ports {
			_, r := remap[p.Name]
			_, l := literals[p.Name]
			if r || l {
				continue
			}
			if !p.HasDefault || p.Default == "" {
				b.errs.add(s.Pos, path, "SubTree %q declares port %q in <TreeNodesModel> without a default; remap it (%s=\"{key}\")", id, p.Name, p.Name)
				continue
			}
			if key, isKey := BlackboardKey(p.Default, p.Name); isKey {
				remap[p.Name] = key
			} else {
				literals[p.Name] = p.Default
			}
		}
	}
	child := bb.NewChild(remap, autoRemap)
	keys := make([]string, 0, len(literals))
	for k := range literals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// Literals live in the subtree's own scope, typed as BT.CPP types
		// them: an int when they read as one, a double, else a string.
		e := &Entry{key: k}
		v := subtreeLiteral(literals[k])
		if _, isStr := v.(string); !isStr {
			e.typ = reflect.TypeOf(v)
		}
		e.value, e.seq, e.stamp = v, 1, b.tree.clock.Now()
		child.entries[k] = e
	}
	return b.buildTree(t, path, child, ancestors, depth+1, s)
}

// reportCycle reports a recursive subtree once, however many trees reach it.
func (b *builder) reportCycle(s *NodeSpec, path, id string) {
	start := 0
	for i, t := range b.stack {
		if t == id {
			start = i
		}
	}
	cycle := append(append([]string{}, b.stack[start:]...), id)
	key := append([]string{}, cycle[:len(cycle)-1]...)
	sort.Strings(key)
	if b.cycles[strings.Join(key, "\x00")] {
		return
	}
	b.cycles[strings.Join(key, "\x00")] = true
	b.errs.add(s.Pos, path, "%s %q includes itself: %s (recursive subtrees never end)", s.Type, id, strings.Join(cycle, " → "))
}

func subtreeLiteral(s string) any {
	if s == "" {
		return s
	}
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return int(n)
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, " \t") {
		return f
	}
	return s
}
