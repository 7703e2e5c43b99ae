package studio_test

import (
	"bytes"
	"encoding/json"
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

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/trees"
)

// copyMissions copies the shipped missions into a temporary folder.
func copyMissions(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	copyMissionsTo(t, dir)
	return dir
}

// canonical is a file's meaning: what trees.Write makes of it.
func canonical(t *testing.T, path string) string {
	t.Helper()
	doc, err := trees.Load(path)
	require.NoError(t, err, path)
	var b bytes.Buffer
	require.NoError(t, trees.Write(&b, doc))
	return b.String()
}

// TestEditorKeepsItsFolder: the editor opens the folder's XML files and
// nothing outside it, whatever path is asked for; what is refused says
// what would be right.
func TestEditorKeepsItsFolder(t *testing.T) {
	dir := copyMissions(t)
	outside := filepath.Join(t.TempDir(), "outside.xml")
	require.NoError(t, os.WriteFile(outside, []byte(`<root BTCPP_format="4"><BehaviorTree ID="X"><AlwaysSuccess/></BehaviorTree></root>`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "escapes.xml"), []byte(`<root BTCPP_format="4"><include path="`+outside+`"/><BehaviorTree ID="Y"><AlwaysSuccess/></BehaviorTree></root>`), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.xml")))
	srv := newServer(t, studio.Conf{Dir: dir})
	for _, tc := range []struct {
		name, path string
		want       int
		saying     string
	}{
		{name: "a file of the folder", path: "patrol.xml", want: 200, saying: `"Patrol"`},
		{name: "up and out", path: "../outside.xml", want: 400, saying: "without .."},
		{name: "up and back in", path: "x/../patrol.xml", want: 400, saying: "without .."},
		{name: "absolute", path: outside, want: 400, saying: "relative to it"},
		{name: "not XML", path: "patrol.yaml", want: 400, saying: "opens .xml files"},
		{name: "a symlink out of the folder", path: "link.xml", want: 400, saying: "outside the folder"},
		{name: "an include out of the folder", path: "escapes.xml", want: 400, saying: "outside the folder"},
		{name: "missing", path: "nope.xml", want: 400, saying: "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get("http://" + srv.Addr() + "/api/file?path=" + url.QueryEscape(tc.path))
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, tc.want, resp.StatusCode, string(body))
			assert.Contains(t, string(body), tc.saying)
		})
	}
	t.Run("saving outside is refused too", func(t *testing.T) {
		resp, err := http.Post("http://"+srv.Addr()+"/api/save", "application/json", strings.NewReader(`{"path":"../x.xml","doc":{"main":"X","trees":[]}}`))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, 400, resp.StatusCode)
		_, err = os.Stat(filepath.Join(filepath.Dir(dir), "x.xml"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
}

// nav2Dir holds Nav2's own behavior trees (trees/testdata/nav2).
const nav2Dir = "../trees/testdata/nav2"

// copyNav2 copies Nav2's trees (and the file of their node models) into
// the folder nav2/ of dir.
func copyNav2(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(nav2Dir, "*.xml"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "nav2"), 0o755))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "nav2", filepath.Base(f)), data, 0o644))
	}
}

// TestEditorSavesEveryTreeUnchangedInMeaning: each shipped mission and
// each Nav2 tree of the test data, opened in the editor and saved without
// edits through its save path, loads as it did (load → write → load
// identical).
func TestEditorSavesEveryTreeUnchangedInMeaning(t *testing.T) {
	dir := copyMissions(t)
	copyNav2(t, dir)
	srv := newServer(t, studio.Conf{Dir: dir})
	for _, set := range []struct {
		name, glob string
		atLeast    int
	}{
		{name: "shipped missions", glob: "*.xml", atLeast: 5},
		{name: "Nav2 trees", glob: "nav2/*.xml", atLeast: 7},
	} {
		files, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(set.glob)))
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(files), set.atLeast, set.name)
		for _, f := range files {
			name, err := filepath.Rel(dir, f)
			require.NoError(t, err)
			name = filepath.ToSlash(name)
			t.Run(set.name+"/"+name, func(t *testing.T) {
				before := canonical(t, f)
				body, _ := json.Marshal(map[string]any{"path": name, "doc": fileDoc(t, srv, name)})
				resp, err := http.Post("http://"+srv.Addr()+"/api/save", "application/json", bytes.NewReader(body))
				require.NoError(t, err)
				resp.Body.Close()
				require.Equal(t, 200, resp.StatusCode)
				assert.Equal(t, before, canonical(t, f), "the same document once saved")
			})
		}
	}
}

// TestEditorInTheBrowser: a shipped mission edited in chromium with the
// palette, the inspector and the keyboard; each step says what the page
// and the file show after it.
func TestEditorInTheBrowser(t *testing.T) {
	dir := copyMissions(t)
	file := filepath.Join(dir, "hello.xml")
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=hello.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 7`, "hello's seven nodes")
	waitJS(t, ctx, 10*time.Second, `document.querySelector('#problems li.ok') !== null`, "no problems")
	assert.Contains(t, eval[string](t, ctx, `[...document.querySelectorAll('#files li.file')].map(li => li.dataset.path).join('|')`), "patrol.xml", "the folder's files listed in the sidebar")
	key := func(k string, mods ...string) {
		eval[bool](t, ctx, `(window.dispatchEvent(new KeyboardEvent('keydown', {key: `+jsq(k)+`, ctrlKey: `+boolJS(mods, "ctrl")+`, shiftKey: `+boolJS(mods, "shift")+`, altKey: `+boolJS(mods, "alt")+`, bubbles: true})), true)`)
	}
	click := func(sel string) {
		eval[bool](t, ctx, `(document.querySelector(`+jsq(sel)+`).dispatchEvent(new MouseEvent('click', {bubbles: true})), true)`)
	}
	nodes := func() int { return eval[int](t, ctx, `document.querySelectorAll('g.node').length`) }

	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"the palette lists the registry, with docs/nodes.md's text", func(t *testing.T) {
			assert.True(t, eval[bool](t, ctx, `!!document.querySelector('#palette .pt[data-type="Sequence"]')`))
			assert.True(t, eval[bool](t, ctx, `!!document.querySelector('#palette .pt[data-type="NavigateTo"]')`), "the robot's skills too")
			var md bytes.Buffer
			require.NoError(t, trees.WriteMarkdown(&md, mission.Nodes()))
			summary := eval[string](t, ctx, `document.querySelector('#palette .pt[data-type="Repeat"]').title`)
			assert.Contains(t, md.String(), summary)
		}},
		{"the keyboard alone: select the lap sequence, add a node from the palette", func(t *testing.T) {
			key("ArrowDown")  // hello
			key("ArrowDown")  // start
			key("ArrowRight") // three_laps
			key("ArrowDown")  // lap
			assert.Equal(t, "lap", eval[string](t, ctx, `document.querySelector('#inspector input[data-attr="name"]').value`))
			key("a")
			eval[bool](t, ctx, `(() => { const s = document.querySelector('#palette-search'); s.value = 'AlwaysSucc'; s.dispatchEvent(new Event('input')); s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})); return true })()`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 8`, "the node added")
			assert.Equal(t, "AlwaysSuccess", eval[string](t, ctx, `document.querySelector('#inspector h3').textContent`), "the new node selected")
		}},
		{"undo and redo", func(t *testing.T) {
			key("z", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 7`, "undone")
			key("y", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 8`, "redone")
		}},
		{"an error is marked on its node with check's message", func(t *testing.T) {
			click(`g.node[data-path$="/three_laps"]`)
			eval[bool](t, ctx, `(() => { const i = document.querySelector('#inspector input[data-attr="num_cycles"]'); i.value = 'three'; i.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('g.node.bad[data-path$="/three_laps"]')`, "three_laps marked")
			msg := eval[string](t, ctx, `document.querySelector('g.node.bad').dataset.problem`)
			screenshot(t, ctx, "studio-editor")
			assert.Contains(t, msg, "num_cycles")
			bad := filepath.Join(t.TempDir(), "bad.xml")
			data, _ := os.ReadFile(file)
			require.NoError(t, os.WriteFile(bad, bytes.Replace(data, []byte(`num_cycles="3"`), []byte(`num_cycles="three"`), 1), 0o644))
			c := mission.CheckFile(mission.Nodes(), bad)
			require.NotEmpty(t, c.Problems)
			words := strings.SplitN(c.Problems[0].Error(), ": ", 3)[2] // without file:line:col and the node path
			assert.Contains(t, msg, words, "the same words as btrobot check")
			assert.True(t, strings.HasPrefix(msg, "hello.xml:"), "named as in the folder: %s", msg)
			eval[bool](t, ctx, `(() => { const i = document.querySelector('#inspector input[data-attr="num_cycles"]'); i.value = '3'; i.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('g.node.bad') && !!document.querySelector('#problems li.ok')`, "clean again")
		}},
		{"move, delete, and save through the writer", func(t *testing.T) {
			click(`g.node[data-path$="/lap/AlwaysSuccess"]`)
			key("ArrowUp", "alt")
			key("ArrowUp", "alt")
			waitJS(t, ctx, 5*time.Second, `[...document.querySelectorAll('g.node')].map(g => g.dataset.path).indexOf(document.querySelector('g.node[data-path$="/lap/AlwaysSuccess"]').dataset.path) === 4`, "moved first")
			key("s", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent === 'saved'`, "saved")
			doc, err := trees.Load(file)
			require.NoError(t, err)
			lap := doc.Trees[0].Root.Children[1].Children[0]
			require.Len(t, lap.Children, 3)
			assert.Equal(t, "AlwaysSuccess", lap.Children[0].Type, "the new node first in lap")
			key("Delete")
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 7`, "deleted")
			key("s", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent === 'saved'`, "saved again")
			orig := filepath.Join(missionsDir, "hello.xml")
			assert.Equal(t, canonical(t, orig), canonical(t, file), "back to the shipped mission, in meaning")
		}},
		{"copy a subtree, paste it elsewhere, cut it", func(t *testing.T) {
			click(`g.node[data-path$="/three_laps/lap"]`)
			key("c", "ctrl")
			click(`g.node[data-uid="1"]`)
			key("v", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 10`, "lap and its two children pasted")
			assert.Equal(t, "lap", eval[string](t, ctx, `document.querySelector('#inspector input[data-attr="name"]').value`), "the pasted subtree selected")
			assert.Equal(t, 2, eval[int](t, ctx, `document.querySelectorAll('g.node[data-path$="/lap"]').length`))
			key("x", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 7`, "cut")
			key("v", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 10`, "pasted again")
			key("z", "ctrl")
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 7`, "undone")
		}},
		{"a new file from the template, in a sub-folder", func(t *testing.T) {
			eval[bool](t, ctx, `(window.prompt = () => 'drafts/new.xml', document.querySelector('#btn-new').click(), true)`)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#tickinfo').textContent === 'drafts/new.xml' && document.querySelectorAll('g.node').length === 2`, "the new file open")
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#problems li.ok')`, "the template checks")
			c := mission.CheckFile(mission.Nodes(), filepath.Join(dir, "drafts", "new.xml"))
			assert.Empty(t, c.Problems, "btrobot check passes the template")
			eval[bool](t, ctx, `(window.prompt = () => 'patrol.xml', document.querySelector('#btn-new').click(), true)`)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent.includes('exists already')`, "an existing file is not replaced")
			eval[bool](t, ctx, `(window.prompt = () => '../out.xml', document.querySelector('#btn-new').click(), true)`)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent.includes('without ..')`, "nor one outside the folder")
			_, err := os.Stat(filepath.Join(filepath.Dir(dir), "out.xml"))
			assert.ErrorIs(t, err, os.ErrNotExist)
		}},
	} {
		if !t.Run(step.name, step.do) {
			break
		}
	}
	nodes()
}

func boolJS(mods []string, m string) string {
	for _, x := range mods {
		if x == m {
			return "true"
		}
	}
	return "false"
}
