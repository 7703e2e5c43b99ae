package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

const goodTree = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <Script code="n := 0; s := 'a'; ok := true; x := 1.5"/>
      <Script code="n += 1"/>
    </Sequence>
  </BehaviorTree>
</root>`

func TestEveryCommandHasHelpWithAnExample(t *testing.T) {
	for _, c := range commands() {
		code, _, stderr := runCLI(c.Name, "--help")
		assert.Equal(t, exitOK, code, "%s --help: exit %d", c.Name, code)
		assert.Contains(t, stderr, "Usage: btrobot "+c.Name, "%s --help lacks usage or an example:\n%s", c.Name, stderr)
		assert.Contains(t, stderr, "Example:", "%s --help lacks usage or an example:\n%s", c.Name, stderr)
	}
	code, _, _ := runCLI()
	assert.Equal(t, exitUsage, code, "no command: exit %d, want 2", code)
	code, _, stderr := runCLI("fly")
	assert.Equal(t, exitUsage, code, "unknown command: exit %d, %s", code, stderr)
	assert.Contains(t, stderr, `unknown command "fly"`, "unknown command: exit %d, %s", code, stderr)
}

func TestTickOutput(t *testing.T) {
	path := writeFile(t, "t.xml", goodTree)
	code, out, stderr := runCLI("tick", path, "--ticks", "2", "--set", "extra=3")
	require.Equal(t, exitOK, code, "exit %d: %s", code, stderr)
	want := `{"tick":1,"status":"SUCCESS"}
{"tick":2,"status":"SUCCESS"}
{"blackboard":{"extra":3,"n":1,"ok":true,"s":"a","x":1.5}}
`
	require.Equal(t, want, out, "tick printed\n%s\nwant\n%s", out, want)
}

func TestTickErrorsAndExitCodes(t *testing.T) {
	failing := writeFile(t, "f.xml", `<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
	  <Script code="n := 1"/><Script code="m = 2"/></Sequence></BehaviorTree></root>`)
	code, out, _ := runCLI("tick", failing, "--ticks", "3")
	assert.Equal(t, exitFailed, code, "a failing tick: exit %d, want 1", code)
	var line map[string]any
	err := json.Unmarshal([]byte(strings.TrimSpace(out)), &line)
	assert.NoError(t, err, "error line %q: want {\"tick\":1,\"error\":...naming the node path}", out)
	assert.Equal(t, 1.0, line["tick"], "error line %q: want {\"tick\":1,\"error\":...naming the node path}", out)
	assert.Contains(t, line["error"], "M/Sequence/Script#2", "error line %q: want {\"tick\":1,\"error\":...naming the node path}", out)
	bad := writeFile(t, "b.xml", `<root BTCPP_format="4"><BehaviorTree ID="M"><Sequnce/></BehaviorTree></root>`)
	code, _, stderr := runCLI("tick", bad, "--ticks", "1")
	assert.Equal(t, exitUsage, code, "a tree that does not load: exit %d, %s", code, stderr)
	assert.Contains(t, stderr, "did you mean Sequence", "a tree that does not load: exit %d, %s", code, stderr)
	code, _, _ = runCLI("tick", "--ticks", "1")
	assert.Equal(t, exitUsage, code, "no file: exit %d", code)
}

func TestCheckExitCodes(t *testing.T) {
	good := writeFile(t, "good.xml", goodTree)
	bad := writeFile(t, "bad.xml", `<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Nope/><Inverter/></Sequence></BehaviorTree></root>`)
	notXML := writeFile(t, "n.xml", "this is not xml <")
	cases := []struct {
		files []string
		code  int
		want  []string
	}{
		{[]string{good}, exitOK, nil},
		{[]string{good, bad}, exitFailed, []string{`bad.xml:1:55: M/Sequence/Nope: unknown node type "Nope"`, `M/Sequence/Inverter: Inverter (a decorator) takes exactly 1 child, has 0`}},
		{[]string{bad, notXML}, exitUsage, []string{"n.xml:1:"}},
		{[]string{filepath.Join(t.TempDir(), "missing.xml")}, exitUsage, []string{"missing.xml"}},
	}
	for _, tc := range cases {
		code, out, _ := runCLI(append([]string{"check"}, tc.files...)...)
		assert.Equal(t, tc.code, code, "check %v: exit %d, want %d\n%s", tc.files, code, tc.code, out)
		for _, w := range tc.want {
			assert.Contains(t, out, w, "check %v printed\n%s\nwant a line containing %q", tc.files, out, w)
		}
	}
}

func TestBenchPrintsOneJSONLine(t *testing.T) {
	path := writeFile(t, "t.xml", goodTree)
	code, out, stderr := runCLI("bench", path, "--ticks", "100")
	require.Equal(t, exitOK, code, "exit %d: %s", code, stderr)
	var r map[string]float64
	require.NoError(t, json.Unmarshal([]byte(out), &r), "%q", out)
	for _, k := range []string{"nodes", "load_ms", "ns_per_tick", "ns_per_node", "allocs_per_tick"} {
		_, ok := r[k]
		assert.True(t, ok, "bench output lacks %q: %s", k, out)
	}
	assert.Equal(t, 3.0, r["nodes"], "bench %s", out)
	assert.Greater(t, r["ns_per_tick"], 0.0, "bench %s", out)
}

func TestNodesFormats(t *testing.T) {
	for _, f := range []string{"text", "groot", "xsd", "markdown"} {
		code, out, stderr := runCLI("nodes", "--format", f)
		assert.Equal(t, exitOK, code, "nodes --format %s: exit %d, %d bytes, %s", f, code, len(out), stderr)
		assert.Contains(t, out, "ReactiveSequence", "nodes --format %s: exit %d, %d bytes, %s", f, code, len(out), stderr)
	}
	code, _, _ := runCLI("nodes", "--format", "pdf")
	assert.Equal(t, exitUsage, code, "an unknown format must be a usage error")
}

// The README's first command must keep working.
func TestReadmeFirstCommand(t *testing.T) {
	code, out, stderr := runCLI("tick", "../../trees/missions/hello.xml", "--ticks", "12")
	require.Equal(t, exitOK, code, "exit %d\n%s\n%s", code, out, stderr)
	require.Contains(t, out, `"laps":3`, "exit %d\n%s\n%s", code, out, stderr)
}

func TestCheckProfiles(t *testing.T) {
	bad := writeFile(t, "bad.yaml", "rate: -3\ninputs:\n  - topic: odom\n    type: nav_msgs/Odometri\n    kee: x\n")
	notYAML := writeFile(t, "n.yaml", "rate: [\n")
	cases := []struct {
		files []string
		code  int
		want  []string
	}{
		{[]string{"../../robots/sim.yaml", "../../robots/turtlebot3.yaml"}, exitOK, nil},
		{[]string{bad}, exitFailed, []string{
			"bad.yaml:1:7: rate: rate -3 is not allowed: want a positive number of Hz",
			`bad.yaml:4:11: inputs[0].type: unknown ROS message type "nav_msgs/Odometri" (did you mean nav_msgs/Odometry?)`,
			`bad.yaml:5:5: inputs[0]: unknown field "kee" (did you mean key?`,
		}},
		{[]string{notYAML}, exitUsage, []string{"n.yaml:1:1: not valid YAML"}},
	}
	for _, tc := range cases {
		code, out, _ := runCLI(append([]string{"check"}, tc.files...)...)
		assert.Equal(t, tc.code, code, "check %v: exit %d, want %d\n%s", tc.files, code, tc.code, out)
		for _, w := range tc.want {
			assert.Contains(t, out, w, "check %v printed\n%s\nwant a line containing %q", tc.files, out, w)
		}
	}
}

// TestFlagErrorsNameTheFlag: a flag with a bad value is refused with a
// line that names the flag, the value and what would be right, exit 2.
func TestFlagErrorsNameTheFlag(t *testing.T) {
	tree := writeFile(t, "t.xml", goodTree)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tick", tree, "--ticks", "-1"}, "btrobot tick: --ticks -1: want 0 or more"},
		{[]string{"tick", tree, "--set", "9x=1"}, `--set 9x=1: blackboard key "9x": a key is a letter or '_' followed by letters, digits or '_'`},
		{[]string{"tick", tree, "--set", "k:int=1"}, `--set k:int=1: unknown type "int"`},
		{[]string{"bench", tree, "--ticks", "-1"}, "btrobot bench: --ticks -1: want 0 (about a second's worth) or more"},
		{[]string{"run", "--tree", tree, "--rate", "0"}, "btrobot run: --rate 0: want a positive number of Hz, 0.1 to 1000 Hz"},
		{[]string{"run", "--tree", tree, "--rate", "5000"}, "btrobot run: --rate 5000: want a positive number of Hz, 0.1 to 1000 Hz"},
		{[]string{"run", "--tree", tree, "--set", "a.b=1"}, `btrobot run: --set a.b=1: blackboard key "a.b"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(tc.args...)
			assert.Equal(t, exitUsage, code, "exit %d, want 2", code)
			assert.Contains(t, stderr, tc.want, "stderr:\n%s\nwant %q", stderr, tc.want)
			assert.NotContains(t, stderr, "Usage:", "a bad value gets its line, not the usage text:\n%s", stderr)
		})
	}
}

// TestTickWithSubstitutionRules: --substitute reads BehaviorTree.CPP's
// substitution rules: the nodes they match run as test nodes, and the
// explanation says so; a rules file with a mistake is a usage error at
// its line and column.
func TestTickWithSubstitutionRules(t *testing.T) {
	rules := writeFile(t, "rules.json", `{
  "TestNodeConfigs": {"flat": {"return_status": "FAILURE", "failure_script": "why := 'battery flat'"}},
  "SubstitutionRules": {"battery_ok": "flat"}
}`)
	bad := writeFile(t, "bad.json", `{"TestNodeConfigs": {"flat": {"retrun_status": "FAILURE"}}, "SubstitutionRules": {}}`)
	for _, tc := range []struct {
		name   string
		rules  string
		code   int
		stdout string
		stderr string
	}{
		{"a condition made to fail", rules, exitOK, `{"tick":1,"status":"FAILURE"}` + "\n" + `{"blackboard":{"charge":1,"greeting":"","laps":0,"why":"battery flat"}}`,
			"battery_ok (ScriptCondition) FAILURE: substituted by the test node flat: return_status FAILURE"},
		{"a mistake in the rules", bad, exitUsage, "", `bad.json:1:31: TestNodeConfigs.flat: unknown key "retrun_status" (did you mean return_status?)`},
		{"no rules file", filepath.Join(t.TempDir(), "none.json"), exitUsage, "", "none.json: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI("tick", "../../trees/missions/hello.xml", "--ticks", "1", "--substitute", tc.rules)
			assert.Equal(t, tc.code, code, "stderr:\n%s", stderr)
			assert.Equal(t, tc.stdout, strings.TrimSpace(stdout))
			assert.Contains(t, stderr, tc.stderr)
		})
	}
}
