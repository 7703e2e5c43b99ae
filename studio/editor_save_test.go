package studio_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// commentedMain is a file with comments in every place a tree file may
// have them, an <include> of a file in a sub-folder (which includes
// another), and a model of its own.
const commentedMain = `<?xml version="1.0" encoding="UTF-8"?>
<!-- main: a mission with comments everywhere -->
<root BTCPP_format="4" main_tree_to_execute="Main">
  <!-- the library -->
  <include path="lib/lib.xml"/>

  <!-- Main: set up, then the library's tree -->
  <BehaviorTree ID="Main">
    <!-- the root -->
    <Sequence name="main">
      <!-- set up -->
      <Script name="setup" code="x := 1"/>
      <SubTree ID="Lib"/>
      <!-- more to come -->
    </Sequence>
    <!-- end of Main -->
  </BehaviorTree>

  <!-- a model of our own -->
  <TreeNodesModel>
    <!-- Wave: not a node yet -->
    <Action ID="Wave"/>
  </TreeNodesModel>
  <!-- the end -->
</root>
`

// commentedFolder writes main.xml, lib/lib.xml and lib/deep.xml (whose
// Repeat has a num_cycles that is no number) into a fresh folder.
func commentedFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"main.xml": commentedMain,
		"lib/lib.xml": `<root BTCPP_format="4">
  <include path="deep.xml"/>
  <!-- Lib -->
  <BehaviorTree ID="Lib">
    <Sequence>
      <AlwaysSuccess/>
      <SubTree ID="Deep"/>
    </Sequence>
  </BehaviorTree>
</root>
`,
		"lib/deep.xml": `<root BTCPP_format="4">
  <BehaviorTree ID="Deep">
    <Repeat num_cycles="two">
      <AlwaysSuccess/>
    </Repeat>
  </BehaviorTree>
</root>
`,
	} {
		writeIn(t, dir, name, text)
	}
	return dir
}

// editorFile is what GET /api/file answers, the document kept as the page
// keeps it: plain JSON, fields the page does not know passed on as they
// came.
type editorFile struct {
	Doc      map[string]any `json:"doc"`
	Problems []struct {
		Msg  string `json:"msg"`
		Node int    `json:"node"`
	} `json:"problems"`
}

func openFile(t *testing.T, srv *studio.Server, path string) editorFile {
	t.Helper()
	var f editorFile
	getJSON(t, srv.Addr(), "/api/file?path="+url.QueryEscape(path), &f)
	return f
}

// saveFile posts the document to /api/save, and returns the status and
// the answer.
func saveFile(t *testing.T, srv *studio.Server, path string, doc map[string]any) (int, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"path": path, "doc": doc})
	require.NoError(t, err)
	resp, err := http.Post("http://"+srv.Addr()+"/api/save", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(answer)
}

// treeOf returns the page's tree id.
func treeOf(t *testing.T, doc map[string]any, id string) map[string]any {
	t.Helper()
	for _, tr := range doc["trees"].([]any) {
		if tr := tr.(map[string]any); tr["id"] == id {
			return tr
		}
	}
	require.FailNow(t, fmt.Sprintf("no tree %s in %v", id, doc))
	return nil
}

func children(n map[string]any) []any { return n["children"].([]any) }

// TestEditorSavesFilesUnchanged: a file opened in the editor and saved
// without edits through /api/file and /api/save is the same file, byte for
// byte: every shipped mission, and a file with comments everywhere and
// nested includes (saved with the <include>, not the included trees). No
// other file is written.
func TestEditorSavesFilesUnchanged(t *testing.T) {
	dir := commentedFolder(t)
	missions, err := filepath.Glob(filepath.Join(missionsDir, "*.xml"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(missions), 5)
	for _, f := range missions {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
	}
	files := []string{"main.xml", "lib/lib.xml", "lib/deep.xml"}
	for _, f := range missions {
		files = append(files, filepath.Base(f))
	}
	before := map[string][]byte{}
	for _, f := range files {
		before[f], err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		require.NoError(t, err)
	}
	srv := newServer(t, studio.Conf{Dir: dir})
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			// A stale copy would pass: make the file different on disk
			// between opening and saving, so that only the save restores it.
			opened := openFile(t, srv, f)
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), before[f], 0o644))
			status, answer := saveFile(t, srv, f, opened.Doc)
			require.Equal(t, http.StatusOK, status, answer)
			assert.Contains(t, answer, `"saved":true`)
			for _, g := range files {
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(g)))
				require.NoError(t, err)
				assert.Equal(t, string(before[g]), string(got), "%s after saving %s", g, f)
			}
		})
	}
	t.Run("the included trees are shown, marked with their file", func(t *testing.T) {
		doc := openFile(t, srv, "main.xml").Doc
		assert.Equal(t, "lib/deep.xml", treeOf(t, doc, "Deep")["file"])
		assert.Equal(t, "lib/lib.xml", treeOf(t, doc, "Lib")["file"])
		assert.Nil(t, treeOf(t, doc, "Main")["file"], "the file's own tree is not marked")
	})
}

// TestEditorEditKeepsComments: a node edited and moved through the page's
// document keeps its comment, which goes where the node goes; everything
// else of the file stays as it was.
func TestEditorEditKeepsComments(t *testing.T) {
	dir := commentedFolder(t)
	srv := newServer(t, studio.Conf{Dir: dir})
	doc := openFile(t, srv, "main.xml").Doc
	seq := treeOf(t, doc, "Main")["root"].(map[string]any)
	kids := children(seq)
	require.Len(t, kids, 2)
	script := kids[0].(map[string]any)
	require.Equal(t, "Script", script["type"])
	require.NotNil(t, script["notes"], "the page gets the node's comments")
	script["attrs"] = []any{[]any{"name", "setup"}, []any{"code", "x := 2"}}
	seq["children"] = []any{kids[1], script} // moved after the SubTree
	status, answer := saveFile(t, srv, "main.xml", doc)
	require.Equal(t, http.StatusOK, status, answer)
	got, err := os.ReadFile(filepath.Join(dir, "main.xml"))
	require.NoError(t, err)
	want := strings.Replace(commentedMain, `      <!-- set up -->
      <Script name="setup" code="x := 1"/>
      <SubTree ID="Lib"/>
`, `      <SubTree ID="Lib"/>
      <!-- set up -->
      <Script name="setup" code="x := 2"/>
`, 1)
	require.NotEqual(t, commentedMain, want)
	assert.Equal(t, want, string(got))
}

// TestEditorIncludedTreesReadOnly: the trees an include brings in are
// checked with the file (a problem in one marks its node), and are
// read-only in it: a save that changed one is refused, saying which file
// to open, and writes nothing.
func TestEditorIncludedTreesReadOnly(t *testing.T) {
	dir := commentedFolder(t)
	srv := newServer(t, studio.Conf{Dir: dir})
	f := openFile(t, srv, "main.xml")

	// Node indexes run over every tree of the page, in order.
	index, repeat := 0, -1
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if n["type"] == "Repeat" {
			repeat = index
		}
		index++
		for _, c := range children(n) {
			walk(c.(map[string]any))
		}
	}
	for _, tr := range f.Doc["trees"].([]any) {
		walk(tr.(map[string]any)["root"].(map[string]any))
	}
	require.GreaterOrEqual(t, repeat, 0)
	// The checker names each instance of the tree (Deep, and Deep where Lib
	// and Main run it): every problem is the included file's, none an
	// unknown subtree.
	require.Len(t, f.Problems, 3, "%v", f.Problems)
	for _, p := range f.Problems {
		assert.Regexp(t, `^lib/deep.xml:3:13: [\w/]*Deep/Repeat: port "num_cycles"`, p.Msg)
		assert.Equal(t, repeat, p.Node, "marked on the included tree's node")
	}

	deep := treeOf(t, f.Doc, "Deep")["root"].(map[string]any)
	deep["attrs"] = []any{[]any{"num_cycles", "2"}}
	status, answer := saveFile(t, srv, "main.xml", f.Doc)
	assert.Equal(t, http.StatusConflict, status)
	assert.Contains(t, answer, "tree Deep is in lib/deep.xml, read-only in main.xml: open lib/deep.xml to edit it")
	for name, want := range map[string]string{"main.xml": commentedMain, "lib/deep.xml": `num_cycles="two"`} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		assert.Contains(t, string(got), want, "%s unchanged", name)
	}

	// Opened on its own, the included file is edited and saved.
	own := openFile(t, srv, "lib/deep.xml").Doc
	treeOf(t, own, "Deep")["root"].(map[string]any)["attrs"] = []any{[]any{"num_cycles", "2"}}
	status, answer = saveFile(t, srv, "lib/deep.xml", own)
	require.Equal(t, http.StatusOK, status, answer)
	assert.Contains(t, answer, `"problems":[]`)
	assert.Empty(t, openFile(t, srv, "main.xml").Problems, "main.xml sees the edit")
}

// TestEditorCommentsAndIncludesInThePage: in chromium, a tree of an
// included file is shown but not edited (the page says which file to
// open), and a node moved with the keyboard and saved takes its comment
// along.
func TestEditorCommentsAndIncludesInThePage(t *testing.T) {
	dir := commentedFolder(t)
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=main.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 3`, "Main's three nodes")
	key := func(k string, mods ...string) {
		eval[bool](t, ctx, `(window.dispatchEvent(new KeyboardEvent('keydown', {key: `+jsq(k)+`, ctrlKey: `+boolJS(mods, "ctrl")+`, altKey: `+boolJS(mods, "alt")+`, bubbles: true})), true)`)
	}
	click := func(sel string) {
		eval[bool](t, ctx, `(document.querySelector(`+jsq(sel)+`).dispatchEvent(new MouseEvent('click', {bubbles: true})), true)`)
	}
	showTree := func(id string) {
		eval[bool](t, ctx, `(() => { const s = document.querySelector('#edit-tree'); s.value = window.studio.editor.doc.trees.findIndex((t) => t.id === `+jsq(id)+`); s.dispatchEvent(new Event('change')); return true })()`)
	}

	t.Run("an included tree is read-only", func(t *testing.T) {
		showTree("Deep")
		waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 2`, "Deep's two nodes")
		click(`g.node[data-path="Deep/Repeat/AlwaysSuccess"]`)
		key("Delete")
		assert.Equal(t, "Deep is in lib/deep.xml, read-only here: open lib/deep.xml to edit it", eval[string](t, ctx, `document.querySelector('#edit-state').textContent`))
		assert.Equal(t, 2, eval[int](t, ctx, `document.querySelectorAll('g.node').length`), "nothing deleted")
		click(`g.node[data-path="Deep/Repeat"]`)
		eval[bool](t, ctx, `(() => { const i = document.querySelector('#inspector input[data-attr="num_cycles"]'); i.value = '2'; i.dispatchEvent(new Event('input')); return true })()`)
		assert.Equal(t, "two", eval[string](t, ctx, `window.studio.editor.doc.trees[window.studio.editor.tree].root.attrs[0][1]`), "the port not changed")
		assert.Equal(t, 0, eval[int](t, ctx, `window.studio.editor.undo.length`), "no edit made")
	})
	t.Run("a moved node keeps its comment", func(t *testing.T) {
		showTree("Main")
		waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 3`, "Main again")
		click(`g.node[data-path="Main/main/setup"]`)
		key("ArrowDown", "alt")
		waitJS(t, ctx, 5*time.Second, `window.studio.editor.doc.trees[window.studio.editor.tree].root.children[1].type === 'Script'`, "setup moved last")
		key("s", "ctrl")
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent.startsWith('saved')`, "saved")
		got, err := os.ReadFile(filepath.Join(dir, "main.xml"))
		require.NoError(t, err)
		assert.Equal(t, strings.Replace(commentedMain, `      <!-- set up -->
      <Script name="setup" code="x := 1"/>
      <SubTree ID="Lib"/>
`, `      <SubTree ID="Lib"/>
      <!-- set up -->
      <Script name="setup" code="x := 1"/>
`, 1), string(got))
	})
	t.Run("a pasted copy has the comment too", func(t *testing.T) {
		click(`g.node[data-path="Main/main/setup"]`)
		key("c", "ctrl")
		click(`g.node[data-path="Main/main"]`)
		key("v", "ctrl")
		waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 4`, "pasted")
		key("s", "ctrl")
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent.startsWith('saved')`, "saved")
		got, err := os.ReadFile(filepath.Join(dir, "main.xml"))
		require.NoError(t, err)
		assert.Equal(t, 2, strings.Count(string(got), "      <!-- set up -->\n      <Script name=\"setup\" code=\"x := 1\"/>\n"), string(got))
	})
}
