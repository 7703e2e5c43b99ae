package studio_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// TestTheEditorsFileSidebar: the folder's tree files in a sidebar, each
// with its trees; a click opens a file, or one of its trees; the list
// follows New, a new subtree and Save.
func TestTheEditorsFileSidebar(t *testing.T) {
	dir := t.TempDir()
	writeIn(t, dir, "dock.xml", `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="main"><SubTree ID="Dock"/><AlwaysSuccess name="done"/></Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Dock">
    <Sequence name="dock"><AlwaysSuccess name="approach"/><AlwaysSuccess name="attach"/></Sequence>
  </BehaviorTree>
</root>`)
	writeIn(t, dir, "fleet/patrol.xml", `<root BTCPP_format="4" main_tree_to_execute="Patrol">
  <BehaviorTree ID="Patrol"><Sequence name="lap"><AlwaysSuccess name="a"/><AlwaysSuccess name="b"/><AlwaysSuccess name="c"/></Sequence></BehaviorTree>
  <BehaviorTree ID="Charge"><AlwaysSuccess name="plug"/></BehaviorTree>
</root>`)
	writeIn(t, dir, "broken.xml", `<root BTCPP_format="4"><BehaviorTree ID="X">`)
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=dock.xml"))
	waitJS(t, ctx, 10*time.Second, `window.studio.editor.path === 'dock.xml' && document.querySelectorAll('g.node').length === 3`, "dock.xml open")

	// rows lists the sidebar: each file with its trees as shown, the open
	// file and the current tree marked.
	type row struct {
		Path    string   `json:"path"`
		Open    bool     `json:"open"`
		Bad     bool     `json:"bad"`
		Trees   []string `json:"trees"`
		Current string   `json:"current"`
	}
	rows := func() []row {
		return eval[[]row](t, ctx, `[...document.querySelectorAll('#files > li.file')].map((li) => ({
			path: li.dataset.path, open: li.classList.contains('open'), bad: li.classList.contains('bad'),
			trees: [...li.querySelectorAll('.ftree')].map((x) => x.textContent),
			current: (li.querySelector('.ftree.current') || {textContent: ''}).textContent}))`)
	}
	click := func(sel string) {
		eval[bool](t, ctx, `(document.querySelector(`+jsq(sel)+`).dispatchEvent(new MouseEvent('click', {bubbles: true})), true)`)
	}
	shown := func() string {
		return eval[string](t, ctx, `window.studio.editor.path + ' ' + window.studio.editor.doc.trees[window.studio.editor.tree].id + ' ' + document.querySelectorAll('g.node').length`)
	}

	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"every file of the folder listed, the open one with its trees", func(t *testing.T) {
			assert.Equal(t, []row{
				{Path: "broken.xml", Bad: true, Trees: []string{}},
				{Path: "dock.xml", Open: true, Trees: []string{"Main (main)", "Dock"}, Current: "Main (main)"},
				{Path: "fleet/patrol.xml", Trees: []string{}},
			}, rows())
			assert.Zero(t, eval[int](t, ctx, `[...document.querySelectorAll('#runs option')].filter((o) => o.textContent.includes('.xml')).length`), "the files are no longer in the drop-down")
			screenshot(t, ctx, "studio-files")
		}},
		{"a tree of the open file opened from the sidebar", func(t *testing.T) {
			click(`#files li.open .ftree[data-tree="Dock"]`)
			waitJS(t, ctx, 5*time.Second, `window.studio.editor.doc.trees[window.studio.editor.tree].id === 'Dock'`, "Dock shown")
			assert.Equal(t, "dock.xml Dock 3", shown())
			assert.Equal(t, "Dock", rows()[1].Current)
		}},
		{"another file opened: its main tree", func(t *testing.T) {
			click(`#files li[data-path="fleet/patrol.xml"] .frow`)
			waitJS(t, ctx, 5*time.Second, `window.studio.editor.path === 'fleet/patrol.xml'`, "patrol.xml open")
			assert.Equal(t, "fleet/patrol.xml Patrol 4", shown())
			r := rows()
			assert.Equal(t, row{Path: "fleet/patrol.xml", Open: true, Trees: []string{"Patrol (main)", "Charge"}, Current: "Patrol (main)"}, r[2])
			assert.Equal(t, row{Path: "dock.xml", Trees: []string{}}, r[1], "the file left is folded")
		}},
		{"a file's trees unfolded without opening it, one of them opened", func(t *testing.T) {
			click(`#files li[data-path="dock.xml"] .fold`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('#files li[data-path="dock.xml"] .ftree').length === 2`, "dock's trees listed")
			assert.Equal(t, "fleet/patrol.xml", eval[string](t, ctx, `window.studio.editor.path`), "still on patrol.xml")
			click(`#files li[data-path="dock.xml"] .ftree[data-tree="Dock"]`)
			waitJS(t, ctx, 5*time.Second, `window.studio.editor.path === 'dock.xml'`, "dock.xml open")
			assert.Equal(t, "dock.xml Dock 3", shown())
		}},
		{"the filter keeps the files and trees that match", func(t *testing.T) {
			eval[bool](t, ctx, `(() => { const s = document.querySelector('#file-search'); s.value = 'charge'; s.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('#files > li.file').length === 1`, "one file left")
			assert.Equal(t, []row{{Path: "fleet/patrol.xml", Trees: []string{"Patrol (main)", "Charge"}}}, rows(), "its trees shown, since one matches")
			eval[bool](t, ctx, `(() => { const s = document.querySelector('#file-search'); s.value = ''; s.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('#files > li.file').length === 3`, "all back")
		}},
		{"a new subtree listed at once, and after Save from the file", func(t *testing.T) {
			click(`g.node[data-uid="2"]`) // approach
			eval[bool](t, ctx, `(window.dispatchEvent(new KeyboardEvent('keydown', {key: 'g', bubbles: true})), true)`)
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('#subtree-box').hidden`, "the subtree's ID asked")
			eval[bool](t, ctx, `(() => { const s = document.querySelector('#subtree-id'); s.value = 'Approach'; document.querySelector('#subtree-ok').click(); return true })()`)
			waitJS(t, ctx, 5*time.Second, `[...document.querySelectorAll('#files li.open .ftree')].some((x) => x.textContent === 'Approach')`, "Approach listed")
			assert.Equal(t, []string{"Main (main)", "Dock", "Approach"}, rows()[1].Trees)
			click(`#btn-save`)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent.startsWith('saved')`, "saved")
			data, err := os.ReadFile(filepath.Join(dir, "dock.xml"))
			require.NoError(t, err)
			assert.Contains(t, string(data), `<BehaviorTree ID="Approach">`)
			// Another file opened: the saved file's trees come from the server.
			click(`#files li[data-path="fleet/patrol.xml"] .frow`)
			waitJS(t, ctx, 5*time.Second, `window.studio.editor.path === 'fleet/patrol.xml'`, "patrol.xml open")
			// dock.xml was unfolded above: it stays so.
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('#files li[data-path="dock.xml"] .ftree').length === 3`, "dock's three trees listed")
		}},
		{"a new file listed and opened", func(t *testing.T) {
			eval[bool](t, ctx, `(window.prompt = () => 'drafts/new.xml', document.querySelector('#btn-new').click(), true)`)
			waitJS(t, ctx, 5*time.Second, `window.studio.editor.path === 'drafts/new.xml'`, "the new file open")
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#files li.open[data-path="drafts/new.xml"]')`, "listed, open")
			assert.Len(t, rows(), 4)
		}},
	} {
		if !t.Run(step.name, step.do) {
			break
		}
	}
}
