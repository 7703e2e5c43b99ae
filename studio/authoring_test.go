package studio_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/trees"
)

// readmeFirst is the README's first mission ("A first mission").
const readmeFirst = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <Script code="count := 0"/>
      <Repeat num_cycles="3">
        <Script code="count += 1"/>
      </Repeat>
      <ScriptCondition code="count == 3"/>
    </Sequence>
  </BehaviorTree>
</root>
`

// TestScriptEndpoint: a script is parsed by btrobot's own parser; what
// does not parse comes back with the parser's message and its column.
func TestScriptEndpoint(t *testing.T) {
	srv := newServer(t, studio.Conf{Dir: t.TempDir()})
	for _, tc := range []struct {
		name, code string
		ok         bool
		col        int
		saying     string
	}{
		{name: "an assignment", code: "laps += 1; battery -= 0.25", ok: true},
		{name: "a condition", code: "battery > 0.2 && !docked", ok: true},
		{name: "empty: no script", code: "", ok: true},
		{name: "an operator without its right side", code: "battery >", col: 10, saying: "expected"},
		{name: "an unclosed parenthesis", code: "(a + 1", col: 7, saying: "')'"},
		{name: "an unclosed string", code: "greeting := 'hello", col: 13, saying: "string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postJSON(t, srv.Addr(), "/api/script", map[string]string{"code": tc.code})
			require.Equal(t, 200, status, string(body))
			var got struct {
				OK  bool   `json:"ok"`
				Msg string `json:"msg"`
				Col int    `json:"col"`
			}
			require.NoError(t, json.Unmarshal(body, &got))
			assert.Equal(t, tc.ok, got.OK, got.Msg)
			if !tc.ok {
				assert.Equal(t, tc.col, got.Col, got.Msg)
				assert.Contains(t, got.Msg, tc.saying)
			}
		})
	}
	t.Run("a request that is not JSON", func(t *testing.T) {
		resp, err := http.Post("http://"+srv.Addr()+"/api/script", "application/json", strings.NewReader(`code=1`))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, 400, resp.StatusCode)
		assert.Contains(t, string(body), "request:")
	})
}

// ticks builds a file's main tree with no robot and returns the root's
// status at each of n ticks and the main scope's blackboard after them.
func ticks(t *testing.T, file string, n int) ([]string, map[string]any) {
	t.Helper()
	tree, _, clock := offlineTree(t, file)
	var out []string
	for range n {
		clock.Advance(time.Second)
		st, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		out = append(out, st.String())
	}
	return out, tree.Blackboard().Snapshot()
}

// entriesByName names blackboard entries as text (SetBlackboard's
// output_key, WasEntryUpdated's entry, UnsetBlackboard's key), not as
// {key}.
const entriesByName = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <Script code="seen := 0; flag := true"/>
      <Sequence name="clear">
        <SetBlackboard value="5" output_key="seen"/>
        <WasEntryUpdated entry="seen"/>
      </Sequence>
      <UnsetBlackboard key="flag"/>
      <Script code="seen += 1"/>
    </Sequence>
  </BehaviorTree>
</root>
`

// TestSubtreeFromSelection: a node and its children, moved into a
// subtree of the file by the editor's endpoint and saved, leave a file
// that checks clean and ticks as before, tick by tick, with the same
// blackboard: the SubTree node remaps every key they use.
func TestSubtreeFromSelection(t *testing.T) {
	dir := copyMissions(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "first.xml"), []byte(readmeFirst), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "entries.xml"), []byte(entriesByName), 0o644))
	srv := newServer(t, studio.Conf{Dir: dir})
	for _, tc := range []struct {
		name, file string
		node       int // depth-first in the main tree
		id         string
		ticks      int
		keys       []string
	}{
		{name: "the README's Repeat", file: "first.xml", node: 2, id: "Count", ticks: 4, keys: []string{"count"}},
		{name: "the README's root", file: "first.xml", node: 0, id: "Whole", ticks: 4, keys: []string{"count"}},
		{name: "hello's lap: scripts' keys", file: "hello.xml", node: 3, id: "Lap", ticks: 5, keys: []string{"charge", "laps"}},
		{name: "hello's three laps, a decorator", file: "hello.xml", node: 2, id: "ThreeLaps", ticks: 5, keys: []string{"charge", "laps"}},
		{name: "hello's greeting, a leaf", file: "hello.xml", node: 6, id: "Greet", ticks: 5, keys: []string{"greeting", "laps"}},
		{name: "entries named as text", file: "entries.xml", node: 2, id: "Clear", ticks: 2, keys: []string{"seen"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := filepath.Join(t.TempDir(), tc.file)
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(orig, data, 0o644))
			wantSt, wantBB := ticks(t, orig, tc.ticks)

			status, body := postJSON(t, srv.Addr(), "/api/subtree", map[string]any{"path": tc.file, "doc": fileDoc(t, srv, tc.file), "tree": 0, "node": tc.node, "id": tc.id})
			require.Equal(t, 200, status, string(body))
			var got struct {
				Doc  json.RawMessage `json:"doc"`
				Tree int             `json:"tree"`
				Keys []string        `json:"keys"`
			}
			require.NoError(t, json.Unmarshal(body, &got))
			assert.Equal(t, tc.keys, got.Keys)
			assert.Equal(t, 1, got.Tree, "the new tree follows its caller")

			saved := filepath.Join(t.TempDir(), tc.file)
			require.NoError(t, os.WriteFile(saved, data, 0o644))
			status, body = postJSON(t, srv.Addr(), "/api/save", map[string]any{"path": tc.file, "doc": got.Doc})
			require.Equal(t, 200, status, string(body))
			assert.JSONEq(t, `{"problems":[],"saved":true}`, string(body), "checks clean")
			doc, err := trees.Load(filepath.Join(dir, tc.file))
			require.NoError(t, err)
			require.NotNil(t, doc.Tree(tc.id), "the new tree is in the file")
			var call *runtime.NodeSpec
			var find func(n *runtime.NodeSpec)
			find = func(n *runtime.NodeSpec) {
				if n == nil {
					return
				}
				if id, _ := n.Attr("ID"); n.Type == "SubTree" && id == tc.id {
					call = n
				}
				for _, c := range n.Children {
					find(c)
				}
			}
			find(doc.Trees[0].Root)
			require.NotNil(t, call, "a SubTree node in the selection's place")
			for _, k := range tc.keys {
				v, _ := call.Attr(k)
				assert.Equal(t, "{"+k+"}", v, "key %s remapped", k)
			}

			gotSt, gotBB := ticks(t, filepath.Join(dir, tc.file), tc.ticks)
			assert.Equal(t, wantSt, gotSt, "the same statuses, tick by tick")
			assert.Equal(t, wantBB, gotBB, "the same blackboard")
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), data, 0o644)) // for the next case
		})
	}
	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			name, id string
			file     string // hello.xml when empty
			node     int
			saying   string
		}{
			{name: "an UnsetBlackboard", id: "Unset", file: "entries.xml", node: 5,
				saying: `UnsetBlackboard key="flag" would remove the subtree's own entry, not this tree's`},
			{name: "an ID the file has", id: "Hello", node: 3, saying: "has a tree Hello already"},
			{name: "a node type's name", id: "Sequence", node: 3, saying: "node type of the palette"},
			{name: "not a name", id: "3 laps", node: 3, saying: "letters, digits and _"},
			{name: "no such node", id: "Lap", node: 70, saying: "no such node"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				file := cmp.Or(tc.file, "hello.xml")
				status, body := postJSON(t, srv.Addr(), "/api/subtree", map[string]any{"path": file, "doc": fileDoc(t, srv, file), "tree": 0, "node": tc.node, "id": tc.id})
				assert.Equal(t, 400, status)
				assert.Contains(t, string(body), tc.saying)
			})
		}
	})
	t.Run("keys used through a subtree with _autoremap are remapped too", func(t *testing.T) {
		// patrol's PatrolStep calls Visit with _autoremap: Visit's keys
		// (target, skipped...) are the caller's.
		doc := fileDoc(t, srv, "patrol.xml")
		var d struct {
			Trees []struct {
				ID string `json:"id"`
			} `json:"trees"`
		}
		require.NoError(t, json.Unmarshal(doc, &d))
		step := -1
		for i, tr := range d.Trees {
			if tr.ID == "PatrolStep" {
				step = i
			}
		}
		require.GreaterOrEqual(t, step, 0)
		// Node 5 of PatrolStep: step, next_place, peek_next, new_round,
		// SetPlace, PopPlace, then SubTree Visit is node 6.
		status, body := postJSON(t, srv.Addr(), "/api/subtree", map[string]any{"path": "patrol.xml", "doc": doc, "tree": step, "node": 6, "id": "VisitCall"})
		require.Equal(t, 200, status, string(body))
		var got struct {
			Keys []string `json:"keys"`
		}
		require.NoError(t, json.Unmarshal(body, &got))
		assert.Subset(t, got.Keys, []string{"target", "skipped", "recoveries", "nav_error"})
	})
}

// TestSubtreesOfAFile: the trees a file offers for SubTree nodes, each
// with its ports: a <TreeNodesModel> entry's when the file has one, else
// the keys the tree uses.
func TestSubtreesOfAFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.xml"), []byte(`<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <SubTree ID="Go" goal="{target}"/>
      <SubTree ID="Count" _autoremap="true"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Go"><Script code="reached := goal"/></BehaviorTree>
  <BehaviorTree ID="Count"><Script code="n += 1; last := '{where}'"/></BehaviorTree>
  <TreeNodesModel>
    <SubTree ID="Go">
      <input_port name="goal" type="std::string">where to go</input_port>
      <output_port name="reached" default="{reached}"/>
    </SubTree>
  </TreeNodesModel>
</root>
`), 0o644))
	srv := newServer(t, studio.Conf{Dir: dir})
	status, body := postJSON(t, srv.Addr(), "/api/subtrees", map[string]any{"path": "m.xml", "doc": fileDoc(t, srv, "m.xml")})
	require.Equal(t, 200, status, string(body))
	var got []struct {
		ID    string `json:"id"`
		Model bool   `json:"model"`
		Ports []struct {
			Name     string `json:"name"`
			Dir      string `json:"dir"`
			Type     string `json:"type"`
			Required bool   `json:"required"`
		} `json:"ports"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	require.Len(t, got, 3)
	assert.Equal(t, "Go", got[1].ID)
	assert.True(t, got[1].Model, "Go has a model")
	require.Len(t, got[1].Ports, 2)
	assert.Equal(t, "goal", got[1].Ports[0].Name)
	assert.Equal(t, "input", got[1].Ports[0].Dir)
	assert.Equal(t, "std::string", got[1].Ports[0].Type)
	assert.True(t, got[1].Ports[0].Required, "no default: to be remapped")
	assert.False(t, got[1].Ports[1].Required, "a default")
	assert.Equal(t, "Count", got[2].ID)
	assert.False(t, got[2].Model)
	var names []string
	for _, p := range got[2].Ports {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"last", "n"}, names, "the keys Count's script uses (a string's braces are no key)")

	t.Run("a subtree made of Main remaps the keys of the subtrees it calls", func(t *testing.T) {
		status, body := postJSON(t, srv.Addr(), "/api/subtree", map[string]any{"path": "m.xml", "doc": fileDoc(t, srv, "m.xml"), "tree": 0, "node": 0, "id": "All"})
		require.Equal(t, 200, status, string(body))
		var got struct {
			Keys []string `json:"keys"`
		}
		require.NoError(t, json.Unmarshal(body, &got))
		// target: Go's remapping; reached: the default of Go's model;
		// last and n: Count's, through _autoremap.
		assert.Equal(t, []string{"last", "n", "reached", "target"}, got.Keys)
	})
}

// TestPaletteChoicesAndScripts: the palette's ports say the values of a
// type with a fixed set of them, derived from the type, and which hold
// scripts.
func TestPaletteChoicesAndScripts(t *testing.T) {
	srv := newServer(t, studio.Conf{Dir: t.TempDir()})
	resp, err := http.Get("http://" + srv.Addr() + "/api/palette")
	require.NoError(t, err)
	var pal []struct {
		ID    string `json:"id"`
		Ports []struct {
			Name      string   `json:"name"`
			Choices   []string `json:"choices"`
			Script    bool     `json:"script"`
			EntryName bool     `json:"entry_name"`
		} `json:"ports"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&pal))
	resp.Body.Close()
	port := func(typ, name string) (choices []string, script, entry bool) {
		for _, p := range pal {
			if p.ID == typ {
				for _, q := range p.Ports {
					if q.Name == name {
						return q.Choices, q.Script, q.EntryName
					}
				}
			}
		}
		require.FailNow(t, fmt.Sprintf("no port %s.%s in the palette", typ, name))
		return nil, false, false
	}
	for _, tc := range []struct {
		typ, port string
		choices   []string
		script    bool
		entry     bool // names a blackboard entry as text
	}{
		{typ: "Precondition", port: "else", choices: []string{"IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED"}},
		{typ: "Log", port: "level", choices: []string{"debug", "info", "warn", "error"}},
		{typ: "Repeat", port: "num_cycles"},
		{typ: "Script", port: "code", script: true},
		{typ: "ScriptCondition", port: "code", script: true},
		{typ: "Precondition", port: "if", script: true},
		{typ: "UnsetBlackboard", port: "key", entry: true},
		{typ: "SetBlackboard", port: "output_key", entry: true},
		{typ: "SetBlackboard", port: "value"},
		{typ: "WasEntryUpdated", port: "entry", entry: true},
		{typ: "TopicFresh", port: "key", entry: true},
	} {
		t.Run(tc.typ+"."+tc.port, func(t *testing.T) {
			choices, script, entry := port(tc.typ, tc.port)
			assert.Equal(t, tc.choices, choices)
			assert.Equal(t, tc.script, script)
			assert.Equal(t, tc.entry, entry)
		})
	}
	t.Run("the pre/post-conditions, as the runtime names them", func(t *testing.T) {
		resp, err := http.Get("http://" + srv.Addr() + "/api/conditions")
		require.NoError(t, err)
		var got []string
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
		resp.Body.Close()
		assert.Equal(t, append(runtime.PreConditions[:], runtime.PostConditions[:]...), got)
		assert.Contains(t, got, "_skipIf")
	})
}

// FuzzScriptEndpoint: whatever is posted as a script to check, the server
// answers 200 with ok or a placed message, or 400 for what is not a
// request, and never panics.
func FuzzScriptEndpoint(f *testing.F) {
	for _, seed := range []string{`{"code":"x := 1"}`, `{"code":"a >"}`, `{"code":"'abc"}`, `{"code":""}`, `{}`, `[]`, ``,
		`{"code":"(((((("}`, `{"code":"@x := 1;; @x"}`, `{"code":7}`} {
		f.Add(seed)
	}
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: f.TempDir()})
	require.NoError(f, err)
	f.Cleanup(func() { srv.Close() })
	f.Fuzz(func(t *testing.T, body string) {
		resp, err := http.Post("http://"+srv.Addr()+"/api/script", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case 400:
			require.NotEmpty(t, out, "a 400 without a message")
		case 200:
			var got struct {
				OK   bool   `json:"ok"`
				Msg  string `json:"msg"`
				Line int    `json:"line"`
				Col  int    `json:"col"`
			}
			require.NoError(t, json.Unmarshal(out, &got))
			if !got.OK {
				require.True(t, got.Msg != "" && got.Line >= 1 && got.Col >= 1, "an error without its place: %s", out)
			}
		default:
			require.FailNow(t, fmt.Sprintf("status %d: %s", resp.StatusCode, out))
		}
	})
}

// BenchmarkSubtrees2000: the file's subtrees and their ports (the keys
// each uses), asked after every edit of a file of several trees, on a
// file of 2,000 nodes in 20 trees.
//
//	go test -run '^$' -bench 'Subtrees2000|ScriptCheck' ./studio/
func BenchmarkSubtrees2000(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString(`<root BTCPP_format="4" main_tree_to_execute="T0">`)
	for tr := 0; tr < 20; tr++ {
		sb.WriteString(`<BehaviorTree ID="T` + strconv.Itoa(tr) + `"><Sequence>`)
		for k := 0; k < 33; k++ {
			sb.WriteString(`<Repeat num_cycles="{n` + strconv.Itoa(k) + `}"><Script code="x` + strconv.Itoa(k) + ` += 1; y := x` + strconv.Itoa(k) + ` * 2"/></Repeat>`)
		}
		sb.WriteString(`<AlwaysSuccess/></Sequence></BehaviorTree>`)
	}
	sb.WriteString(`</root>`)
	require.NoError(b, os.WriteFile(filepath.Join(dir, "big.xml"), []byte(sb.String()), 0o644))
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	require.NoError(b, err)
	defer srv.Close()
	body, err := json.Marshal(map[string]any{"path": "big.xml", "doc": fileDoc(b, srv, "big.xml")})
	require.NoError(b, err)
	b.ResetTimer()
	for range b.N {
		resp, err := http.Post("http://"+srv.Addr()+"/api/subtrees", "application/json", bytes.NewReader(body))
		require.NoError(b, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(b, 200, resp.StatusCode)
	}
}

// BenchmarkScriptCheck: one script checked as it is typed.
func BenchmarkScriptCheck(b *testing.B) {
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: b.TempDir()})
	require.NoError(b, err)
	defer srv.Close()
	body := []byte(`{"code":"visits += 1; rounds += (left == 0) ? 1 : 0"}`)
	for range b.N {
		resp, err := http.Post("http://"+srv.Addr()+"/api/script", "application/json", bytes.NewReader(body))
		require.NoError(b, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// FuzzSubtreeRequest: whatever is posted to make a subtree or to list a
// file's subtrees, the server answers 200 or 400 with a message and
// never panics.
func FuzzSubtreeRequest(f *testing.F) {
	dir := f.TempDir()
	require.NoError(f, os.WriteFile(filepath.Join(dir, "first.xml"), []byte(readmeFirst), 0o644))
	doc := `{"main":"Main","trees":[{"id":"Main","attrs":[],"root":{"type":"Sequence","attrs":[],"children":[{"type":"Script","attrs":[["code","count := 0"]],"children":[]}]}}]}`
	for _, seed := range []string{
		`{"path":"first.xml","doc":` + doc + `,"tree":0,"node":1,"id":"Init"}`,
		`{"path":"first.xml","doc":` + doc + `,"tree":0,"node":0,"id":"Main"}`,
		`{"path":"first.xml","doc":{"trees":[null]},"tree":0,"node":0,"id":"X"}`,
		`{"path":"first.xml","doc":{"trees":[{"id":"A","root":null}]},"tree":0,"node":0,"id":"X"}`,
		`{"path":"first.xml","doc":{"trees":[{"id":"A","root":{"type":"SubTree","attrs":[["ID","A"],["_autoremap","true"]],"children":[null]}}]},"tree":0,"node":0,"id":"B"}`,
		`{"path":"../x.xml"}`, `{"tree":-1}`, `[]`, ``,
	} {
		f.Add(seed)
	}
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	require.NoError(f, err)
	f.Cleanup(func() { srv.Close() })
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/api/subtree", "/api/subtrees"} {
			resp, err := http.Post("http://"+srv.Addr()+path, "application/json", strings.NewReader(body))
			require.NoError(t, err)
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Contains(t, []int{200, 400}, resp.StatusCode, "%s: status %d: %s", path, resp.StatusCode, out)
			if resp.StatusCode == 400 {
				require.NotEmpty(t, out, "%s: status %d: %s", path, resp.StatusCode, out)
			}

		}
	})
}

// TestSubtreeFromAnyNodeChecksClean: in every shipped mission, any node
// of any tree made a subtree leaves a file that `btrobot check`'s checker
// passes, as it passed the mission.
func TestSubtreeFromAnyNodeChecksClean(t *testing.T) {
	dir := copyMissions(t)
	srv := newServer(t, studio.Conf{Dir: dir})
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	require.NoError(t, err)
	type node struct {
		Children []*node `json:"children"`
	}
	count := func(n *node) int {
		var f func(n *node) int
		f = func(n *node) int {
			if n == nil {
				return 0
			}
			c := 1
			for _, k := range n.Children {
				c += f(k)
			}
			return c
		}
		return f(n)
	}
	tried := 0
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			doc := fileDoc(t, srv, name)
			status, body := postJSON(t, srv.Addr(), "/api/check", map[string]any{"path": name, "doc": doc})
			require.Equal(t, 200, status)
			if !assert.JSONEq(t, `{"problems":[],"saved":false}`, string(body), "the mission checks") {
				return
			}
			var d struct {
				Trees []struct {
					ID   string `json:"id"`
					Root *node  `json:"root"`
				} `json:"trees"`
			}
			require.NoError(t, json.Unmarshal(doc, &d))
			for ti, tr := range d.Trees {
				for ni := range count(tr.Root) {
					status, body := postJSON(t, srv.Addr(), "/api/subtree", map[string]any{"path": name, "doc": doc, "tree": ti, "node": ni, "id": "Extracted"})
					require.Equal(t, 200, status, "%s node %d: %s", tr.ID, ni, body)
					var got struct {
						Doc json.RawMessage `json:"doc"`
					}
					require.NoError(t, json.Unmarshal(body, &got))
					status, body = postJSON(t, srv.Addr(), "/api/check", map[string]any{"path": name, "doc": got.Doc})
					require.Equal(t, 200, status)
					assert.JSONEq(t, `{"problems":[],"saved":false}`, string(body), "%s: node %d of %s made a subtree", name, ni, tr.ID)
					tried++
				}
			}
		})
	}
	assert.Greater(t, tried, 100, "nodes tried")
}

// TestNewSubtreeGetsAModel: a subtree made from a selection in a file that
// keeps <TreeNodesModel> entries for its subtrees (as Groot2 saves them)
// gets one, declaring the keys it uses as ports, so that Groot2 shows its
// remapping; saving again keeps one entry; a file without such entries
// gets none.
func TestNewSubtreeGetsAModel(t *testing.T) {
	const modelled = `<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <Script code="count := 0; limit := 3"/>
      <SubTree ID="Counter" count="{count}"/>
      <Repeat num_cycles="2">
        <Script code="count += limit"/>
      </Repeat>
    </Sequence>
  </BehaviorTree>

  <BehaviorTree ID="Counter">
    <Script code="count += 1"/>
  </BehaviorTree>

  <TreeNodesModel>
    <SubTree ID="Counter" editable="true">
      <inout_port name="count"/>
    </SubTree>
  </TreeNodesModel>
</root>
`
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "modelled.xml"), []byte(modelled), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "first.xml"), []byte(readmeFirst), 0o644))
	srv := newServer(t, studio.Conf{Dir: dir})
	for _, tc := range []struct {
		name, file, id string
		node           int
		want           string // the new tree's entry as saved; "" for none
	}{
		{name: "a file with subtree models", file: "modelled.xml", id: "AddLimit", node: 3,
			want: "    <SubTree ID=\"AddLimit\" editable=\"true\">\n      <inout_port name=\"count\"/>\n      <inout_port name=\"limit\"/>\n    </SubTree>\n"},
		{name: "a file without", file: "first.xml", id: "Count", node: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := postJSON(t, srv.Addr(), "/api/subtree", map[string]any{"path": tc.file, "doc": fileDoc(t, srv, tc.file), "tree": 0, "node": tc.node, "id": tc.id})
			require.Equal(t, 200, status, string(body))
			var got struct {
				Doc json.RawMessage `json:"doc"`
			}
			require.NoError(t, json.Unmarshal(body, &got))
			for save := 1; save <= 2; save++ {
				doc := got.Doc
				if save == 2 {
					doc = fileDoc(t, srv, tc.file) // the file as saved, saved again
				}
				status, body = postJSON(t, srv.Addr(), "/api/save", map[string]any{"path": tc.file, "doc": doc})
				require.Equal(t, 200, status, string(body))
				assert.JSONEq(t, `{"problems":[],"saved":true}`, string(body), "save %d checks clean", save)
				data, err := os.ReadFile(filepath.Join(dir, tc.file))
				require.NoError(t, err)
				text := string(data)
				if tc.want == "" {
					assert.NotContains(t, text, "TreeNodesModel", "save %d", save)
					continue
				}
				assert.Equal(t, 1, strings.Count(text, tc.want), "save %d: one entry for %s in\n%s", save, tc.id, text)
				assert.Equal(t, 1, strings.Count(text, `<SubTree ID="Counter" editable="true">`), "save %d: the file's own entry kept", save)
			}
			_, err := trees.Load(filepath.Join(dir, tc.file))
			require.NoError(t, err, "the saved file loads")
		})
	}
}
