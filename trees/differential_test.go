package trees_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// The differential suite: trees of built-in nodes and scripts whose
// tick-by-tick root status, final blackboard and status transitions must
// equal BehaviorTree.CPP 4.10's. The expected outputs were produced by
// BT.CPP itself (trees/testdata/differential/README.md says how).

const diffDir = "testdata/differential"

type diffManifest struct {
	Version string     `json:"btcpp_version"`
	Trees   []diffTree `json:"trees"`
}

type diffTree struct {
	Name   string   `json:"name"`
	File   string   `json:"file"`
	Ticks  int      `json:"ticks"`
	Set    []string `json:"set"`
	About  string   `json:"about"`
	Expect string   `json:"expect"` // ok, tick_error, load_error
	Quirk  string   `json:"quirk"`
}

// differences are the trees where btrobot deliberately differs from
// BT.CPP, each with the reason; the node reference documents them.
var differences = map[string]string{
	"error_if_then_else_children":    "rejected when the tree is built (BT.CPP: at the first tick)",
	"error_parallel_threshold":       "rejected when the tree is built (BT.CPP: at the first tick)",
	"error_repeat_missing_port":      "rejected when the tree is built: num_cycles is required (BT.CPP: at the first tick)",
	"error_switch_children":          "rejected when the tree is built (BT.CPP: at the first tick)",
	"set_blackboard_over_script_key": "BT.CPP erases the entry, then throws (a bug); btrobot converts the literal to the entry's type",
}

func loadManifest(t testing.TB) diffManifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(diffDir, "manifest.json"))
	require.NoError(t, err)
	var m diffManifest
	require.NoError(t, json.Unmarshal(data, &m))
	require.NotEmpty(t, m.Trees, "empty manifest")
	return m
}

func TestDifferentialAgainstBTCPP(t *testing.T) {
	m := loadManifest(t)
	identical, documented := 0, 0
	for _, dt := range m.Trees {
		t.Run(dt.Name, func(t *testing.T) {
			problems := diffOne(t, dt)
			if len(problems) == 0 {
				identical++
				return
			}
			if reason, ok := differences[dt.Name]; ok {
				documented++
				t.Logf("documented difference: %s (%s)", reason, strings.Join(problems, "; "))
				return
			}
			assert.Fail(t, fmt.Sprintf("differs from BehaviorTree.CPP %s:\n  %s\n(%s)", m.Version, strings.Join(problems, "\n  "), dt.About))
		})
	}
	t.Logf("%d of %d trees tick identically to BehaviorTree.CPP %s; %d documented differences", identical, len(m.Trees), m.Version, documented)
}

// diffOne runs one tree as `btrobot tick` does (mission.Tick) and returns
// how it differs from BT.CPP's recorded output.
func diffOne(t testing.TB, dt diffTree) []string {
	t.Helper()

	path := filepath.Join(diffDir, dt.File)
	var out bytes.Buffer
	_, err := mission.Tick(&out, mission.TickConf{File: path, Ticks: dt.Ticks, Seed: 1, Set: dt.Set, Substitute: substituteFile(path)})
	var loadErr *mission.LoadError
	refused := errors.As(err, &loadErr)
	base := strings.TrimSuffix(path, ".xml")

	if dt.Expect == "load_error" {
		if !refused {
			return []string{fmt.Sprintf("BT.CPP refuses to load it; btrobot loads it (%v): %s", err, out.String())}
		}
		return nil
	}
	switch {
	case refused:
		return []string{"btrobot refuses to load it: " + err.Error()}
	case err != nil:
		return []string{err.Error()}
	}
	want := readJSONLines(t, base+".trace.jsonl")
	got := parseJSONLines(t, out.Bytes())
	var problems []string
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g map[string]any
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if p := diffLine(w, g); p != "" {
			problems = append(problems, p)
		}
	}
	if dt.Expect == "ok" && len(problems) == 0 {
		problems = append(problems, diffTransitions(t, dt, base+".transitions.jsonl")...)
	}
	return problems
}

func diffLine(want, got map[string]any) string {
	switch {
	case want == nil:
		return fmt.Sprintf("extra line %v", got)
	case got == nil:
		return fmt.Sprintf("missing line %v", want)
	case want["blackboard"] != nil || got["blackboard"] != nil:
		wb, _ := want["blackboard"].(map[string]any)
		gb, _ := got["blackboard"].(map[string]any)
		return diffBlackboard(wb, gb)
	case want["error"] != nil:
		if got["error"] == nil || got["tick"] != want["tick"] {
			return fmt.Sprintf("tick %v: BT.CPP fails (%v); btrobot: %v", want["tick"], want["error"], got)
		}
		return ""
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("tick %v: BT.CPP %v, btrobot %v", want["tick"], want["status"], describe(got))
		}
		return ""
	}
}

func describe(line map[string]any) string {
	if e, ok := line["error"]; ok {
		return fmt.Sprintf("error %v", e)
	}
	return fmt.Sprint(line["status"])
}

// diffBlackboard compares values as BT.CPP prints them: numbers by value
// (BT.CPP's reals may be btrobot's integers when equal), an entry BT.CPP
// declared but never wrote (null) may be absent.
func diffBlackboard(want, got map[string]any) string {
	var diffs []string
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		w, inW := want[k]
		g, inG := got[k]
		switch {
		case inW && w == nil && !inG:
		case !inW:
			diffs = append(diffs, fmt.Sprintf("%s: BT.CPP has no entry, btrobot %v", k, g))
		case !inG:
			diffs = append(diffs, fmt.Sprintf("%s: BT.CPP %v, btrobot has no entry", k, w))
		case !sameValue(w, g):
			diffs = append(diffs, fmt.Sprintf("%s: BT.CPP %#v, btrobot %#v", k, w, g))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return "blackboard: " + strings.Join(diffs, ", ")
}

// sameValue compares a value of BT.CPP's trace with btrobot's. One
// representation differs by design (runtime/script's doc): scripts give
// booleans as Go bools where BT.CPP gives the reals 1.0 and 0.0, so a true
// here equals BT.CPP's 1.0.
func sameValue(w, g any) bool {
	if _, num := w.(json.Number); !num {
		return reflect.DeepEqual(w, g)
	}
	if b, ok := g.(bool); ok {
		if b {
			g = json.Number("1")
		} else {
			g = json.Number("0")
		}
	}
	wn, wok := w.(json.Number)
	gn, gok := g.(json.Number)
	if wok && gok {
		wf, _ := wn.Float64()
		gf, _ := gn.Float64()
		return wf == gf || math.Abs(wf-gf) <= 1e-9*math.Max(math.Abs(wf), 1)
	}
	return reflect.DeepEqual(w, g)
}

func readJSONLines(t testing.TB, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return parseJSONLines(t, data)
}

func parseJSONLines(t testing.TB, data []byte) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var m map[string]any
		require.NoError(t, dec.Decode(&m), "bad JSON line %q", sc.Text())
		if tk, ok := m["tick"].(json.Number); ok {
			n, _ := tk.Int64()
			m["tick"] = int(n)
		}
		lines = append(lines, m)
	}
	return lines
}

// diffTransitions replays the tree with an observer and compares every
// status transition with BT.CPP's, naming nodes as BT.CPP does: the
// subtree path, then the name, or Type::UID for unnamed nodes.
func diffTransitions(t testing.TB, dt diffTree, path string) []string {
	t.Helper()

	want := readJSONLines(t, path)
	doc, err := trees.Load(strings.TrimSuffix(path, ".transitions.jsonl") + ".xml")
	if err != nil {
		return []string{err.Error()}
	}
	bb := runtime.NewBlackboard(nil)
	for _, kv := range dt.Set {
		k, v, err := mission.Entry(kv)
		if err == nil {
			err = bb.Set(k, v)
		}
		if err != nil {
			return []string{err.Error()}
		}
	}
	conf := runtime.BuildConf{Seed: 1, Blackboard: bb}
	if f := substituteFile(strings.TrimSuffix(path, ".transitions.jsonl") + ".xml"); f != "" {
		if conf.Substitutions, err = runtime.LoadSubstitutions(f); err != nil {
			return []string{err.Error()}
		}
	}
	tree, err := runtime.Build(mission.Nodes(), doc, conf)
	if err != nil {
		return []string{err.Error()}
	}
	names := btcppPaths(tree)
	var got []map[string]any
	tick := 0
	tree.Observe(runtime.ObserverFunc(func(tr runtime.Transition) {
		got = append(got, map[string]any{"tick": tick, "path": names[tr.Node], "from": tr.From.String(), "to": tr.To.String()})
	}))
	for tick = 1; tick <= dt.Ticks; tick++ {
		if _, err := tree.TickExactlyOnce(); err != nil {
			break
		}
	}
	for i := 0; i < max(len(want), len(got)); i++ {
		if i >= len(want) || i >= len(got) || fmt.Sprint(want[i]) != fmt.Sprint(got[i]) {
			var w, g any = "nothing", "nothing"
			if i < len(want) {
				w = want[i]
			}
			if i < len(got) {
				g = got[i]
			}
			return []string{fmt.Sprintf("transition %d: BT.CPP %v, btrobot %v", i+1, w, g)}
		}
	}
	return nil
}

// substituteFile is the substitution rules beside a tree (NAME.substitute.json,
// given to BT.CPP as loadSubstitutionRuleFromJSON), or "" when it has none.
func substituteFile(xmlPath string) string {
	f := strings.TrimSuffix(xmlPath, ".xml") + ".substitute.json"
	if _, err := os.Stat(f); err != nil {
		return ""
	}
	return f
}

func btcppPaths(tree *runtime.Tree) map[*runtime.Base]string {
	out := map[*runtime.Base]string{}
	var walk func(n runtime.Node, prefix string)
	walk = func(n runtime.Node, prefix string) {
		b := runtime.NodeOf(n)
		typeID := b.Type()
		if st, ok := n.(*runtime.SubTree); ok {
			typeID = st.TreeID() // BT.CPP's type ID of a SubTree is the tree's ID
		}
		name := b.Name()
		if name == typeID {
			name = fmt.Sprintf("%s::%d", typeID, b.UID())
		}
		out[b] = prefix + name
		if typeID != b.Type() {
			prefix = out[b] + "/"
		}
		for _, c := range b.Children() {
			walk(c, prefix)
		}
	}
	walk(tree.Root(), "")
	return out
}
