package trees

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// update rewrites golden files instead of comparing with them:
// UPDATE_GOLDEN=1 go test ./trees/
var update = os.Getenv("UPDATE_GOLDEN") != ""

// treeFiles returns every XML file under testdata that loads cleanly: the
// round-trip samples, the differential suite, the Nav2 trees, the missions.
func treeFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"testdata", "missions"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".xml") && !strings.HasSuffix(path, ".golden.xml") {
				files = append(files, path)
			}
			return nil
		})
		require.False(t, err != nil && !os.IsNotExist(err), "%v", err)
	}
	require.NotEmpty(t, files, "no tree files under testdata")
	return files
}

// TestRoundTrip: load -> write -> load gives the same document, and writing
// is a fixed point: what Write wrote, loaded and written again, is the same
// text.
func TestRoundTrip(t *testing.T) {
	tried := 0
	for _, path := range treeFiles(t) {
		doc, err := Load(path)
		if err != nil {
			continue // the broken catalogue; its files are tested there
		}
		tried++
		t.Run(path, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, Write(&out, doc), "Write")
			again, err := Parse(path, out.Bytes()) // where its includes are
			require.NoError(t, err, "written file does not load: %v\n%s", err, out.String())
			a, b := stripped(doc), stripped(again)
			require.Equal(t, b, a, "load -> write -> load changed the document\nbefore:\n%s\nafter:\n%s", dump(a), dump(b))
			var out2 bytes.Buffer
			require.NoError(t, Write(&out2, again))
			assert.Equal(t, out2.String(), out.String(), "writing is not a fixed point:\n%s\n---\n%s", out.String(), out2.String())
		})
	}
	assert.GreaterOrEqual(t, tried, 3, "only %d clean tree files round-tripped", tried)
}

// TestWriteGolden: the canonical form of a Groot2 file and a hand-written
// one, kept as golden files so changes to the output are seen in review.
func TestWriteGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/roundtrip/*.xml")
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, ".golden.xml") {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			doc, err := Load(path)
			require.NoError(t, err)
			var out bytes.Buffer
			require.NoError(t, Write(&out, doc))
			golden := strings.TrimSuffix(path, ".xml") + ".golden.xml"
			if update {
				require.NoError(t, os.WriteFile(golden, out.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "%v (create it with UPDATE_GOLDEN=1 go test ./trees/)", err)
			assert.Equal(t, string(want), out.String(), "Write(%s) differs from %s (UPDATE_GOLDEN=1 go test ./trees/ rewrites it):\n%s", path, golden, out.String())
		})
	}
	assert.GreaterOrEqual(t, n, 2, "want at least 2 round-trip samples, have %d", n)
}

// TestGroot2FileKeepsMeaning: what a Groot2 file says survives a round trip
// in detail: editor attributes, SubTree remapping, models with types,
// defaults, descriptions.
func TestGroot2FileKeepsMeaning(t *testing.T) {
	doc, err := Load("testdata/roundtrip/groot2_project.xml")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, Write(&out, doc))
	text := out.String()
	for _, want := range []string{
		`<root BTCPP_format="4" main_tree_to_execute="MainTree">`,
		`<BehaviorTree ID="MainTree" _fullpath="" _description="Fetch a cup and bring it back">`,
		`<SubTree ID="Search" area="kitchen" found="{cup_pose}" _autoremap="false" _fullpath="MainTree/Search" _uid="6"/>`,
		`<PickUp target="{cup_pose}" grip_force="12.5" _onFailure="attempts += 1" _uid="7"/>`,
		`<IsCupVisible color="{cup}" _successIf="found != ''"/>`,
		`<output_port name="pose" type="geometry_msgs::msg::PoseStamped">Where the cup was seen</output_port>`,
		`<input_port name="grip_force" type="double" default="10">Newtons</input_port>`,
		`<Metadata description="Grasps the object at target"/>`,
		`<SubTree ID="Search" editable="true">`, // Groot2's own attributes survive
	} {
		assert.Contains(t, text, want, "written file lacks %s\n%s", want, text)
	}
}

// TestWriteGoBuilt: a document built in Go, with values that need escaping,
// is written so that it loads back the same.
func TestWriteGoBuilt(t *testing.T) {
	N, A := runtime.N, runtime.A
	doc := &runtime.Document{
		Main: "Main & more",
		Trees: []*runtime.TreeSpec{
			{ID: "Main & more", Attrs: A("_description", `say "hi" <loudly>`), Root: N("Sequence", A("name", "a\tb"),
				N("Script", A("code", "x := 'a';\r\ny := \"b\" > 1 && x != '<'")),
				N("Action", A("weird", "a node type named like a kind")),
				N("Do It", A("x", "a type that is not an XML name"), N("0", nil)),
				N("SubTree", A("ID", "Empty", "v", "{=}")),
			)},
			{ID: "Empty"},
		},
		Models: []*runtime.NodeModel{
			{ID: "Report", Kind: runtime.ActionKind, Description: "Says <what> & \"why\"", Ports: []runtime.PortSpec{
				runtime.InputPort[time.Duration]("after", "wait 'this' long").WithDefault("1.5s"),
				runtime.OutputPort[[]float64]("values", ""),
				runtime.InOutPort[any]("anything", "any & all"),
				runtime.InputPort[string]("padded", "  kept as written\n"),
			}},
		},
	}
	var out bytes.Buffer
	require.NoError(t, Write(&out, doc))
	back, err := Parse("go.xml", out.Bytes())
	require.NoError(t, err, "%v\n%s", err, out.String())
	// The written model names its types; the loaded one keeps those names.
	want := bare(doc)
	want.Models[0].TypeNames = map[string]string{"after": "std::chrono::milliseconds", "values": "std::vector<double>", "padded": "std::string"}
	want.Models[0].Ports[2].Type = nil
	// A model does not say which ports are required: inputs without
	// default read back optional.
	want.Models[0].Ports[2].Optional = true
	want.Models[0].Ports[3].Optional = true
	// The description is written as <Metadata description=…/> and reads back
	// as that metadata entry too.
	want.Models[0].Metadata = []runtime.Attr{{Name: "description", Value: want.Models[0].Description}}
	got := bare(back)
	assert.Equal(t, want, got, "got\n%s\nwant\n%s\nwritten:\n%s", dump(got), dump(want), out.String())
}

// TestWriteRefuses: what XML cannot say is an error, and nothing is written.
func TestWriteRefuses(t *testing.T) {
	N, A := runtime.N, runtime.A
	tree := func(root *runtime.NodeSpec) *runtime.Document {
		return &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "M", Root: root}}}
	}
	cases := []struct {
		name string
		doc  *runtime.Document
		want string
	}{
		{"empty type", tree(N("", nil)), `a node without a type`},
		{"attribute name", tree(N("Script", A("co de", "x"))), `<Script>: attribute name "co de" is not an XML name`},
		{"attribute twice", tree(N("Script", A("code", "x", "code", "y"))), `<Script>: attribute code is given twice`},
		{"ID on a plain node", tree(N("Sequence", A("ID", "x"), N("AlwaysSuccess", nil))), `<Sequence>: only SubTree nodes have an ID attribute`},
		{"control character", tree(N("Script", A("code", "x\x00"))), `attribute code: character U+0000 cannot be written in XML`},
		{"invalid UTF-8", tree(N("Script", A("code", "\xff"))), `attribute code: invalid UTF-8`},
		{"ID attribute on a tree", &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "M", Attrs: A("ID", "N"), Root: N("AlwaysSuccess", nil)}}},
			`<BehaviorTree>: attribute ID is written from the document itself and cannot be an attribute too`},
		{"nil node", tree(N("Sequence", nil, nil)), `a nil node`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Write(&out, c.doc)
			assert.EqualError(t, err, c.want, "Write error %v, want %q", err, c.want)
			assert.Equal(t, 0, out.Len(), "Write wrote %d bytes before failing", out.Len())
		})
	}
}
