package trees

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// FuzzParse: no input makes the loader (or the checker behind it) panic;
// every error has a position; whatever loads cleanly writes, and loads back
// as the same document — comments, blank lines and <include>s (of a file
// beside it, inc.xml, and one that inc.xml includes) with it. Run it with
//
//	go test ./trees/ -run XXX -fuzz FuzzParse -fuzztime 5m
//
// Inputs that once failed are kept in testdata/fuzz/FuzzParse and run with
// every go test.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		``,
		`<root/>`,
		`<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><AlwaysSuccess/></Sequence></BehaviorTree></root>`,
		`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><root>&a;</root>`,
		`<root><BehaviorTree ID="&#x41;&lt;"><Script code="a &amp;&amp; b"/></BehaviorTree></root>`,
		`<root><TreeNodesModel><Action ID="A"><input_port name="x" type="int" default="1">d</input_port></Action></TreeNodesModel></root>`,
		`<root><![CDATA[x]]><!-- c --><?pi x?></root>`,
		"\uFEFF<root>\r\n<BehaviorTree ID='x'/>\r\n</root>",
		`<root><include path="nowhere.xml"/></root>`,
		"<!-- a --><root>\n\n<!-- b -->\n\n<include path=\"inc.xml\"/><!--c--><BehaviorTree ID=\"M\"><!-- d --><Sequence><!-- e --><SubTree ID=\"Inc\"/><!-- f --></Sequence><!-- g --></BehaviorTree>\n<!-- h --><TreeNodesModel><!-- i --><Action ID=\"A\"><!-- j --><input_port name=\"x\"><!-- k -->d</input_port><!-- l --></Action><!-- m --></TreeNodesModel><!-- n --></root><!-- o -->",
		"<?xml version=\"1.0\"?>\n\n<root main_tree_to_execute=\"M\"\n      BTCPP_format=\"4\"><BehaviorTree ID=\"M\"><Script\n code=\"x := 1\"\n   name=\"n\"/></BehaviorTree>\n\n<include path=\"inc.xml\"/></root>",
		`<root><include path="sub/deep.xml"/><include path="inc.xml"/><include path="inc.xml"/></root>`,
		"<root><BehaviorTree ID='M'><Script code='a := 1;\r\n\tb := 2;\rc := &#10;3' name=\"x&#9;\ny\"/></BehaviorTree></root>",
	} {
		f.Add([]byte(seed))
	}
	files, _ := filepath.Glob("testdata/*/*.xml")
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil && len(data) < 16<<10 {
			f.Add(data)
		}
	}
	reg := runtime.NewRegistry()
	dir := f.TempDir()
	for name, text := range map[string]string{
		"inc.xml":      `<root><!-- inc --><include path="sub/deep.xml"/><BehaviorTree ID="Inc"><AlwaysSuccess/></BehaviorTree><TreeNodesModel><Action ID="B"/></TreeNodesModel></root>`,
		"sub/deep.xml": `<root><BehaviorTree ID="Deep"><!-- deep --><AlwaysFailure/></BehaviorTree></root>`,
	} {
		require.NoError(f, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(f, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		name := filepath.Join(dir, "fuzz.xml")
		doc, err := Parse(name, data)
		if err != nil {
			var le *LoadError
			require.ErrorAs(t, err, &le, "error %T %v is not a LoadError with problems", err, err)
			require.NotEmpty(t, le.Errs, "error %T %v is not a LoadError with problems", err, err)
			for _, e := range le.Errs {
				require.NotEmpty(t, e.Pos.File, "problem without file or message: %#v", e)
				require.NotEmpty(t, e.Msg, "problem without file or message: %#v", e)
			}
			require.Equal(t, (doc == nil), le.Unreadable, "Unreadable %v but document %v", le.Unreadable, doc != nil)
			if doc != nil {
				_ = runtime.Check(reg, doc, runtime.BuildConf{})
			}
			return
		}
		_ = runtime.Check(reg, doc, runtime.BuildConf{})
		var out bytes.Buffer
		require.NoError(t, Write(&out, doc), "a document that loaded cleanly does not write")
		again, err := Parse(name, out.Bytes())
		require.NoError(t, err, "written document does not load: %v\n%s", err, out.String())
		a, b := stripped(doc), stripped(again)
		require.Equal(t, b, a, "round trip changed the document\nbefore:\n%s\nafter:\n%s", dump(a), dump(b))
		var out2 bytes.Buffer
		err = Write(&out2, again)
		require.NoError(t, err, "writing is not a fixed point (%v)", err)
		require.True(t, bytes.Equal(out.Bytes(), out2.Bytes()), "writing is not a fixed point (%v)", err)
	})
}
