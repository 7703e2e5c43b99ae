package studio

import (
	"encoding"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/runtime/script"
)

// The editor's authoring help: a script's syntax checked on its own, the
// blackboard keys a part of a tree uses, a subtree made from a node and
// its children, and the subtrees a file offers with their ports.

// scriptCheck is what POST /api/script answers: ok, or the parser's error
// placed in the script (1-based line and column, in characters).
type scriptCheck struct {
	OK   bool   `json:"ok"`
	Msg  string `json:"msg,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

// checkScript parses src with btrobot's own script parser.
func checkScript(src string) scriptCheck {
	if strings.TrimSpace(src) == "" {
		return scriptCheck{OK: true}
	}
	_, err := script.Parse(src)
	if err == nil {
		return scriptCheck{OK: true}
	}
	var se *script.Error
	if errors.As(err, &se) {
		return scriptCheck{Msg: se.Error(), Line: se.Line, Col: se.Column}
	}
	return scriptCheck{Msg: err.Error(), Line: 1, Col: 1}
}

// isCondition reports whether an attribute is a pre/post-condition script.
func isCondition(name string) bool {
	return slices.Contains(runtime.PreConditions[:], name) || slices.Contains(runtime.PostConditions[:], name)
}

// keysOf collects the blackboard keys that a node and its children use in
// their scope: the keys their ports name ({key}, {=}, or as text where the
// port names an entry: UnsetBlackboard's key) or write into a text
// ("giving up {target}"), the defaults of ports left out that name one
// (the registry's, a subtree model's), the variables of their scripts
// (script ports and pre/post-conditions), and, through a SubTree with
// _autoremap, the keys its tree uses. Keys of the root scope ({@key}) and
// keys starting with '_' (never remapped) are left out.
type keysOf struct {
	reg    *runtime.Registry
	models []*runtime.NodeModel
	trees  map[string]*docTree
	seen   map[string]bool // trees followed, against cycles
	keys   map[string]bool
}

func newKeysOf(reg *runtime.Registry, models []*runtime.NodeModel, d docJSON) *keysOf {
	k := &keysOf{reg: reg, models: models, trees: map[string]*docTree{}, seen: map[string]bool{}, keys: map[string]bool{}}
	for _, t := range d.Trees {
		if t != nil {
			k.trees[t.ID] = t
		}
	}
	return k
}

// subtreeModel is the <TreeNodesModel> entry of subtree id, if the file
// has one.
func subtreeModel(models []*runtime.NodeModel, id string) *runtime.NodeModel {
	for _, m := range models {
		if m.ID == id && m.Kind == runtime.SubTreeKind {
			return m
		}
	}
	return nil
}

func (k *keysOf) add(key string) {
	key = strings.TrimSpace(key)
	if key == "" || strings.HasPrefix(key, "@") || strings.HasPrefix(key, "_") {
		return
	}
	if _, isEnum := k.reg.Enums()[key]; isEnum {
		return
	}
	k.keys[key] = true
}

func (k *keysOf) script(src string) {
	p, err := script.Parse(src)
	if err != nil {
		return // the checker says so; its keys are unknown
	}
	for _, n := range p.Reads() {
		k.add(n)
	}
	for _, n := range p.Writes() {
		k.add(n)
	}
}

func (k *keysOf) node(n *docNode) {
	if n == nil {
		return
	}
	get := func(name string) (string, bool) {
		for _, a := range n.Attrs {
			if a[0] == name {
				return a[1], true
			}
		}
		return "", false
	}
	var ports []runtime.PortSpec
	if t, ok := k.reg.Lookup(n.Type); ok {
		ports = t.Ports
	}
	// A port left out takes its default: a {key} there is of this scope.
	defaults := func(ports []runtime.PortSpec) {
		for _, p := range ports {
			if _, set := get(p.Name); !set && p.HasDefault {
				if key, ok := runtime.BlackboardKey(p.Default, p.Name); ok {
					k.add(key)
				}
			}
		}
	}
	isScript, isEntry := map[string]bool{}, map[string]bool{}
	for _, p := range ports {
		isScript[p.Name], isEntry[p.Name] = p.Script, p.EntryName
	}
	defaults(ports)
	for _, a := range n.Attrs {
		switch {
		case isCondition(a[0]) || isScript[a[0]]:
			if key, ok := runtime.BlackboardKey(a[1], a[0]); ok && isScript[a[0]] {
				k.add(key) // the script is in an entry
			} else {
				k.script(a[1])
			}
		case a[0] == "name" || a[0] == "ID" || strings.HasPrefix(a[0], "_"):
		default:
			if key, ok := runtime.BlackboardKey(a[1], a[0]); ok {
				k.add(key)
				continue
			}
			if name := strings.TrimSpace(a[1]); isEntry[a[0]] && treeIDRE.MatchString(name) {
				k.add(name) // the entry named as text: TopicFresh key="odom"
				continue
			}
			// Keys written into a text ("giving up {target}": Log's
			// message) are read in the node's scope too.
			for _, m := range embeddedKeyRE.FindAllStringSubmatch(a[1], -1) {
				k.add(m[1])
			}
		}
	}
	if n.Type == "SubTree" {
		id, _ := get("ID")
		auto, _ := get("_autoremap")
		on, _ := strconv.ParseBool(strings.TrimSpace(auto))
		if m := subtreeModel(k.models, id); m != nil && !on {
			defaults(m.Ports)
		}
		if on && !k.seen[id] && k.trees[id] != nil {
			// Every key of that tree not remapped by the node resolves here.
			k.seen[id] = true
			inner := &keysOf{reg: k.reg, models: k.models, trees: k.trees, seen: k.seen, keys: map[string]bool{}}
			inner.node(k.trees[id].Root)
			for key := range inner.keys {
				if _, remapped := get(key); !remapped {
					k.add(key)
				}
			}
			delete(k.seen, id)
		}
	}
	for _, c := range n.Children {
		k.node(c)
	}
}

func (k *keysOf) sorted() []string {
	out := make([]string, 0, len(k.keys))
	for key := range k.keys {
		out = append(out, key)
	}
	sort.Strings(out)
	return out
}

// embeddedKeyRE finds the {key}s of a text, by their root.
var embeddedKeyRE = regexp.MustCompile(`\{\s*([A-Za-z_][A-Za-z0-9_]*)[A-Za-z0-9_.]*\s*\}`)

// treeIDRE is what a new tree's ID may be: a name as ports are named.
var treeIDRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// nthNode returns the i-th node of a tree in depth-first order, and the
// node holding it (nil for the root) with its index there.
func nthNode(root *docNode, i int) (n, parent *docNode, at int) {
	count := 0
	var walk func(x, p *docNode, j int) bool
	walk = func(x, p *docNode, j int) bool {
		if x == nil {
			return false
		}
		if count == i {
			n, parent, at = x, p, j
			return true
		}
		count++
		for ci, c := range x.Children {
			if walk(c, x, ci) {
				return true
			}
		}
		return false
	}
	walk(root, nil, 0)
	return n, parent, at
}

// subtreeRequest asks for node Node (depth-first, in tree Tree) and its
// children to become the tree ID.
type subtreeRequest struct {
	Path string  `json:"path"`
	Doc  docJSON `json:"doc"`
	Tree int     `json:"tree"`
	Node int     `json:"node"`
	ID   string  `json:"id"`
}

// extractSubtree moves a node and its children into a new <BehaviorTree
// ID=id> placed after their tree, and puts in their place a SubTree node
// that remaps every key they use to the same key here: the subtree has
// its own blackboard scope, so without the remapping its scripts and
// ports would read and write entries of their own. models are the file's
// node models, whose IDs are taken too.
func extractSubtree(reg *runtime.Registry, models []*runtime.NodeModel, req subtreeRequest) (docJSON, []string, error) {
	d := req.Doc
	if req.Tree < 0 || req.Tree >= len(d.Trees) || d.Trees[req.Tree] == nil {
		return d, nil, fmt.Errorf("tree %d: the file has %d trees", req.Tree, len(d.Trees))
	}
	t := d.Trees[req.Tree]
	n, parent, at := nthNode(t.Root, req.Node)
	if n == nil {
		return d, nil, fmt.Errorf("node %d: tree %s has no such node", req.Node, t.ID)
	}
	id := strings.TrimSpace(req.ID)
	if !treeIDRE.MatchString(id) {
		return d, nil, fmt.Errorf("subtree ID %q: want a name of letters, digits and _, not starting with a digit", req.ID)
	}
	if err := idFree(reg, models, d, id); err != nil {
		return d, nil, err
	}
	if u := find(n, "UnsetBlackboard"); u != nil {
		// BehaviorTree.CPP's unset acts on the scope's own entries and
		// does not follow a remapping.
		key := ""
		for _, a := range u.Attrs {
			if a[0] == "key" {
				key = a[1]
			}
		}
		return d, nil, fmt.Errorf("UnsetBlackboard key=%q would remove the subtree's own entry, not this tree's (an unset does not follow a SubTree's remapping): leave it out of the subtree", key)
	}
	keys := newKeysOf(reg, models, d)
	keys.node(n)
	used := keys.sorted()
	for _, k := range used {
		if !treeIDRE.MatchString(k) {
			return d, nil, fmt.Errorf("key %q: a SubTree port cannot remap it (a port is a name of letters, digits and _); rename the key first", k)
		}
	}
	call := &docNode{Type: "SubTree", Attrs: [][2]string{{"ID", id}}, Children: []*docNode{}}
	for _, k := range used {
		call.Attrs = append(call.Attrs, [2]string{k, "{" + k + "}"})
	}
	if parent == nil {
		t.Root = call
	} else {
		parent.Children[at] = call
	}
	trees := append([]*docTree{}, d.Trees[:req.Tree+1]...)
	trees = append(trees, &docTree{ID: id, Attrs: [][2]string{}, Root: n})
	d.Trees = append(trees, d.Trees[req.Tree+1:]...)
	return d, used, nil
}

// withNewModels gives each tree of d that is new in this save (not in
// base, the file as read) and that a SubTree node calls a <TreeNodesModel>
// entry declaring the keys it uses as inout ports, when the file already
// keeps entries for its subtrees, as files Groot2 saves do: Groot2 draws a
// subtree's remapping from its entry, and BehaviorTree.CPP then checks
// that every call remaps those ports (a subtree made from a selection
// remaps them all). A file without such entries gets none. The entry
// takes Groot2's editable attribute from the file's other entries.
func withNewModels(reg *runtime.Registry, base, doc *runtime.Document, d docJSON) {
	var like *runtime.NodeModel
	for _, m := range base.Models {
		if m.Kind == runtime.SubTreeKind && m.Include == nil {
			like = m
			break
		}
	}
	if like == nil {
		return
	}
	old := map[string]bool{}
	for _, t := range base.Trees {
		old[t.ID] = true
	}
	called := map[string]bool{}
	var calls func(n *docNode)
	calls = func(n *docNode) {
		if n == nil {
			return
		}
		if n.Type == "SubTree" {
			for _, a := range n.Attrs {
				if a[0] == "ID" {
					called[a[1]] = true
				}
			}
		}
		for _, c := range n.Children {
			calls(c)
		}
	}
	for _, t := range d.Trees {
		if t != nil {
			calls(t.Root)
		}
	}
	models := doc.Models
	for _, t := range d.Trees {
		if t == nil || t.File != "" || old[t.ID] || !called[t.ID] || subtreeModel(models, t.ID) != nil {
			continue
		}
		k := newKeysOf(reg, models, d)
		k.seen[t.ID] = true
		k.node(t.Root)
		m := &runtime.NodeModel{ID: t.ID, Kind: runtime.SubTreeKind}
		for _, a := range like.Attrs {
			if a.Name == "editable" {
				m.Attrs = append(m.Attrs, a)
			}
		}
		for _, key := range k.sorted() {
			m.Ports = append(m.Ports, runtime.PortSpec{Name: key, Dir: runtime.InOut})
		}
		// A new slice: doc shares base's.
		models = append(slices.Clip(models), m)
	}
	doc.Models = models
}

// find returns the first node of type typ among n and its children.
func find(n *docNode, typ string) *docNode {
	if n == nil {
		return nil
	}
	if n.Type == typ {
		return n
	}
	for _, c := range n.Children {
		if f := find(c, typ); f != nil {
			return f
		}
	}
	return nil
}

// idFree says why id cannot name a new tree of d, if it cannot.
func idFree(reg *runtime.Registry, models []*runtime.NodeModel, d docJSON, id string) error {
	for _, t := range d.Trees {
		if t != nil && t.ID == id {
			return fmt.Errorf("subtree ID %q: the file has a tree %s already; choose another", id, id)
		}
	}
	for _, m := range models {
		if m.ID == id {
			return fmt.Errorf("subtree ID %q: the file's <TreeNodesModel> declares %s already; choose another", id, id)
		}
	}
	if _, ok := reg.Lookup(id); ok {
		return fmt.Errorf("subtree ID %q: a node type of the palette is called so; choose another", id)
	}
	return nil
}

// subtreeInfo is a tree of a file as a SubTree node may call it: its
// ports, from its <TreeNodesModel> entry when the file has one, else the
// keys it uses.
type subtreeInfo struct {
	ID    string        `json:"id"`
	Model bool          `json:"model"`
	Ports []palettePort `json:"ports"`
}

// subtreesOf lists the trees of d with their ports.
func subtreesOf(reg *runtime.Registry, models []*runtime.NodeModel, d docJSON) []subtreeInfo {
	out := []subtreeInfo{}
	for _, t := range d.Trees {
		if t == nil {
			continue
		}
		si := subtreeInfo{ID: t.ID, Ports: []palettePort{}}
		if model := subtreeModel(models, t.ID); model != nil {
			si.Model = true
			for _, p := range model.Ports {
				typ := model.TypeNames[p.Name]
				if typ == "" {
					typ = runtime.TypeName(p.Type)
				}
				si.Ports = append(si.Ports, palettePort{Name: p.Name, Dir: p.Dir.String(), Type: typ, Default: p.Default,
					HasDefault: p.HasDefault, Required: !p.HasDefault || p.Default == "", Description: p.Description})
			}
		} else {
			k := newKeysOf(reg, models, d)
			k.seen[t.ID] = true
			k.node(t.Root)
			for _, key := range k.sorted() {
				si.Ports = append(si.Ports, palettePort{Name: key, Dir: "inout", Type: "any",
					Description: "a blackboard key the tree uses"})
			}
		}
		out = append(out, si)
	}
	return out
}

// choicesOf lists the values a port of type typ may take when the type
// has a fixed set of them: an integer type whose values read and write as
// text (runtime.Status, a log level), enumerated from zero while each
// value's text reads back as that value.
func choicesOf(typ reflect.Type) []string {
	if typ == nil {
		return nil
	}
	switch typ.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
	default:
		return nil
	}
	if !typ.Implements(reflect.TypeFor[fmt.Stringer]()) || !reflect.PointerTo(typ).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return nil
	}
	var out []string
	for i := 0; i < 256; i++ {
		v := reflect.New(typ).Elem()
		if typ.Kind() >= reflect.Uint && typ.Kind() <= reflect.Uint32 {
			v.SetUint(uint64(i))
		} else {
			v.SetInt(int64(i))
		}
		s := v.Interface().(fmt.Stringer).String()
		back, err := runtime.ParseLiteral(s, typ)
		if err != nil || !reflect.DeepEqual(back, v.Interface()) {
			break
		}
		out = append(out, s)
	}
	return out
}

// conditionNames are the pre/post-condition attributes, as the runtime
// evaluates them: the inspector's fields.
func conditionNames() []string {
	return append(append([]string{}, runtime.PreConditions[:]...), runtime.PostConditions[:]...)
}

// authoringRoutes adds the authoring API to mux.
func (e *editor) authoringRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/conditions", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, conditionNames())
	})
	mux.HandleFunc("POST /api/script", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Code string `json:"code"`
		}
		if !readJSON(w, r, 1<<20, false, &req) {
			return
		}
		writeJSON(w, checkScript(req.Code))
	})
	mux.HandleFunc("POST /api/subtree", func(w http.ResponseWriter, r *http.Request) {
		var req subtreeRequest
		ms, ok := e.modelsFor(w, r, &req, &req.Path, &req.Doc)
		if !ok {
			return
		}
		d, keys, err := extractSubtree(e.reg, ms, req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"doc": d, "tree": req.Tree + 1, "keys": keys})
	})
	mux.HandleFunc("POST /api/subtrees", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Path string  `json:"path"`
			Doc  docJSON `json:"doc"`
		}
		ms, ok := e.modelsFor(w, r, &req, &req.Path, &req.Doc)
		if !ok {
			return
		}
		writeJSON(w, subtreesOf(e.reg, ms, req.Doc))
	})
}

// modelsFor decodes a request about a file of the folder into req (whose
// path field is path) and reads the node models of that file (none for a
// new file), its doc valid; a bad request is answered here, and ok is false.
func (e *editor) modelsFor(w http.ResponseWriter, r *http.Request, req any, path *string, doc *docJSON) ([]*runtime.NodeModel, bool) {
	if !readJSON(w, r, maxBody, false, req) {
		return nil, false
	}
	if err := doc.valid(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	p, err := e.clean(*path)
	var base *runtime.Document
	if err == nil {
		base, err = e.base(p)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return base.Models, true
}
