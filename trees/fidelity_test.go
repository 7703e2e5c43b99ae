package trees

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/btrobot/btrobot/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTrip writes doc, loads the text back as path (so that its includes
// resolve as the original's did), and requires the same document,
// comments, blank lines and includes included. It returns the text.
func roundTrip(t *testing.T, path string, doc *runtime.Document) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, Write(&out, doc))
	again, err := Parse(path, out.Bytes())
	require.NoError(t, err, "the written file loads\n%s", out.String())
	a, b := stripped(doc), stripped(again)
	require.True(t, reflect.DeepEqual(a, b), "load -> write -> load changed the document\nwritten:\n%s\nbefore: %s\nafter:  %s", out.String(), notesDump(a), notesDump(b))
	return out.String()
}

// notesDump shows a document's notes for failure messages.
func notesDump(doc *runtime.Document) string {
	var sb strings.Builder
	note := func(where string, n *runtime.Notes) {
		if n != nil {
			sb.WriteString("\n  " + where + ": " + sprintNotes(n))
		}
	}
	note("document", doc.Notes)
	note("models", doc.ModelsNotes)
	for _, inc := range doc.Includes {
		note("include "+inc.Path, inc.Notes)
	}
	var walk func(path string, n *runtime.NodeSpec)
	walk = func(path string, n *runtime.NodeSpec) {
		if n == nil {
			return
		}
		path += "/" + n.Name()
		note(path, n.Notes)
		for _, c := range n.Children {
			walk(path, c)
		}
	}
	for _, tr := range doc.Trees {
		note("tree "+tr.ID, tr.Notes)
		walk(tr.ID, tr.Root)
	}
	for _, m := range doc.Models {
		note("model "+m.ID, m.Notes)
	}
	return sb.String()
}

func sprintNotes(n *runtime.Notes) string {
	var sb strings.Builder
	for _, c := range n.Comments {
		sb.WriteString("<!--" + c + "--> ")
	}
	if n.Blank {
		sb.WriteString("blank ")
	}
	if n.Apart {
		sb.WriteString("apart ")
	}
	for _, c := range n.End {
		sb.WriteString("end<!--" + c + "--> ")
	}
	if n.EndBlank {
		sb.WriteString("endblank ")
	}
	if len(n.Breaks) > 0 {
		sb.WriteString("breaks " + strings.Join(n.Breaks, ","))
	}
	return sb.String()
}

// TestCommentsKept: a comment in each place a file may hold one is
// attached to the element after it (or to the end of its parent), and a
// file opened and written is the same file. Where the model has no place
// for a comment, it moves (moved: the text changes, the comment stays).
func TestCommentsKept(t *testing.T) {
	const decl = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	tree := func(body string) string {
		return decl + `<root BTCPP_format="4">` + "\n" + body + "</root>\n"
	}
	cases := []struct {
		name  string
		xml   string
		got   func(d *runtime.Document) []string
		want  []string
		moved string // the text written, when not the file's
	}{
		{
			name: "before the root element",
			xml:  decl + "<!-- first -->\n<!-- second -->\n<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n</root>\n",
			got:  func(d *runtime.Document) []string { return d.Notes.Comments },
			want: []string{" first ", " second "},
		},
		{
			name: "inside root, between trees: the next tree's",
			xml:  tree("  <BehaviorTree ID=\"A\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n\n  <!-- B: the second\n       tree -->\n  <BehaviorTree ID=\"B\">\n    <AlwaysFailure/>\n  </BehaviorTree>\n"),
			got:  func(d *runtime.Document) []string { return d.Trees[1].Notes.Comments },
			want: []string{" B: the second\n       tree "},
		},
		{
			name: "inside a BehaviorTree, before its root node",
			xml:  tree("  <BehaviorTree ID=\"M\">\n    <!-- the root -->\n    <Sequence>\n      <AlwaysSuccess/>\n    </Sequence>\n  </BehaviorTree>\n"),
			got:  func(d *runtime.Document) []string { return d.Trees[0].Root.Notes.Comments },
			want: []string{" the root "},
		},
		{
			name: "before a node",
			xml:  tree("  <BehaviorTree ID=\"M\">\n    <Sequence>\n      <AlwaysSuccess/>\n      <!-- then fail -->\n      <AlwaysFailure/>\n    </Sequence>\n  </BehaviorTree>\n"),
			got:  func(d *runtime.Document) []string { return d.Trees[0].Root.Children[1].Notes.Comments },
			want: []string{" then fail "},
		},
		{
			name: "after the last child of a node: the node's end",
			xml:  tree("  <BehaviorTree ID=\"M\">\n    <Sequence>\n      <AlwaysSuccess/>\n      <!-- more to come -->\n    </Sequence>\n  </BehaviorTree>\n"),
			got:  func(d *runtime.Document) []string { return d.Trees[0].Root.Notes.End },
			want: []string{" more to come "},
		},
		{
			name: "inside a leaf",
			xml:  tree("  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess>\n      <!-- a leaf's -->\n    </AlwaysSuccess>\n  </BehaviorTree>\n"),
			got:  func(d *runtime.Document) []string { return d.Trees[0].Root.Notes.End },
			want: []string{" a leaf's "},
		},
		{
			name: "after a tree's root node: the tree's end",
			xml:  tree("  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess/>\n    <!-- done -->\n  </BehaviorTree>\n"),
			got:  func(d *runtime.Document) []string { return d.Trees[0].Notes.End },
			want: []string{" done "},
		},
		{
			name: "in an empty tree",
			xml:  tree("  <BehaviorTree ID=\"M\">\n    <!-- to do -->\n  </BehaviorTree>\n"),
			got:  func(d *runtime.Document) []string { return d.Trees[0].Notes.End },
			want: []string{" to do "},
		},
		{
			name: "before </root>",
			xml:  tree("  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n\n  <!-- the end -->\n"),
			got:  func(d *runtime.Document) []string { return d.Notes.End },
			want: []string{" the end "},
		},
		{
			name: "before a TreeNodesModel, before a model, at its end",
			xml:  tree("  <!-- models -->\n  <TreeNodesModel>\n    <!-- A -->\n    <Action ID=\"A\"/>\n    <!-- last -->\n  </TreeNodesModel>\n"),
			got: func(d *runtime.Document) []string {
				return append(append(append([]string{}, d.ModelsNotes.Comments...), d.Models[0].Notes.Comments...), d.ModelsNotes.End...)
			},
			want: []string{" models ", " A ", " last "},
		},
		{
			name: "before an include",
			xml:  tree("  <!-- models first -->\n  <include path=\"missions/models.xml\"/>\n"),
			got:  func(d *runtime.Document) []string { return d.Includes[0].Notes.Comments },
			want: []string{" models first "},
		},
		{
			name:  "inside a model, between ports: after the ports",
			xml:   tree("  <TreeNodesModel>\n    <Action ID=\"A\">\n      <!-- x first -->\n      <input_port name=\"x\"><!-- in x -->what x is</input_port>\n      <output_port name=\"y\"/>\n    </Action>\n  </TreeNodesModel>\n"),
			got:   func(d *runtime.Document) []string { return d.Models[0].Notes.End },
			want:  []string{" x first ", " in x "},
			moved: tree("  <TreeNodesModel>\n    <Action ID=\"A\">\n      <input_port name=\"x\">what x is</input_port>\n      <output_port name=\"y\"/>\n      <!-- x first -->\n      <!-- in x -->\n    </Action>\n  </TreeNodesModel>\n"),
		},
		{
			name: "inside an include",
			xml:  tree("  <include path=\"missions/models.xml\">\n    <!-- the skills' models -->\n  </include>\n"),
			got:  func(d *runtime.Document) []string { return d.Includes[0].Notes.End },
			want: []string{" the skills' models "},
		},
		{
			name:  "inside a model's metadata: after its ports",
			xml:   tree("  <TreeNodesModel>\n    <Action ID=\"A\">\n      <MetadataFields>\n        <!-- why -->\n        <Metadata description=\"d\"><!-- inside --></Metadata>\n      </MetadataFields>\n    </Action>\n  </TreeNodesModel>\n"),
			got:   func(d *runtime.Document) []string { return d.Models[0].Notes.End },
			want:  []string{" why ", " inside "},
			moved: tree("  <TreeNodesModel>\n    <Action ID=\"A\">\n      <MetadataFields>\n        <Metadata description=\"d\"/>\n      </MetadataFields>\n      <!-- why -->\n      <!-- inside -->\n    </Action>\n  </TreeNodesModel>\n"),
		},
		{
			name:  "after </root>: before it",
			xml:   tree("  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n") + "<!-- trailer -->\n",
			got:   func(d *runtime.Document) []string { return d.Notes.End },
			want:  []string{" trailer "},
			moved: tree("  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n  <!-- trailer -->\n"),
		},
		{
			name:  "on the line of a node, with CRLF line ends: a line of its own, LF",
			xml:   "<root BTCPP_format=\"4\">\r\n  <BehaviorTree ID=\"M\"><!-- one\r\n two --><AlwaysSuccess/></BehaviorTree>\r\n</root>\r\n",
			got:   func(d *runtime.Document) []string { return d.Trees[0].Root.Notes.Comments },
			want:  []string{" one\n two "},
			moved: "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"M\">\n    <!-- one\n two -->\n    <AlwaysSuccess/>\n  </BehaviorTree>\n</root>\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mustParse(t, "t.xml", c.xml)
			assert.Equal(t, c.want, c.got(doc), "where the comment is attached")
			written := roundTrip(t, "t.xml", doc)
			want := c.xml
			if c.moved != "" {
				want = c.moved
			}
			assert.Equal(t, want, written, "the text written")
		})
	}
}

// TestLayoutKept: what a file's text says besides its elements and
// comments — blank lines, attributes on lines of their own, values over
// several lines, the XML declaration — is written back as it was.
func TestLayoutKept(t *testing.T) {
	cases := []struct {
		name string
		xml  string
	}{
		{"blank lines between elements, after comments and before end tags",
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<!-- c -->\n\n<root BTCPP_format=\"4\">\n\n  <BehaviorTree ID=\"M\">\n    <Sequence>\n      <AlwaysSuccess/>\n\n      <AlwaysSuccess/>\n\n    </Sequence>\n  </BehaviorTree>\n  <BehaviorTree ID=\"N\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n\n</root>\n"},
		{"attributes on lines of their own",
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\"\n      main_tree_to_execute=\"M\">\n  <BehaviorTree ID=\"M\"\n                _description=\"d\">\n    <Script name=\"s\"\n            code=\"x := 1\"/>\n  </BehaviorTree>\n</root>\n"},
		{"a value over several lines",
			"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"M\">\n    <Script name=\"one&#10;line\" code=\"\n\tx := 1;\n      y := 2\"/>\n  </BehaviorTree>\n</root>\n"},
		{"no XML declaration",
			"\n<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n</root>\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := mustParse(t, "t.xml", c.xml)
			assert.Equal(t, c.xml, roundTrip(t, "t.xml", doc))
		})
	}
}

// TestWriteRefusesNotes: a comment XML cannot hold, or a tree from an
// include the document does not list, is an error, and nothing is
// written.
func TestWriteRefusesNotes(t *testing.T) {
	leaf := func(notes *runtime.Notes) *runtime.NodeSpec {
		return &runtime.NodeSpec{Type: "AlwaysSuccess", Notes: notes}
	}
	cases := []struct {
		name string
		doc  *runtime.Document
		want string
	}{
		{"a comment holding -->", &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "M", Root: leaf(&runtime.Notes{Comments: []string{"a --> b"}})}}},
			`comment "a --> b": a comment cannot hold -->`},
		{"a comment with a control character", &runtime.Document{Notes: &runtime.Notes{End: []string{"\x01"}}},
			`comment: character U+0001 cannot be written in XML`},
		{"a tree of an include not listed", &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "M", Root: leaf(nil), Include: &runtime.Include{Path: "x.xml"}}}},
			`tree M comes from an <include> that the document does not list`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Write(&out, c.doc)
			require.Error(t, err)
			assert.Equal(t, c.want, err.Error())
			assert.Zero(t, out.Len(), "nothing written")
		})
	}
}

// TestIncludesKept: a file's <include>s are written back as they were,
// where they were, and the trees and models they bring in are not written
// into the file; the document still holds them, marked with the include
// they came from.
func TestIncludesKept(t *testing.T) {
	const decl = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	lib := decl + "<root BTCPP_format=\"4\">\n  <BehaviorTree ID=\"Lib\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n  <TreeNodesModel>\n    <Action ID=\"LibAction\"/>\n  </TreeNodesModel>\n</root>\n"
	cases := []struct {
		name  string
		files map[string]string // the folder; main.xml is loaded
		want  map[string]string // tree or model ID -> the path of the main file's include it came from ("": main's own)
		err   string
	}{
		{
			name: "one",
			files: map[string]string{
				"lib.xml":  lib,
				"main.xml": decl + "<root BTCPP_format=\"4\" main_tree_to_execute=\"M\">\n  <include path=\"lib.xml\"/>\n\n  <BehaviorTree ID=\"M\">\n    <SubTree ID=\"Lib\"/>\n  </BehaviorTree>\n</root>\n",
			},
			want: map[string]string{"M": "", "Lib": "lib.xml", "LibAction": "lib.xml"},
		},
		{
			name: "nested, between trees",
			files: map[string]string{
				"lib.xml":    lib,
				"middle.xml": decl + "<root BTCPP_format=\"4\">\n  <include path=\"lib.xml\"/>\n  <BehaviorTree ID=\"Middle\">\n    <SubTree ID=\"Lib\"/>\n  </BehaviorTree>\n</root>\n",
				"main.xml":   decl + "<root BTCPP_format=\"4\" main_tree_to_execute=\"M\">\n  <BehaviorTree ID=\"M\">\n    <SubTree ID=\"Middle\"/>\n  </BehaviorTree>\n  <include path=\"middle.xml\"/>\n  <BehaviorTree ID=\"N\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n</root>\n",
			},
			want: map[string]string{"M": "", "N": "", "Middle": "middle.xml", "Lib": "middle.xml", "LibAction": "middle.xml"},
		},
		{
			name: "in a subfolder, and one that includes back up",
			files: map[string]string{
				"lib.xml":      lib,
				"sub/part.xml": decl + "<root BTCPP_format=\"4\">\n  <include path=\"../lib.xml\"/>\n  <BehaviorTree ID=\"Part\">\n    <SubTree ID=\"Lib\"/>\n  </BehaviorTree>\n</root>\n",
				"main.xml":     decl + "<root BTCPP_format=\"4\" main_tree_to_execute=\"M\">\n  <include path=\"sub/part.xml\"/>\n  <include path=\"lib.xml\"/>\n  <BehaviorTree ID=\"M\">\n    <SubTree ID=\"Part\"/>\n  </BehaviorTree>\n</root>\n",
			},
			want: map[string]string{"M": "", "Part": "sub/part.xml", "Lib": "sub/part.xml", "LibAction": "sub/part.xml"},
		},
		{
			name: "missing: a clear error, as before",
			files: map[string]string{
				"main.xml": "<root BTCPP_format=\"4\">\n  <include path=\"nowhere.xml\"/>\n</root>\n",
			},
			err: "main.xml:2:12: cannot include nowhere.xml: no such file or directory",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			main := filepath.Join(dir, "main.xml")
			doc, err := Load(main)
			if c.err != "" {
				require.Error(t, err)
				assert.Equal(t, filepath.Join(dir, c.err), err.Error())
				return
			}
			require.NoError(t, err)
			got := map[string]string{}
			from := func(inc *runtime.Include) string {
				if inc == nil {
					return ""
				}
				return inc.Path
			}
			for _, tr := range doc.Trees {
				got[tr.ID] = from(tr.Include)
			}
			for _, m := range doc.Models {
				got[m.ID] = from(m.Include)
			}
			assert.Equal(t, c.want, got, "where each tree and model came from")
			written := roundTrip(t, main, doc)
			assert.Equal(t, c.files["main.xml"], written, "the file written as it was: its includes, not their trees")
		})
	}
}

// TestIncludeRosPkgKept: an <include ros_pkg=…> is not followed (the
// loader says so) but the document keeps it, and writes it back.
func TestIncludeRosPkgKept(t *testing.T) {
	src := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\">\n  <include ros_pkg=\"nav2_bt_navigator\" path=\"trees/x.xml\"/>\n  <BehaviorTree ID=\"M\">\n    <AlwaysSuccess/>\n  </BehaviorTree>\n</root>\n"
	doc, err := Parse("t.xml", []byte(src))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ROS package paths are not resolved here")
	require.NotNil(t, doc, "not unreadable: the document is there")
	require.Len(t, doc.Includes, 1)
	assert.Equal(t, runtime.Include{Path: "trees/x.xml", RosPkg: "nav2_bt_navigator", At: 0, Pos: runtime.Pos{File: "t.xml", Line: 3, Col: 3}}, *doc.Includes[0])
	var out bytes.Buffer
	require.NoError(t, Write(&out, doc))
	assert.Equal(t, src, out.String())
}

// TestShippedMissionsSaveUnchanged: every shipped mission, loaded and
// written, is the same file byte for byte.
func TestShippedMissionsSaveUnchanged(t *testing.T) {
	files, _ := filepath.Glob("missions/*.xml")
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			doc, err := Load(path)
			require.NoError(t, err)
			assert.Equal(t, string(src), roundTrip(t, path, doc))
		})
	}
}

// TestNav2SaveKeepsMeaning: Nav2's files, loaded and written, mean the
// same (comments and includes too); the text differs only within lines,
// in white space (Nav2's indentation slips, "<X />"), and those lines are
// logged.
func TestNav2SaveKeepsMeaning(t *testing.T) {
	files, _ := filepath.Glob("testdata/nav2/*.xml")
	require.NotEmpty(t, files)
	changed := 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			doc, err := Load(path)
			require.NoError(t, err)
			written := roundTrip(t, path, doc)
			a, b := strings.Split(string(src), "\n"), strings.Split(written, "\n")
			require.Equal(t, len(a), len(b), "the same lines\n%s", written)
			squeeze := func(s string) string { return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), " />", "/>") }
			for i := range a {
				if a[i] == b[i] {
					continue
				}
				changed++
				t.Logf("%s:%d: %q is written %q", path, i+1, a[i], b[i])
				assert.Equal(t, squeeze(a[i]), squeeze(b[i]), "line %d differs in more than white space", i+1)
			}
		})
	}
	t.Logf("%d lines of %d Nav2 files written differently", changed, len(files))
}
