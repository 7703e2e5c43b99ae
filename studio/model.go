package studio

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/runtime"
)

// treeNode is one node of a tree as the page draws it.
type treeNode struct {
	UID      uint32     `json:"uid"`
	Parent   uint32     `json:"parent"`
	Name     string     `json:"name"`
	Type     string     `json:"type"`
	Path     string     `json:"path"`
	Children []uint32   `json:"children"`
	Ports    []portInfo `json:"ports"`
}

// portInfo is a port of a node as the tree set it.
type portInfo struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	Type string `json:"type"`
	Raw  string `json:"raw"`
	Key  string `json:"key,omitempty"`
}

// describe lists a tree's nodes by UID order (UID i+1 at i).
func describe(tree *runtime.Tree) []treeNode {
	all := tree.Nodes()
	out := make([]treeNode, len(all))
	for i, n := range all {
		b := runtime.NodeOf(n)
		tn := treeNode{UID: b.UID(), Name: b.Name(), Type: b.Type(), Path: b.Path(), Children: []uint32{}, Ports: []portInfo{}}
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
	Seq   uint64          `json:"seq"`
	Stamp float64         `json:"stamp"`
}

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
			out = append(out, bbEntry{Scope: s.name, Key: k, Type: runtime.TypeName(e.Type()), Value: jsonValue(v), Seq: seq, Stamp: ms(stamp, t0)})
		}
	}
	return out
}

// jsonValue writes a blackboard value as JSON, or as its text when JSON
// cannot carry it.
// A value longer than maxValueJSON (a laser scan) is cut, as a string.
func jsonValue(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprint(v))
	}
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

// portValue is the value a node's port reads now, as JSON (null when its
// entry is not set), with the key it resolved.
func portValue(n *runtime.Base, p portInfo) json.RawMessage {
	if p.Key == "" {
		if p.Dir == "output" || p.Raw == "" {
			return json.RawMessage("null")
		}
		return jsonValue(p.Raw)
	}
	v, ok := n.Blackboard().Get(p.Key)
	if !ok {
		return json.RawMessage("null")
	}
	return jsonValue(v)
}
