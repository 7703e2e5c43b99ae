package studio

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/view"
)

// treeNode is one node of a tree as the page draws it.
type treeNode struct {
	UID    uint32 `json:"uid"`
	Parent uint32 `json:"parent"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Path   string `json:"path"`
	Kind   string `json:"kind"` // action, condition, control, decorator or subtree: its colour
	// Substitute is what a substitution rule built in the node's place
	// ("a test node (arrive)"), when one did (runtime.Substituted).
	Substitute string     `json:"substitute,omitempty"`
	Children   []uint32   `json:"children"`
	Ports      []portInfo `json:"ports"`
	// Goals is a LookUp's table: each goal, its tree and the child that
	// runs that tree (the page marks the live one).
	Goals []goalInfo `json:"goals,omitempty"`
}

// goalInfo is one row of a LookUp's table.
type goalInfo struct {
	Goal  string `json:"goal"`
	Tree  string `json:"tree"`
	Child uint32 `json:"child"`
}

// goalsOf is a LookUp's table, goals in its order, each with the child
// that runs its tree; nil for any other node.
func goalsOf(n runtime.Node) []goalInfo {
	lu, ok := n.(*runtime.LookUp)
	if !ok {
		return nil
	}
	b := runtime.NodeOf(n)
	trees, kids := lu.TreeIDs(), b.Children()
	raw := ""
	for _, p := range b.Ports() {
		if p.Name == "table" {
			raw = p.Raw
		}
	}
	// The table as written gives each goal's tree; the node's children
	// are its distinct trees, in TreeIDs' order.
	var out []goalInfo
	for _, pair := range strings.Split(raw, ";") {
		goal, tree, ok := strings.Cut(pair, "=")
		if !ok {
			continue
		}
		g := goalInfo{Goal: strings.TrimSpace(goal), Tree: strings.TrimSpace(tree)}
		for i, id := range trees {
			if id == g.Tree && i < len(kids) {
				g.Child = runtime.NodeOf(kids[i]).UID()
			}
		}
		out = append(out, g)
	}
	return out
}

// portInfo is a port of a node as the tree set it.
type portInfo struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	Type string `json:"type"`
	Raw  string `json:"raw"`
	Key  string `json:"key,omitempty"`
}

// shippedNodes is the registry the studio reads node kinds from.
var shippedNodes = sync.OnceValue(mission.Nodes)

// kindOf is a node's kind as Groot2 colours it: its type's in the shipped
// registry, else what its children say (a type of a program's own: none,
// an action; one, a decorator; more, a control).
func kindOf(b *runtime.Base) string {
	if b.Type() == "SubTree" {
		return "subtree"
	}
	if t, ok := shippedNodes().Lookup(b.Type()); ok {
		return strings.ToLower(t.Kind.String())
	}
	switch len(b.Children()) {
	case 0:
		return "action"
	case 1:
		return "decorator"
	}
	return "control"
}

// describe lists a tree's nodes by UID order (UID i+1 at i).
func describe(tree *runtime.Tree) []treeNode {
	all := tree.Nodes()
	out := make([]treeNode, len(all))
	for i, n := range all {
		b := runtime.NodeOf(n)
		tn := treeNode{UID: b.UID(), Name: b.Name(), Type: b.Type(), Path: b.Path(), Kind: kindOf(b), Substitute: runtime.Substituted(n),
			Children: []uint32{}, Ports: []portInfo{}, Goals: goalsOf(n)}
		for _, c := range b.Children() {
			tn.Children = append(tn.Children, runtime.NodeOf(c).UID())
		}
		for _, p := range b.Ports() {
			tn.Ports = append(tn.Ports, portInfo{Name: p.Name, Dir: p.Dir.String(), Type: runtime.TypeName(p.Type), Raw: p.Raw, Key: p.Key})
		}
		out[i] = tn
	}
	for i := range out {
		for _, c := range out[i].Children {
			if int(c) <= len(out) {
				out[c-1].Parent = out[i].UID
			}
		}
	}
	return out
}

// bbEntry is one blackboard entry as the page lists it. Times are
// milliseconds since the run's start, on the tree's clock.
type bbEntry struct {
	Scope string          `json:"scope"`
	Key   string          `json:"key"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	shown
	Seq   uint64  `json:"seq"`
	Stamp float64 `json:"stamp"`
}

// shown is a value as a person reads it (view.Value: as rostopic echo
// shows a message): folded to one line, and whole when that takes more
// than one line.
type shown struct {
	Line string `json:"line"`
	Text string `json:"text,omitempty"`
}

// show is v as shown; a value as a recording holds it is a
// json.RawMessage. The text is cut at maxValueText.
func show(v any) shown {
	s := shown{Line: view.ValueLine(v)}
	if text := view.Value(v); strings.Contains(text, "\n") {
		s.Text = cut(text, maxValueText)
	}
	s.Line = cut(s.Line, maxValueText)
	return s
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// maxValueText bounds the text of one value sent to a page.
const maxValueText = 8192

// scopes is a tree's blackboards by name (record.ScopeNames), in name
// order.
type scope struct {
	name string
	bb   *runtime.Blackboard
}

func scopesOf(tree *runtime.Tree) []scope {
	var out []scope
	for bb, name := range record.ScopeNames(tree) {
		out = append(out, scope{name: name, bb: bb})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// readBlackboard reads every written entry of every scope; changed, when
// set, keeps only the entries whose sequence number differs from the
// one it holds (and records the new ones). Safe beside the tick: the
// blackboard locks its entries.
func readBlackboard(scopes []scope, t0 time.Time, seen map[string]uint64) []bbEntry {
	out := []bbEntry{}
	for _, s := range scopes {
		for _, k := range s.bb.Keys() {
			e := s.bb.Entry(k)
			if e == nil {
				continue
			}
			v, seq, stamp := e.Load()
			if v == nil {
				continue
			}
			if seen != nil {
				id := s.name + "\x00" + k
				if seen[id] == seq {
					continue
				}
				seen[id] = seq
			}
			out = append(out, bbEntry{Scope: s.name, Key: k, Type: runtime.TypeName(e.Type()), Value: jsonValue(v), shown: show(v), Seq: seq, Stamp: ms(stamp, t0)})
		}
	}
	return out
}

// jsonValue writes a blackboard value as JSON in the form view.ValueJSON
// gives it (a message's fields by their ROS names, times as seconds, NaN
// as "nan").
// A value longer than maxValueJSON (a laser scan) is cut, as a string.
func jsonValue(v any) json.RawMessage {
	b := []byte(view.ValueJSON(v))
	if len(b) > maxValueJSON {
		b, _ = json.Marshal(string(b[:maxValueJSON]) + "…")
	}
	return b
}

// maxValueJSON bounds the JSON of one blackboard value sent to a page.
const maxValueJSON = 2048

// ms is t in milliseconds since t0 (0 for a zero t).
func ms(t, t0 time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.Sub(t0).Microseconds()) / 1000
}

// parseValue reads a value typed in the page: JSON (a number, true, a
// quoted string, an object), else the text itself.
func parseValue(text string) any {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &v); err == nil {
		return v
	}
	return text
}

// portValue is the value a node's port reads now (nil when its entry is
// not set), with the key it resolved.
func portValue(n *runtime.Base, p portInfo) any {
	if p.Key == "" {
		if p.Dir == "output" || p.Raw == "" {
			return nil
		}
		return p.Raw
	}
	v, _ := n.Blackboard().Get(p.Key)
	return v
}
