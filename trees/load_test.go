package trees

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestParseDocuments: what the loader makes of well-formed tree files.
func TestParseDocuments(t *testing.T) {
	N, A := runtime.N, runtime.A
	cases := []struct {
		name string
		xml  string
		want *runtime.Document
	}{
		{
			name: "compact form",
			xml: `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="patrol">
      <Script code="x := 1"/>
      <AlwaysSuccess/>
    </Sequence>
  </BehaviorTree>
</root>`,
			want: &runtime.Document{Main: "Main", Trees: []*runtime.TreeSpec{{ID: "Main",
				Root: N("Sequence", A("name", "patrol"), N("Script", A("code", "x := 1")), N("AlwaysSuccess", nil))}}},
		},
		{
			name: "explicit form reads as the compact form",
			xml: `<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Control ID="Sequence" name="patrol">
      <Action ID="Script" code="x := 1"/>
      <Decorator ID="Inverter"><Condition ID="IsBatteryLow"/></Decorator>
    </Control>
  </BehaviorTree>
</root>`,
			want: &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "Main",
				Root: N("Sequence", A("name", "patrol"), N("Script", A("code", "x := 1")), N("Inverter", nil, N("IsBatteryLow", nil)))}}},
		},
		{
			name: "SubTree keeps its ID, remapping and _autoremap as attributes",
			xml: `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main"><SubTree ID="Dock" target="{dock_pose}" speed="0.5" _autoremap="true"/></BehaviorTree>
  <BehaviorTree ID="Dock"><AlwaysSuccess/></BehaviorTree>
</root>`,
			want: &runtime.Document{Main: "Main", Trees: []*runtime.TreeSpec{
				{ID: "Main", Root: N("SubTree", A("ID", "Dock", "target", "{dock_pose}", "speed", "0.5", "_autoremap", "true"))},
				{ID: "Dock", Root: N("AlwaysSuccess", nil)}}},
		},
		{
			name: "editor attributes are kept on trees and nodes, in order",
			xml: `<root BTCPP_format="4">
  <BehaviorTree ID="Main" _fullpath="Main" _description="patrol the dock">
    <Sequence _uid="1" name="s" _skipIf="done"><AlwaysSuccess _uid="2"/></Sequence>
  </BehaviorTree>
</root>`,
			want: &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "Main", Attrs: A("_fullpath", "Main", "_description", "patrol the dock"),
				Root: N("Sequence", A("_uid", "1", "name", "s", "_skipIf", "done"), N("AlwaysSuccess", A("_uid", "2")))}}},
		},
		{
			name: "missing BTCPP_format reads as v4; a lone tree without ID is named as BT.CPP names it",
			xml:  `<root><BehaviorTree><AlwaysSuccess/></BehaviorTree></root>`,
			want: &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "BehaviorTree_0", Root: N("AlwaysSuccess", nil)}}},
		},
		{
			name: "references, CDATA, line ends and white space in values",
			xml: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<!-- a comment -->\r\n<?editor hint?>\r\n" +
				"<root BTCPP_format='4'>\r\n  <BehaviorTree ID=\"Main\">\r\n" +
				"    <Script code=\"a := 'x &lt; y' &amp;&amp; true;&#10;b := &quot;q&quot; &#x41;&apos;\r\n  c := 1\tend\"/>\r\n" +
				"  </BehaviorTree>\r\n</root>\r\n",
			want: &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "Main",
				Root: N("Script", A("code", "a := 'x < y' && true;\nb := \"q\" A'\n  c := 1\tend"))}}},
		},
		{
			name: "byte order mark",
			xml:  "\uFEFF<root BTCPP_format=\"4\"><BehaviorTree ID=\"M\"><AlwaysFailure/></BehaviorTree></root>",
			want: &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "M", Root: N("AlwaysFailure", nil)}}},
		},
		{
			name: "node models: kinds, ports, BT.CPP and unknown types, defaults, descriptions; inputs without default are optional except a SubTree's",
			xml: `<root BTCPP_format="4">
  <TreeNodesModel>
    <Action ID="NavigateTo" editable="true">
      <input_port name="goal" type="geometry_msgs::msg::PoseStamped">Where to go</input_port>
      <input_port name="speed" type="double" default="0.5" description="metres per second"/>
      <input_port name="timeout" type="std::chrono::milliseconds" default="2000"/>
      <output_port name="error_code" type="int"><![CDATA[0 when <ok>]]></output_port>
      <inout_port name="path"/>
      <MetadataFields><Metadata description="Drives to a pose"/><Metadata subcategory="nav"/></MetadataFields>
    </Action>
    <Condition ID="IsStuck"/>
    <Control ID="PipelineSequence"/>
    <Decorator ID="RateController"><input_port name="hz" type="double" default="10"/></Decorator>
    <SubTree ID="Dock"><input_port name="target" default="{dock}"/><input_port name="mode"/></SubTree>
  </TreeNodesModel>
</root>`,
			want: &runtime.Document{Models: []*runtime.NodeModel{
				{ID: "NavigateTo", Kind: runtime.ActionKind, Description: "Drives to a pose",
					Attrs:    []runtime.Attr{{Name: "editable", Value: "true"}},
					Metadata: []runtime.Attr{{Name: "description", Value: "Drives to a pose"}, {Name: "subcategory", Value: "nav"}},
					Ports: []runtime.PortSpec{
						{Name: "goal", Dir: runtime.Input, Optional: true, Description: "Where to go"},
						{Name: "speed", Dir: runtime.Input, Type: reflect.TypeFor[float64](), Default: "0.5", HasDefault: true, Description: "metres per second"},
						{Name: "timeout", Dir: runtime.Input, Type: reflect.TypeFor[time.Duration](), Default: "2000", HasDefault: true},
						{Name: "error_code", Dir: runtime.Output, Type: reflect.TypeFor[int](), Description: "0 when <ok>"},
						{Name: "path", Dir: runtime.InOut, Optional: true},
					},
					TypeNames: map[string]string{"goal": "geometry_msgs::msg::PoseStamped", "speed": "double", "timeout": "std::chrono::milliseconds", "error_code": "int"}},
				{ID: "IsStuck", Kind: runtime.ConditionKind},
				{ID: "PipelineSequence", Kind: runtime.ControlKind},
				{ID: "RateController", Kind: runtime.DecoratorKind, Ports: []runtime.PortSpec{{Name: "hz", Dir: runtime.Input, Type: reflect.TypeFor[float64](), Default: "10", HasDefault: true}},
					TypeNames: map[string]string{"hz": "double"}},
				{ID: "Dock", Kind: runtime.SubTreeKind, Ports: []runtime.PortSpec{{Name: "target", Dir: runtime.Input, Default: "{dock}", HasDefault: true}, {Name: "mode", Dir: runtime.Input}}},
			}},
		},
		{
			name: "the same model declared twice alike is kept once",
			xml: `<root BTCPP_format="4">
  <TreeNodesModel><Condition ID="IsStuck"><input_port name="t" type="int"/></Condition></TreeNodesModel>
  <TreeNodesModel><Condition ID="IsStuck"><input_port name="t" type="int"/></Condition></TreeNodesModel>
</root>`,
			want: &runtime.Document{Models: []*runtime.NodeModel{{ID: "IsStuck", Kind: runtime.ConditionKind,
				Ports: []runtime.PortSpec{{Name: "t", Dir: runtime.Input, Type: reflect.TypeFor[int](), Optional: true}}, TypeNames: map[string]string{"t": "int"}}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mustParse(t, "t.xml", c.xml)
			got := bare(doc)
			assert.Equal(t, c.want, got, "got\n%s\nwant\n%s", dump(got), dump(c.want))
		})
	}
}

// TestPositions: every node, tree, model and attribute knows its line and
// column (in characters, from 1).
func TestPositions(t *testing.T) {
	src := "\uFEFF<root BTCPP_format=\"4\">\n" + // line 1
		"  <BehaviorTree ID=\"Main\">\n" + // line 2
		"\t<Sequence name=\"défilé\" x=\"1\">\n" + // line 3: a tab, then multi-byte text
		"      <Script name=\"ünï\" code=\"a := 1\"/><AlwaysSuccess\n" + // line 4
		"         y=\"2\"/>\n" + // line 5
		"    </Sequence>\n  </BehaviorTree>\n" +
		"  <TreeNodesModel>\n    <Action ID=\"Foo\"/>\n  </TreeNodesModel>\n</root>\n" // model on line 9
	doc := mustParse(t, "pos.xml", src)
	tree := doc.Trees[0]
	seq := tree.Root
	script, always := seq.Children[0], seq.Children[1]
	got := map[string]string{
		"tree":          tree.Pos.String(),
		"sequence":      seq.Pos.String(),
		"sequence.name": seq.AttrPos("name").String(),
		"sequence.x":    seq.AttrPos("x").String(),
		"script":        script.Pos.String(),
		"script.code":   script.AttrPos("code").String(),
		"always":        always.Pos.String(),
		"always.y":      always.AttrPos("y").String(),
		"model":         doc.Models[0].Pos.String(),
	}
	want := map[string]string{
		"tree":          "pos.xml:2:3",
		"sequence":      "pos.xml:3:2",
		"sequence.name": "pos.xml:3:12",
		"sequence.x":    "pos.xml:3:26",
		"script":        "pos.xml:4:7",
		"script.code":   "pos.xml:4:26",
		"always":        "pos.xml:4:41",
		"always.y":      "pos.xml:5:10",
		"model":         "pos.xml:9:5",
	}
	assert.Equal(t, want, got, "positions\n got %v\nwant %v", got, want)
}

// TestParseErrors: each problem is reported with file:line:col and what
// would be right; all problems of one pass are reported.
func TestParseErrors(t *testing.T) {
	nested := func(n int) string {
		return `<root><BehaviorTree ID="M">` + strings.Repeat("<Inverter>", n) + strings.Repeat("</Inverter>", n) + "</BehaviorTree></root>"
	}
	manyAttrs := func(n int) string {
		var sb strings.Builder
		sb.WriteString(`<root><BehaviorTree ID="M"><AlwaysSuccess`)
		for i := range n {
			sb.WriteString(" a")
			sb.WriteString(strings.Repeat("x", i%7))
			sb.WriteString(string(rune('a' + i%26)))
			sb.WriteString(strings.Repeat("y", i/26))
			sb.WriteString(`="1"`)
		}
		sb.WriteString("/></BehaviorTree></root>")
		return sb.String()
	}
	cases := []struct {
		name       string
		xml        string
		want       []string
		unreadable bool
	}{
		// Not well-formed: the first problem ends the pass.
		{"empty file", ``, []string{`e.xml:1:1: no root element: a tree file holds <root BTCPP_format="4">…</root>`}, true},
		{"unclosed element", "<root>\n  <BehaviorTree ID=\"M\">\n    <Sequence>\n",
			[]string{`e.xml:4:1: unexpected end of file: <Sequence> is not closed`}, true},
		{"mismatched end tag", "<root><BehaviorTree ID=\"M\">\n<Sequence></Fallback></BehaviorTree></root>",
			[]string{`e.xml:2:11: </Fallback> does not match <Sequence>: close <Sequence> first`}, true},
		{"unquoted attribute", `<root><BehaviorTree ID=M/></root>`,
			[]string{`e.xml:1:24: the value of attribute ID must be quoted`}, true},
		{"attribute without value", `<root><BehaviorTree ID/></root>`,
			[]string{`e.xml:1:21: attribute ID of <BehaviorTree> has no value: write ID="…"`}, true},
		{"duplicate attribute", `<root><BehaviorTree ID="a" ID="b"/></root>`,
			[]string{`e.xml:1:28: attribute ID appears twice in <BehaviorTree>`}, true},
		{"less-than in a value", `<root><BehaviorTree ID="M"><ScriptCondition code="a < 3"/></BehaviorTree></root>`,
			[]string{`e.xml:1:53: '<' in the value of attribute code: write &lt;`}, true},
		{"missing white space between attributes", `<root><BehaviorTree ID="M"name="x"/></root>`,
			[]string{`e.xml:1:27: expected white space, '>' or '/>' in <BehaviorTree>, found 'n'`}, true},
		{"text before the root", "hello <root/>",
			[]string{`e.xml:1:1: text before the root element: 'h'`}, true},
		{"second root element", "<root/>\n<root/>",
			[]string{`e.xml:2:1: a second root element: a tree file holds one <root> element`}, true},
		{"invalid UTF-8", "<root>\n<BehaviorTree ID=\"\xff\"/></root>",
			[]string{`e.xml:2:19: invalid UTF-8 (tree files are read as UTF-8)`}, true},
		{"control character", "<root>\x01</root>",
			[]string{`e.xml:1:7: control character U+0001 is not allowed in XML`}, true},
		{"other encodings", `<?xml version="1.0" encoding="ISO-8859-1"?><root/>`,
			[]string{`e.xml:1:1: encoding "ISO-8859-1": tree files are read as UTF-8; save the file as UTF-8`}, true},
		{"late XML declaration", "<!-- c -->\n<?xml version=\"1.0\"?><root/>",
			[]string{`e.xml:2:1: the XML declaration <?xml …?> may only open the file`}, true},
		{"unclosed comment", "<root><!-- ...</root>",
			[]string{`e.xml:1:7: comment is not closed (no -->)`}, true},
		{"DTD: entity bomb", `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<root><BehaviorTree ID="&lol2;"><AlwaysSuccess/></BehaviorTree></root>`,
			[]string{`e.xml:2:1: DTDs (<!DOCTYPE …>) are refused: a tree file needs none, and the entities a DTD defines can expand without bound`}, true},
		{"entity declaration without DTD", `<root><!ENTITY x "y"></root>`,
			[]string{`e.xml:1:7: markup declarations such as <!ENTITY> are refused: only elements, comments and CDATA sections may follow '<!'`}, true},
		{"too deep", nested(300),
			[]string{`e.xml:1:2568: elements nested more than 256 deep (the limit); split the tree into subtrees`}, true},
		{"too many attributes", manyAttrs(300),
			[]string{`e.xml:1:3731: <AlwaysSuccess> has more than 256 attributes (the limit)`}, true},
		{"attribute too long", `<root><BehaviorTree ID="` + strings.Repeat("x", MaxAttrSize+1) + `"/></root>`,
			[]string{`e.xml:1:21: the value of attribute ID is longer than 65536 bytes (the limit)`}, true},
		{"too many elements", `<root><BehaviorTree ID="M"><Sequence>` + strings.Repeat("<a/>", MaxElements) + "</Sequence></BehaviorTree></root>",
			[]string{`e.xml:1:4194334: more than 1048576 elements in one load (the limit)`}, true},
		{"not a tree file", `<launch><node pkg="x"/></launch>`,
			[]string{`e.xml:1:1: the root element is <launch>; a BehaviorTree.CPP tree file starts with <root BTCPP_format="4">`}, true},

		// Well-formed, but not what a tree file says: every problem is reported.
		{"v3 file", `<root BTCPP_format="3" main_tree_to_execute="M"><BehaviorTree ID="M"><AlwaysSuccess/></BehaviorTree></root>`,
			[]string{`e.xml:1:7: BTCPP_format="3": this loader reads BehaviorTree.CPP v4 files (BTCPP_format="4"); convert older files with BehaviorTree.CPP's convert_v3_to_v4.py`}, false},
		{"several problems in one pass", `<root BTCPP_format="4" main_tree_to_execute="Mian">
  <BehaviourTree ID="X"/>
  <BehaviorTree ID="Main">
    <Sequence>
      <Action name="a"/>
      <Fallback ID="f"><AlwaysSuccess/></Fallback>
      stray text
      <ScriptCondition code="x &lt; 1 &nbsp;"/>
    </Sequence>
    <AlwaysSuccess/>
  </BehaviorTree>
  <TreeNodesModel>
    <Acton ID="Go"/>
    <Action ID="Go"><input_port type="int"/><input_port name="n" type="int" default="two"/><input_port name="n"/><ouput_port name="o"/></Action>
    <Action><input_port name="x"/></Action>
    <Condition ID="Go"/>
  </TreeNodesModel>
  <include ros_pkg="nav2_bt_navigator" path="trees/x.xml"/>
  <include/>
</root>`,
			[]string{
				`e.xml:2:3: unknown element <BehaviourTree> in <root> (did you mean BehaviorTree?): a tree file holds <BehaviorTree>, <TreeNodesModel> and <include> elements`,
				`e.xml:5:7: <Action> needs an ID attribute naming the node type: <Action ID="MyNode"/>`,
				`e.xml:6:17: <Fallback> takes no ID attribute: only <SubTree ID=…> and the explicit forms <Action ID=…>, <Condition ID=…>, <Control ID=…>, <Decorator ID=…> have one`,
				`e.xml:7:7: text in <Sequence>: only elements belong here`,
				`e.xml:8:39: attribute code: unknown entity &nbsp; (only &lt; &gt; &amp; &quot; &apos; and character references like &#10; are read)`,
				`e.xml:10:5: <BehaviorTree ID="Main"> has a second root node <AlwaysSuccess>: a tree has exactly one root; put its nodes under a <Sequence> or another control node`,
				`e.xml:13:5: unknown element <Acton> in <TreeNodesModel> (did you mean Action?): a node model is an <Action>, <Condition>, <Control>, <Decorator> or <SubTree>`,
				`e.xml:14:21: <input_port> of model "Go" needs a name attribute`,
				`e.xml:14:92: port "n" of model "Go" is declared twice`,
				`e.xml:14:114: unknown element <ouput_port> in a node model (did you mean output_port, input_port, inout_port?): a model holds <input_port>, <output_port>, <inout_port> and <MetadataFields>`,
				`e.xml:15:5: <Action> in <TreeNodesModel> needs an ID attribute naming the node type`,
				`e.xml:16:5: node model "Go" is declared twice, differently (first at e.xml:14:5)`,
				`e.xml:18:12: <include ros_pkg=…>: ROS package paths are not resolved here; give path relative to e.xml`,
				`e.xml:19:3: <include> needs a path attribute naming the file to include, relative to e.xml`,
				`e.xml:1:24: main_tree_to_execute="Mian" names no <BehaviorTree> (did you mean Main?)`,
			}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Parse("e.xml", []byte(c.xml))
			require.Error(t, err, "no error; want %q", c.want)
			got := errorTexts(t, err)
			assert.Equal(t, c.want, got, "errors\n got %q\nwant %q", got, c.want)
			var le *LoadError
			require.ErrorAs(t, err, &le, "error is a %T, want *LoadError", err)
			assert.Equal(t, c.unreadable, le.Unreadable, "Unreadable = %v, want %v", le.Unreadable, c.unreadable)
			assert.Equal(t, c.unreadable, (doc == nil), "document returned = %v; want one exactly when the file is readable", doc != nil)
		})
	}
}

func TestFileLimits(t *testing.T) {
	big := make([]byte, MaxFileSize+1)
	_, err := Parse("big.xml", big)
	want := []string{"big.xml: file is 33554433 bytes, more than the 33554432 bytes (32 MiB) a tree file may have"}
	got := errorTexts(t, err)
	assert.Equal(t, want, got, "Parse: got %q, want %q", got, want)
}

// TestInclude: <include path> is relative to the including file; each file
// is read once; cycles and unreadable files are errors at the include.
func TestInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	write("main.xml", `<root BTCPP_format="4" main_tree_to_execute="Main">
  <include path="lib/dock.xml"/>
  <BehaviorTree ID="Main"><Sequence><SubTree ID="Dock"/><SubTree ID="Spin"/></Sequence></BehaviorTree>
  <include path="lib/spin.xml"/>
</root>`)
	// dock.xml includes models.xml by a path relative to itself; so does
	// spin.xml: the shared file is read once.
	write("lib/dock.xml", `<root BTCPP_format="4" main_tree_to_execute="Ignored">
  <include path="common/models.xml"/>
  <BehaviorTree ID="Dock"><Docking/></BehaviorTree>
</root>`)
	write("lib/spin.xml", `<root BTCPP_format="4"><include path="./common/models.xml"/><BehaviorTree ID="Spin"><AlwaysSuccess/></BehaviorTree></root>`)
	write("lib/common/models.xml", `<root BTCPP_format="4"><TreeNodesModel><Action ID="Docking"/></TreeNodesModel></root>`)

	doc, err := Load(filepath.Join(dir, "main.xml"))
	require.NoError(t, err)
	var ids []string
	for _, tr := range doc.Trees {
		ids = append(ids, tr.ID)
	}
	assert.Equal(t, []string{"Dock", "Main", "Spin"}, ids, "trees in document order, includes in place")
	assert.Equal(t, "Main", doc.Main, "main tree %q, want the including file's", doc.Main)
	if assert.Len(t, doc.Models, 1, "models %v, want Docking once", doc.Models) {
		assert.Equal(t, "Docking", doc.Models[0].ID, "models %v, want Docking once", doc.Models)
	}
	assert.Equal(t, filepath.Join(dir, "lib/dock.xml")+":3:27", doc.Tree("Dock").Root.Pos.String(), "the included node's position")

	write("a.xml", `<root BTCPP_format="4"><include path="sub/b.xml"/></root>`)
	write("sub/b.xml", `<root BTCPP_format="4"><include path="../a.xml"/></root>`)
	_, err = Load(filepath.Join(dir, "a.xml"))
	a, b := filepath.Join(dir, "a.xml"), filepath.Join(dir, "sub/b.xml")
	want := []string{b + ":1:33: include cycle: " + a + " → " + b + " → " + filepath.Join(dir, "sub/../a.xml")}
	got := errorTexts(t, err)
	assert.Equal(t, want, got, "cycle: got %q, want %q", got, want)

	write("self.xml", `<root BTCPP_format="4"><include path="self.xml"/></root>`)
	_, err = Load(filepath.Join(dir, "self.xml"))
	self := filepath.Join(dir, "self.xml")
	want = []string{self + ":1:33: include cycle: " + self + " → " + self}
	got = errorTexts(t, err)
	assert.Equal(t, want, got, "self include: got %q, want %q", got, want)

	write("broken.xml", `<root BTCPP_format="4"><include path="nowhere.xml"/><include path="bad.xml"/></root>`)
	write("bad.xml", "<root>\n<BehaviorTree ID='x'>\n</root>")
	_, err = Load(filepath.Join(dir, "broken.xml"))
	want = []string{
		filepath.Join(dir, "broken.xml") + ":1:33: cannot include nowhere.xml: no such file or directory",
		filepath.Join(dir, "bad.xml") + ":3:1: </root> does not match <BehaviorTree>: close <BehaviorTree> first",
	}
	got = errorTexts(t, err)
	assert.Equal(t, want, got, "unreadable includes: got %q, want %q", got, want)
	var le *LoadError
	if assert.ErrorAs(t, err, &le, "an unreadable include makes the load Unreadable: %#v", err) {
		assert.True(t, le.Unreadable, "an unreadable include makes the load Unreadable: %#v", err)
	}
}

// TestParseIncludeFromName: Parse resolves includes from the directory of
// the name it is given.
func TestParseIncludeFromName(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lib.xml"), []byte(`<root><BehaviorTree ID="Lib"><AlwaysSuccess/></BehaviorTree></root>`), 0o644))
	doc := mustParse(t, filepath.Join(dir, "virtual.xml"), `<root BTCPP_format="4"><include path="lib.xml"/></root>`)
	assert.NotNil(t, doc.Tree("Lib"), "included tree missing: %v", dump(stripped(doc)))
}
