package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const shipped = "../trees/missions"

func shippedCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := LoadCatalog(CatalogConf{Dir: shipped, Profile: "../robots/sim.yaml", Places: "../worlds/office"})
	require.NoError(t, err)
	return c
}

func TestPayloadIsTypedByThePorts(t *testing.T) {
	cat := shippedCatalog(t)
	patrol, err := cat.Lookup("Patrol")
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		payload string
		want    map[string]any
		wantErr string
	}{
		{name: "empty", payload: "", want: map[string]any{}},
		{name: "an int port", payload: "left: 2", want: map[string]any{"left": 2}},
		{name: "a string port given a number keeps the text", payload: "target: 12", want: map[string]any{"target": "12"}},
		{name: "a list port", payload: "route: [kitchen, lab]", want: map[string]any{"route": []string{"kitchen", "lab"}}},
		{name: "a key no port feeds keeps YAML's type", payload: "speed: 0.5", want: map[string]any{"speed": 0.5}},
		{name: "wrong type names key and type", payload: "left: many", wantErr: `payload:1:1: key "left" wants int: got the text "many"`},
		{name: "a real into an int", payload: "left: 1.5", wantErr: `key "left" wants int`},
		{name: "not a map", payload: "- a", wantErr: "want a YAML map"},
		{name: "a scalar", payload: "kitchen", wantErr: "want a YAML map"},
		{name: "bad YAML", payload: "left: [1", wantErr: "payload:"},
		{name: "a bad key", payload: "'9 lives': 1", wantErr: `key "9 lives": a key is a letter`},
		{name: "a key twice", payload: "left: 1\nleft: 2", wantErr: "payload:"},
		{name: "a map value", payload: "target: {x: 1}", wantErr: `key "target" wants string: got a mapping`},
		{name: "null", payload: "target: ~", wantErr: "got null"},
		{name: "every problem at once", payload: "left: x\ntarget: {a: 1}", wantErr: `key "left" wants int: got the text "x"; payload:2:1: key "target"`},
		{name: "too large", payload: "a: '" + strings.Repeat("x", maxPayload) + "'", wantErr: "more than 65536"},
		{name: "too many keys", payload: manyKeys(maxPayloadKeys + 1), wantErr: "257 keys, more than 256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals, err := parsePayload(patrol, tc.payload)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			got := map[string]any{}
			for _, v := range vals {
				got[v.key] = v.v
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func manyKeys(n int) string {
	var sb strings.Builder
	for i := range n {
		sb.WriteString("k")
		sb.WriteString(strings.Repeat("a", i%20))
		sb.WriteString(string(rune('a' + i%26)))
		sb.WriteString(strings.Repeat("b", i/26))
		sb.WriteString(": 1\n")
	}
	return sb.String()
}

func TestLookupNamesTheKnownMissions(t *testing.T) {
	cat := shippedCatalog(t)
	for _, tc := range []struct {
		name, mission, want, wantErr string
	}{
		{name: "by tree ID", mission: "Patrol", want: "Patrol"},
		{name: "by file", mission: "patrol.xml", want: "Patrol"},
		{name: "by file without .xml", mission: "dock_and_charge", want: "DockAndCharge"},
		{name: "a subtree is a mission too", mission: "WaitForRobot", want: "WaitForRobot"},
		{name: "a typo", mission: "Patrl", wantErr: `unknown mission "Patrl" (did you mean Patrol`},
		{name: "unknown", mission: "Fly", wantErr: "the missions are Charge, Deliver"},
		{name: "none", mission: "", wantErr: "no mission named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := cat.Lookup(tc.mission)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, m.ID)
		})
	}
}

func TestLoadCatalogListsEveryProblem(t *testing.T) {
	write := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for n, body := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644))
		}
		return dir
	}
	good := `<root BTCPP_format="4" main_tree_to_execute="A"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`
	for _, tc := range []struct {
		name  string
		robot string
		files map[string]string
		want  []string
	}{
		{name: "an empty directory", files: map[string]string{}, want: []string{"holds no tree file"}},
		{name: "an unknown node and a broken file, both", files: map[string]string{
			"a.xml": good,
			"b.xml": "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"B\">\n  <Sequnce/>\n</BehaviorTree></root>",
			"c.xml": "<root",
		}, want: []string{"b.xml:3:3", "Sequnce", "c.xml:1"}},
		{name: "one ID in two files", files: map[string]string{"a.xml": good, "b.xml": good}, want: []string{`tree "A" is declared twice`}},
		{name: "a tree that is not the file's main writes a profile input", robot: "../robots/sim.yaml", files: map[string]string{
			"a.xml": "<root BTCPP_format=\"4\" main_tree_to_execute=\"A\"><BehaviorTree ID=\"A\"><AlwaysSuccess/></BehaviorTree>\n" +
				"<BehaviorTree ID=\"Drain\">\n  <Script code=\"battery := 0.5\"/></BehaviorTree></root>",
		}, want: []string{"a.xml:3:11", `assigns "battery", an input of the robot profile`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadCatalog(CatalogConf{Dir: write(t, tc.files), Profile: tc.robot})
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParsePreempt(t *testing.T) {
	for _, tc := range []struct{ in, want, wantErr string }{
		{in: "", want: "queue"},
		{in: "Replace", want: "replace"},
		{in: "update", want: "update"},
		{in: "reject", want: "reject"},
		{in: "later", wantErr: `unknown preempt "later": want replace, update, queue or reject`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			p, err := ParsePreempt(tc.in, Queue)
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(p))
		})
	}
}
