package trees

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

type testLeaf struct{ runtime.Base }

func (n *testLeaf) Tick() (runtime.Status, error) { return runtime.Success, nil }

// paletteRegistry is the built-in palette plus a node type with a port of
// every kind the exports treat differently, in a category of its own.
func paletteRegistry(t testing.TB) *runtime.Registry {
	t.Helper()
	reg := runtime.NewRegistry()
	err := reg.Register(runtime.NodeType{
		ID:       "DriveTo",
		Kind:     runtime.ActionKind,
		Category: "skills",
		Summary:  "Drives to a goal; RUNNING while driving.",
		Doc:      "Returns SUCCESS within `tolerance` of the goal, FAILURE when blocked.\nHalting stops the robot.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("goal", "named place | or pose"),
			runtime.InputPort[float64]("speed", "metres per second").WithDefault("0.5"),
			runtime.InputPort[int]("retries", "").WithDefault("-1"),
			runtime.InputPort[uint]("lane", "lane number").WithDefault("0"),
			runtime.InputPort[bool]("reverse", "may drive backwards").WithDefault("false"),
			runtime.InputPort[time.Duration]("timeout", "give up after").WithDefault("30s"),
			runtime.InputPort[[]float64]("tolerance", "x;y;yaw").WithDefault("0.1;0.1;0.2"),
			runtime.OutputPort[float64]("distance", "metres driven"),
			runtime.InOutPort[any]("plan", "the path, updated while driving"),
		},
		New: func(*runtime.Config) (runtime.Node, error) { return &testLeaf{}, nil },
	})
	require.NoError(t, err)
	return reg
}

// TestGrootModel: the palette export loads back as one model per node type
// of the registry, with the same kind, ports, defaults and descriptions,
// and port types that read back as the same Go types.
func TestGrootModel(t *testing.T) {
	reg := paletteRegistry(t)
	var out bytes.Buffer
	require.NoError(t, WriteGrootModel(&out, reg))
	doc, err := Parse("palette.xml", out.Bytes())
	require.NoError(t, err, "%v\n%s", err, out.String())
	types := paletteTypes(reg)
	require.Len(t, doc.Models, len(types), "%d models for %d node types", len(doc.Models), len(types))
	require.GreaterOrEqual(t, len(types), 10, "%d models for %d node types", len(doc.Models), len(types))
	for i, nt := range types {
		m := doc.Models[i]
		if !assert.Equal(t, []any{nt.ID, nt.Kind, nt.Summary, len(nt.Ports)}, []any{m.ID, m.Kind, m.Description, len(m.Ports)}, "model %d: ID, kind, description, number of ports", i) {
			continue
		}
		for j, want := range nt.Ports {
			got := m.Ports[j]
			wantType := want.Type
			if wantType == runtime.AnyType {
				wantType = nil
			}
			assert.Equal(t, want.Name, got.Name, "%s port %s: got %+v, want %+v", nt.ID, want.Name, got, want)
			assert.Equal(t, want.Dir, got.Dir, "%s port %s: got %+v, want %+v", nt.ID, want.Name, got, want)
			assert.Equal(t, want.Default, got.Default, "%s port %s: got %+v, want %+v", nt.ID, want.Name, got, want)
			assert.Equal(t, want.HasDefault, got.HasDefault, "%s port %s: got %+v, want %+v", nt.ID, want.Name, got, want)
			assert.Equal(t, strings.TrimSpace(want.Description), got.Description, "%s port %s: got %+v, want %+v", nt.ID, want.Name, got, want)
			assert.True(t, got.Type == wantType, "%s port %s: got %+v, want %+v", nt.ID, want.Name, got, want)
			name := PortTypeName(want.Type)
			assert.Equal(t, name, m.TypeNames[want.Name], "%s port %s: type written as %q, want %q", nt.ID, want.Name, m.TypeNames[want.Name], name)
		}
	}
	for _, want := range []string{
		`<Action ID="DriveTo">`,
		`<input_port name="speed" type="double" default="0.5">metres per second</input_port>`,
		`<input_port name="timeout" type="std::chrono::milliseconds" default="30s">give up after</input_port>`,
		`<input_port name="tolerance" type="std::vector&lt;double&gt;" default="0.1;0.1;0.2">x;y;yaw</input_port>`,
		`<output_port name="distance" type="double">metres driven</output_port>`,
		`<inout_port name="plan">the path, updated while driving</inout_port>`,
		`<Metadata description="Drives to a goal; RUNNING while driving."/>`,
	} {
		assert.Contains(t, out.String(), want, "palette lacks %s", want)
	}
	assert.NotContains(t, out.String(), `ID="SubTree"`, "the SubTree element is not a palette model: <SubTree ID=…> in a TreeNodesModel declares a tree's ports")
}

// TestPortTypeNames: the names the palette gives Go types, and back.
func TestPortTypeNames(t *testing.T) {
	type pose struct{ X, Y float64 }
	cases := []struct {
		typ  reflect.Type
		name string
		back bool // ParsePortType reads the name back to typ
	}{
		{reflect.TypeFor[int](), "int", true},
		{reflect.TypeFor[float64](), "double", true},
		{reflect.TypeFor[bool](), "bool", true},
		{reflect.TypeFor[string](), "std::string", true},
		{reflect.TypeFor[uint](), "unsigned int", true},
		{reflect.TypeFor[int64](), "int64_t", true},
		{reflect.TypeFor[time.Duration](), "std::chrono::milliseconds", true},
		{reflect.TypeFor[[]string](), "std::vector<std::string>", true},
		{reflect.TypeFor[runtime.Status](), "BT::NodeStatus", true},
		{reflect.TypeFor[pose](), "trees.pose", false},
		{reflect.TypeFor[map[string]int](), "map[string]int", false},
		{nil, "", true},
		{runtime.AnyType, "", false},
	}
	for _, c := range cases {
		got := PortTypeName(c.typ)
		assert.Equal(t, c.name, got, "PortTypeName(%v) = %q, want %q", c.typ, got, c.name)
		back, known := ParsePortType(c.name)
		assert.False(t, c.back && (back != c.typ || !known), "ParsePortType(%q) = %v, %v; want %v", c.name, back, known, c.typ)
		assert.False(t, !c.back && c.typ != runtime.AnyType && (back != nil || known), "ParsePortType(%q) = %v, %v; want unknown", c.name, back, known)
	}
}

// xmllint returns the path of xmllint, failing in CI when it is missing.
func xmllint(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("xmllint")
	if err != nil {
		require.NotEqual(t, "true", os.Getenv("CI"), "xmllint is missing (Debian package libxml2-utils)")
		t.Skip("xmllint is missing (apt-get install libxml2-utils); the XSD is not validated")
	}
	return path
}

// TestXSD: xmllint validates trees against the exported schema: sound trees
// pass, and each mistake an editor can see is flagged.
func TestXSD(t *testing.T) {
	lint := xmllint(t)
	dir := t.TempDir()
	var xsd bytes.Buffer
	require.NoError(t, WriteXSD(&xsd, paletteRegistry(t)))
	schema := filepath.Join(dir, "btrobot.xsd")
	require.NoError(t, os.WriteFile(schema, xsd.Bytes(), 0o644))
	tree := func(body string) string {
		return `<root BTCPP_format="4" main_tree_to_execute="Main"><BehaviorTree ID="Main">` + body + `</BehaviorTree><BehaviorTree ID="Dock"><AlwaysSuccess/></BehaviorTree></root>`
	}
	cases := []struct {
		name, xml string
		wantErr   string // "" for a valid file
	}{
		{"sound tree", tree(`<Sequence name="go" _skipIf="done" _uid="3">
			<DriveTo goal="{target}" speed="1.5" retries="{n}" reverse="True" timeout="1m30s" distance="{d}" plan="{=}"/>
			<DriveTo goal="home" timeout="1500" lane="2" plan="{p}"/>
			<Repeat num_cycles="-1"><Inverter><AlwaysFailure/></Inverter></Repeat>
			<Parallel success_count="1"><AlwaysSuccess/><AlwaysSuccess/></Parallel>
			<SubTree ID="Dock" target="{pose}" _autoremap="true"/>
			<Action ID="MyCustom" anything="goes"/>
			<Control ID="Sequence"><AlwaysSuccess/></Control>
		</Sequence>`), ""},
		{"models and includes", `<root BTCPP_format="4"><include path="x.xml"/><TreeNodesModel>
			<Action ID="A" editable="true"><input_port name="x" type="int" default="1">text</input_port><MetadataFields><Metadata a="b"/></MetadataFields></Action>
			<SubTree ID="S"><output_port name="y"/></SubTree></TreeNodesModel></root>`, ""},
		{"unknown node", tree(`<DriveToo goal="x"/>`), "DriveToo"},
		{"unknown port", tree(`<DriveTo goal="x" sped="1"/>`), "sped"},
		{"missing required port", tree(`<DriveTo speed="1"/>`), "goal"},
		{"not an integer", tree(`<DriveTo goal="x" retries="three"/>`), "retries"},
		{"negative lane", tree(`<DriveTo goal="x" lane="-1"/>`), "lane"},
		{"not a number", tree(`<DriveTo goal="x" speed="fast"/>`), "speed"},
		{"not a boolean", tree(`<DriveTo goal="x" reverse="yes"/>`), "reverse"},
		{"not a duration", tree(`<DriveTo goal="x" timeout="soon"/>`), "timeout"},
		{"literal for an output", tree(`<DriveTo goal="x" distance="3"/>`), "distance"},
		{"decorator with two children", tree(`<Inverter><AlwaysSuccess/><AlwaysSuccess/></Inverter>`), "AlwaysSuccess"},
		{"control without children", tree(`<Sequence/>`), "Sequence"},
		{"leaf with a child", tree(`<AlwaysSuccess><AlwaysFailure/></AlwaysSuccess>`), "AlwaysSuccess"},
		{"not a status", tree(`<Precondition if="true" else="OK"><AlwaysSuccess/></Precondition>`), "else"},
		{"IfThenElse with four children", tree(`<IfThenElse><AlwaysSuccess/><AlwaysSuccess/><AlwaysSuccess/><AlwaysSuccess/></IfThenElse>`), "AlwaysSuccess"},
		{"tree with two roots", tree(`<AlwaysSuccess/><AlwaysSuccess/>`), "AlwaysSuccess"},
		{"SubTree without ID", tree(`<SubTree target="{x}"/>`), "ID"},
		{"v3 file", `<root BTCPP_format="3"><BehaviorTree ID="M"><AlwaysSuccess/></BehaviorTree></root>`, "BTCPP_format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, "tree.xml")
			require.NoError(t, os.WriteFile(file, []byte(c.xml), 0o644))
			out, err := exec.Command(lint, "--noout", "--schema", schema, file).CombinedOutput()
			switch {
			case c.wantErr == "" && err != nil:
				assert.Fail(t, fmt.Sprintf("valid file rejected: %v\n%s", err, out))
			case c.wantErr != "" && err == nil:
				assert.Fail(t, fmt.Sprintf("invalid file accepted:\n%s", out))
			case c.wantErr != "" && !strings.Contains(string(out), c.wantErr):
				assert.Fail(t, fmt.Sprintf("xmllint does not name %q:\n%s", c.wantErr, out))
			}
		})
	}
	// The schema validates every tree file that loads cleanly and uses
	// only built-in nodes.
	var clean []string
	for _, path := range treeFiles(t) {
		doc, err := Load(path)
		if err != nil || runtime.Check(runtime.NewRegistry(), doc, runtime.BuildConf{}) != nil || len(doc.Models) > 0 {
			continue
		}
		clean = append(clean, path)
	}
	require.NotEmpty(t, clean)
	said := xmllintEach(t, lint, []string{"--noout", "--schema", schema}, clean)
	for _, path := range clean {
		// They load, so they are well-formed (TestTreeFilesAreWellFormed
		// checks every file): all xmllint may say of one is that it
		// validates.
		assert.Equal(t, path+" validates", said[path], "%s passes runtime.Check but not the schema", path)
	}
}

// TestMarkdown: the reference entry of a node type says its summary, kind,
// children, contract and ports.
func TestMarkdown(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, WriteMarkdown(&out, paletteRegistry(t)))
	text := out.String()
	want := "## Skills\n\n### DriveTo\n\nDrives to a goal; RUNNING while driving.\n\n" +
		"*Action · children: none*\n\n" +
		"Returns SUCCESS within `tolerance` of the goal, FAILURE when blocked.\nHalting stops the robot.\n\n" +
		"| Port | Direction | Type | Default | Description |\n|---|---|---|---|---|\n" +
		"| `goal` | input | `string` | *required* | named place \\| or pose |\n" +
		"| `speed` | input | `float64` | `0.5` | metres per second |\n" +
		"| `retries` | input | `int` | `-1` |  |\n" +
		"| `lane` | input | `uint` | `0` | lane number |\n" +
		"| `reverse` | input | `bool` | `false` | may drive backwards |\n" +
		"| `timeout` | input | `time.Duration` | `30s` | give up after |\n" +
		"| `tolerance` | input | `[]float64` | `0.1;0.1;0.2` | x;y;yaw |\n" +
		"| `distance` | output | `float64` |  | metres driven |\n" +
		"| `plan` | inout | `any` | *required* | the path, updated while driving |\n"
	assert.Contains(t, text, want, "reference lacks the DriveTo entry\nwant:\n%s\ngot:\n%s", want, text)
	// Categories: the built-in ones first, in reading order, then the others.
	var order []string
	for _, line := range strings.Split(text, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			order = append(order, h)
		}
	}
	assert.Equal(t, []string{"Control nodes", "Decorators", "Actions", "Conditions", "Subtrees", "Skills"}, order, "categories")
	for _, want := range []string{
		"- [Skills](#skills): [DriveTo](#driveto)\n",
		"### Sequence\n",
		"*Control node · children: 1 or more*",
		"*Decorator · children: exactly 1*",
		"### SubTree\n",
		"*SubTree · children: none (it runs the tree its ID names)*",
	} {
		assert.Contains(t, text, want, "reference lacks %q", want)
	}
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}
