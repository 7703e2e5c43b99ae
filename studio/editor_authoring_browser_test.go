package studio_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// press sends keys as chromium's own keyboard input (no synthetic
// events): what a person at the keyboard does.
func press(t *testing.T, ctx context.Context, keys string, mods ...chromedp.Modifier) {
	t.Helper()
	var opts []chromedp.KeyOption
	if len(mods) > 0 {
		opts = append(opts, chromedp.KeyModifiers(mods...))
	}
	within(t, ctx, 10*time.Second, chromedp.KeyEvent(keys, opts...))
}

// inspectorJS is the selected node as the inspector shows it: its title.
const inspectorJS = `document.querySelector('#inspector h3').textContent`

// helloWithLap is hello.xml once the keyboard session below is done: the
// lap a subtree of its own (its keys remapped), its condition edited in
// that subtree, a node added after greet.
const helloWithLap = `<root BTCPP_format="4" main_tree_to_execute="Hello">
  <BehaviorTree ID="Hello">
    <Sequence name="hello">
      <Script name="start" code="laps := 0; charge := 1.0; greeting := ''"/>
      <Repeat name="three_laps" num_cycles="3">
        <SubTree ID="Lap" charge="{charge}" laps="{laps}"/>
      </Repeat>
      <Script name="greet" code="greeting := 'hello, world: ' .. laps .. ' laps done'"/>
      <AlwaysSuccess/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Lap">
    <Sequence name="lap">
      <ScriptCondition name="battery_check" code="charge &gt; 0.3"/>
      <Script name="drive_lap" code="laps += 1; charge -= 0.25"/>
    </Sequence>
  </BehaviorTree>
</root>
`

// TestEditorKeyboardOnly: a small edit session in chromium with the
// keyboard alone — no click once the page is open: walk the tree, make a
// subtree of a node, open it, edit a field of a node in it (a script
// that does not parse is marked on its field), go back, add a node from
// the palette, undo, redo, save; the file saved is the one expected and
// ticks as hello.xml does.
func TestEditorKeyboardOnly(t *testing.T) {
	dir := copyMissions(t)
	file := filepath.Join(dir, "hello.xml")
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=hello.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 7 && !!document.querySelector('#problems li.ok')`, "hello open and checked")
	checked := func() {
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent !== 'checking…'`, "the last edit checked")
	}

	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"arrows walk to the lap", func(t *testing.T) {
			press(t, ctx, kb.ArrowDown) // the root, hello
			press(t, ctx, kb.ArrowDown) // start
			press(t, ctx, kb.ArrowRight)
			press(t, ctx, kb.ArrowDown)
			waitJS(t, ctx, 2*time.Second, `document.querySelector('#inspector input[data-attr="name"]').value === 'lap'`, "lap selected")
		}},
		{"g makes a subtree of it, its ID proposed from its name", func(t *testing.T) {
			press(t, ctx, "g")
			waitJS(t, ctx, 2*time.Second, `!document.querySelector('#subtree-box').hidden && document.activeElement.id === 'subtree-id'`, "the ID asked")
			assert.Equal(t, "Lap", eval[string](t, ctx, `document.querySelector('#subtree-id').value`))
			press(t, ctx, kb.Enter)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 5`, "lap and its children replaced by one node")
			assert.Equal(t, "SubTree → Lap", eval[string](t, ctx, inspectorJS), "the SubTree node selected")
			assert.Equal(t, "{charge}", eval[string](t, ctx, `document.querySelector('#inspector [data-attr="charge"]').value`), "its remapping in the inspector")
			checked()
			assert.True(t, eval[bool](t, ctx, `!!document.querySelector('#problems li.ok')`), "the tree still checks clean")
		}},
		{"Enter opens it: the tree selector switches", func(t *testing.T) {
			press(t, ctx, kb.Enter)
			waitJS(t, ctx, 2*time.Second, `document.querySelector('#edit-tree').selectedOptions[0].textContent === 'Lap'`, "Lap open")
			assert.Equal(t, 3, eval[int](t, ctx, `document.querySelectorAll('g.node').length`))
		}},
		{"e edits the selected node's fields; a script that does not parse is marked", func(t *testing.T) {
			press(t, ctx, kb.ArrowDown) // battery_ok
			press(t, ctx, "e")
			waitJS(t, ctx, 2*time.Second, `document.activeElement.dataset.attr === 'name'`, "the name field focused")
			press(t, ctx, "battery_check")
			press(t, ctx, kb.Tab)
			waitJS(t, ctx, 2*time.Second, `document.activeElement.dataset.attr === 'code'`, "the code field focused")
			press(t, ctx, "charge >")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#inspector [data-attr="code"]').classList.contains('invalid')`, "the script marked")
			msg := eval[string](t, ctx, `document.querySelector('#inspector [data-attr="code"]').parentElement.querySelector('.field-msg').textContent`)
			assert.Contains(t, msg, "1:9", "the parser's line and column")
			press(t, ctx, " 0.3")
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('#inspector [data-attr="code"]').classList.contains('invalid')`, "the script clean again")
			press(t, ctx, kb.Escape)
			waitJS(t, ctx, 2*time.Second, `document.activeElement.id === 'tree'`, "the keyboard back on the tree")
		}},
		{"Alt+← goes back, the SubTree node still selected", func(t *testing.T) {
			press(t, ctx, kb.ArrowLeft, chromedp.ModifierAlt)
			waitJS(t, ctx, 2*time.Second, `document.querySelector('#edit-tree').selectedOptions[0].textContent.startsWith('Hello')`, "Hello again")
			assert.Equal(t, "SubTree → Lap", eval[string](t, ctx, inspectorJS))
		}},
		{"a adds from the palette after greet; undo, redo", func(t *testing.T) {
			press(t, ctx, kb.ArrowUp)    // three_laps
			press(t, ctx, kb.ArrowRight) // greet
			waitJS(t, ctx, 2*time.Second, `document.querySelector('#inspector input[data-attr="name"]').value === 'greet'`, "greet selected")
			press(t, ctx, "a")
			waitJS(t, ctx, 2*time.Second, `document.activeElement.id === 'palette-search'`, "the palette's search")
			press(t, ctx, "AlwaysSucc")
			press(t, ctx, kb.Enter)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 6`, "added")
			checked()
			press(t, ctx, "z", chromedp.ModifierCtrl)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 5`, "undone")
			press(t, ctx, "y", chromedp.ModifierCtrl)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 6`, "redone")
		}},
		{"move, copy, paste and delete by keys", func(t *testing.T) {
			pathsJS := `[...document.querySelectorAll('g.node')].map((g) => g.dataset.path.split('/').pop()).join(',')`
			const before = "hello,start,three_laps,Lap,greet,AlwaysSuccess"
			require.Equal(t, before, eval[string](t, ctx, pathsJS))
			press(t, ctx, kb.ArrowUp, chromedp.ModifierAlt)
			waitJS(t, ctx, 5*time.Second, pathsJS+` === 'hello,start,three_laps,Lap,AlwaysSuccess,greet'`, "moved up")
			press(t, ctx, kb.ArrowDown, chromedp.ModifierAlt)
			waitJS(t, ctx, 5*time.Second, pathsJS+` === `+jsq(before), "moved back")
			press(t, ctx, "c", chromedp.ModifierCtrl)
			press(t, ctx, "v", chromedp.ModifierCtrl)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 7`, "pasted after it")
			press(t, ctx, kb.Delete)
			waitJS(t, ctx, 5*time.Second, pathsJS+` === `+jsq(before), "the copy deleted")
		}},
		{"Ctrl+S saves the file expected, which ticks as hello does", func(t *testing.T) {
			checked()
			press(t, ctx, "s", chromedp.ModifierCtrl)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent === 'saved'`, "saved")
			// hello.xml's header comment stays where it was.
			orig, err := os.ReadFile(filepath.Join(missionsDir, "hello.xml"))
			require.NoError(t, err)
			header := string(orig[:strings.Index(string(orig), "<root")])
			require.Contains(t, header, "<!-- The first mission")
			want := filepath.Join(t.TempDir(), "want.xml")
			require.NoError(t, os.WriteFile(want, []byte(header+helloWithLap), 0o644))
			assert.Equal(t, canonical(t, want), canonical(t, file))
			wantSt, wantBB := ticks(t, filepath.Join(missionsDir, "hello.xml"), 5)
			gotSt, gotBB := ticks(t, file, 5)
			assert.Equal(t, wantSt, gotSt)
			assert.Equal(t, wantBB, gotBB)
		}},
	} {
		if !t.Run(step.name, step.do) {
			break
		}
	}
}

// typedFile has a port of each kind the inspector fits an input to.
const typedFile = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="main">
      <Script name="init" code="x := 2"/>
      <Precondition name="guard" if="x &gt; 1" else="FAILURE">
        <AlwaysSuccess/>
      </Precondition>
      <Sleep name="nap" msec="10"/>
      <Log name="say" level="warn" message="x is {x}"/>
      <SubTree ID="Go" goal="{x}"/>
      <AlwaysSuccess name="plain" _skipIf="x == 0"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Go">
    <Script code="reached := goal"/>
  </BehaviorTree>
  <TreeNodesModel>
    <SubTree ID="Go">
      <input_port name="goal"/>
      <output_port name="reached" default="{reached}"/>
    </SubTree>
  </TreeNodesModel>
</root>
`

// setField types value into the inspector's field of attribute attr as
// an input event does, and says at once (before any answer of the
// server) whether the field is marked.
func setField(t *testing.T, ctx context.Context, attr, value string) bool {
	t.Helper()
	return eval[bool](t, ctx, `(() => { const i = document.querySelector('#inspector [data-attr=`+jsq(attr)+`]');
	i.value = `+jsq(value)+`; i.dispatchEvent(new Event(i.tagName === 'SELECT' ? 'change' : 'input')); return i.classList.contains('invalid') })()`)
}

// fieldMsg is the message under a field of the inspector.
func fieldMsg(t *testing.T, ctx context.Context, attr string) string {
	t.Helper()
	return eval[string](t, ctx, `document.querySelector('#inspector [data-attr=`+jsq(attr)+`]').parentElement.querySelector('.field-msg').textContent`)
}

// attrJS is an attribute of the selected node as the editor holds it.
func attrJS(attr string) string {
	return `(() => { const a = window.studio.editor.specs[window.studio.state.selected - 1].attrs.find((x) => x[0] === ` + jsq(attr) + `); return a ? a[1] : '(none)' })()`
}

// TestEditorInspectorFitsThePorts: the inspector's inputs fit each
// port's type, the SubTree node's remapping and the pre/post-condition
// scripts are there, the palette offers the file's subtrees, and a
// SubTree node's tree opens and closes; each case starts by selecting a
// node of typedFile.
func TestEditorInspectorFitsThePorts(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "typed.xml"), []byte(typedFile), 0o644))
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=typed.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 8 && !!document.querySelector('#problems li.ok')`, "typed.xml open and clean")
	waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#palette .pt[data-type="SubTree:Go"]')`, "the file's subtrees in the palette")

	for _, tc := range []struct {
		name, node string
		do         func(t *testing.T)
	}{
		{"a number that is not one is marked at once; a {key} is not", "nap", func(t *testing.T) {
			assert.True(t, setField(t, ctx, "msec", "soon"), "marked before the check")
			assert.Contains(t, fieldMsg(t, ctx, "msec"), "not an integer")
			assert.False(t, setField(t, ctx, "msec", "{delay}"))
			assert.False(t, setField(t, ctx, "msec", "25"))
			assert.Equal(t, "", fieldMsg(t, ctx, "msec"))
			assert.Equal(t, "25", eval[string](t, ctx, attrJS("msec")))
		}},
		{"a status port is a select of the statuses", "guard", func(t *testing.T) {
			assert.Equal(t, "FAILURE", eval[string](t, ctx, `document.querySelector('#inspector select[data-attr="else"]').value`))
			opts := eval[[]string](t, ctx, `[...document.querySelector('#inspector select[data-attr="else"]').options].map((o) => o.value)`)
			assert.Subset(t, opts, []string{"IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED", "{x}"}, "the values and the keys")
			setField(t, ctx, "else", "SUCCESS")
			assert.Equal(t, "SUCCESS", eval[string](t, ctx, attrJS("else")))
		}},
		{"a log level is a select of the levels, its default shown", "say", func(t *testing.T) {
			opts := eval[[]string](t, ctx, `[...document.querySelector('#inspector select[data-attr="level"]').options].map((o) => o.textContent)`)
			require.NotEmpty(t, opts)
			assert.Equal(t, "(default info)", opts[0])
			assert.Subset(t, opts, []string{"debug", "info", "warn", "error"})
		}},
		{"a script port is checked as typed, with the parser's column", "init", func(t *testing.T) {
			setField(t, ctx, "code", "x := (2")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#inspector [data-attr="code"]').classList.contains('invalid')`, "marked")
			assert.Contains(t, fieldMsg(t, ctx, "code"), "1:8")
			setField(t, ctx, "code", "x := 2")
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('#inspector [data-attr="code"]').classList.contains('invalid')`, "clean")
		}},
		{"the SubTree node: its tree, _autoremap, a field per port of its model", "Go", func(t *testing.T) {
			assert.Equal(t, "Go", eval[string](t, ctx, `document.querySelector('#inspector select[data-attr="ID"]').value`))
			assert.True(t, eval[bool](t, ctx, `!!document.querySelector('#inspector select[data-attr="_autoremap"]')`))
			assert.Equal(t, "{x}", eval[string](t, ctx, `document.querySelector('#inspector [data-attr="goal"]').value`))
			assert.Equal(t, "default {reached}", eval[string](t, ctx, `document.querySelector('#inspector [data-attr="reached"]').placeholder`))
			screenshot(t, ctx, "studio-subtree")
			setField(t, ctx, "ID", "Main")
			// Main has no model: its fields are the keys it uses.
			waitJS(t, ctx, 2*time.Second, `document.querySelector('#inspector h3').textContent === 'SubTree → Main' && !!document.querySelector('#inspector [data-attr="x"]')`, "another tree's fields")
			setField(t, ctx, "ID", "Go")
			waitJS(t, ctx, 2*time.Second, `!document.querySelector('#inspector [data-attr="x"]')`, "Go's fields again")
		}},
		{"pre/post-conditions: collapsed when unused", "nap", func(t *testing.T) {
			assert.False(t, eval[bool](t, ctx, `document.querySelector('#inspector details.conds').open`))
			assert.Equal(t, 8, eval[int](t, ctx, `document.querySelectorAll('#inspector details.conds input').length`))
		}},
		{"pre/post-conditions: open when set, checked as typed", "plain", func(t *testing.T) {
			assert.True(t, eval[bool](t, ctx, `document.querySelector('#inspector details.conds').open`))
			assert.Equal(t, "x == 0", eval[string](t, ctx, `document.querySelector('#inspector [data-attr="_skipIf"]').value`))
			setField(t, ctx, "_skipIf", "x ==")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#inspector [data-attr="_skipIf"]').classList.contains('invalid')`, "marked")
			assert.Contains(t, fieldMsg(t, ctx, "_skipIf"), "script: 1:5")
			screenshot(t, ctx, "studio-authoring")
			setField(t, ctx, "_onSuccess", "done := true")
			setField(t, ctx, "_skipIf", "x == 0")
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('#inspector [data-attr="_skipIf"]').classList.contains('invalid')`, "clean")
			assert.Equal(t, "done := true", eval[string](t, ctx, attrJS("_onSuccess")))
		}},
		{"the palette's Subtrees: a SubTree node with its remapping", "main", func(t *testing.T) {
			click(t, ctx, `#palette .pt[data-type="SubTree:Go"]`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 9`, "added")
			assert.Equal(t, "Go", eval[string](t, ctx, attrJS("ID")))
			assert.Equal(t, "{goal}", eval[string](t, ctx, attrJS("goal")), "a port without default: remapped")
			assert.Equal(t, "(none)", eval[string](t, ctx, attrJS("reached")), "a port with a default: left to it")
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#problems li.ok')`, "it checks")
		}},
		{"a double-click opens a SubTree node's tree; Back returns, selection kept", "Go", func(t *testing.T) {
			sel := eval[int](t, ctx, `window.studio.state.selected`)
			eval[bool](t, ctx, `(() => { const r = document.querySelector('g.node[data-path$="/Go"] rect.box').getBoundingClientRect();
				document.querySelector('#tree').dispatchEvent(new MouseEvent('dblclick', {bubbles: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2})); return true })()`)
			waitJS(t, ctx, 2*time.Second, `document.querySelector('#edit-tree').selectedOptions[0].textContent === 'Go'`, "Go open")
			assert.False(t, eval[bool](t, ctx, `document.querySelector('#btn-back').disabled`))
			assert.False(t, eval[bool](t, ctx, `!!document.querySelector('#palette .pt[data-type="SubTree:Go"]')`), "a tree is not offered inside itself")
			click(t, ctx, "#btn-back")
			waitJS(t, ctx, 2*time.Second, `document.querySelector('#edit-tree').selectedOptions[0].textContent.startsWith('Main')`, "Main again")
			assert.Equal(t, sel, eval[int](t, ctx, `window.studio.state.selected`))
		}},
		{"a subtree from the selection: a clash said in the bar, one undo step", "guard", func(t *testing.T) {
			click(t, ctx, "#btn-subtree")
			waitJS(t, ctx, 2*time.Second, `!document.querySelector('#subtree-box').hidden`, "the ID asked")
			assert.Equal(t, "Guard", eval[string](t, ctx, `document.querySelector('#subtree-id').value`))
			eval[bool](t, ctx, `(document.querySelector('#subtree-id').value = 'Go', true)`)
			click(t, ctx, "#subtree-ok")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#subtree-msg').textContent.includes('has a tree Go already')`, "the clash said")
			eval[bool](t, ctx, `(document.querySelector('#subtree-id').value = 'Guarded', true)`)
			click(t, ctx, "#subtree-ok")
			waitJS(t, ctx, 5*time.Second, `window.studio.editor.doc.trees.length === 3`, "the new tree")
			assert.Equal(t, "{x}", eval[string](t, ctx, attrJS("x")), "the guard's key remapped")
			assert.Equal(t, "Guarded", eval[string](t, ctx, attrJS("ID")))
			assert.True(t, eval[bool](t, ctx, `document.querySelector('#subtree-box').hidden`))
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#problems li.ok')`, "it checks")
			click(t, ctx, "#btn-undo")
			waitJS(t, ctx, 5*time.Second, `window.studio.editor.doc.trees.length === 2`, "undone in one step")
			assert.Equal(t, "Precondition", eval[string](t, ctx, inspectorJS))
		}},
		{"a port naming an entry as text is offered the keys by name", "main", func(t *testing.T) {
			click(t, ctx, `#palette .pt[data-type="UnsetBlackboard"]`)
			waitJS(t, ctx, 5*time.Second, inspectorJS+` === 'UnsetBlackboard'`, "added and selected")
			assert.Equal(t, "bb-names", eval[string](t, ctx, `document.querySelector('#inspector input[data-attr="key"]').getAttribute('list')`))
			names := eval[[]string](t, ctx, `[...document.querySelectorAll('#bb-names option')].map((o) => o.value)`)
			assert.Contains(t, names, "x", "the keys by name")
			assert.Equal(t, "bb-keys", eval[string](t, ctx, `document.querySelector('#inspector input[data-attr="name"]').getAttribute('list')`), "other fields: {key} references")
			click(t, ctx, "#btn-undo")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			click(t, ctx, `g.node[data-path$="/`+tc.node+`"]`)
			tc.do(t)
		})
	}
}

// TestEditorAddUndoRedoSave: the check — a shipped mission
// opened, a node added, the addition undone and redone, the file saved;
// it is the expected XML.
func TestEditorAddUndoRedoSave(t *testing.T) {
	dir := copyMissions(t)
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=hello.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 7 && !!document.querySelector('#problems li.ok')`, "hello open")
	click(t, ctx, `g.node[data-path$="/greet"]`)
	click(t, ctx, `#palette .pt[data-type="AlwaysFailure"]`)
	waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 8`, "added")
	click(t, ctx, "#btn-undo")
	waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 7`, "undone")
	click(t, ctx, "#btn-redo")
	waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === 8`, "redone")
	click(t, ctx, "#btn-save")
	waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent.startsWith('saved')`, "saved")
	// The file as it was, comments and all, with the one line added.
	orig, err := os.ReadFile(filepath.Join(missionsDir, "hello.xml"))
	require.NoError(t, err)
	greet := "      <Script name=\"greet\" code=\"greeting := 'hello, world: ' .. laps .. ' laps done'\"/>\n"
	require.Contains(t, string(orig), greet)
	want := strings.Replace(string(orig), greet, greet+"      <AlwaysFailure/>\n", 1)
	got, err := os.ReadFile(filepath.Join(dir, "hello.xml"))
	require.NoError(t, err)
	assert.Equal(t, want, string(got))
}
