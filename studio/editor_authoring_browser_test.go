package studio_test

import (
	"context"
	"os"
	"path/filepath"
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
      <Script name="start" code="laps := 0; battery := 1.0; greeting := ''"/>
      <Repeat name="three_laps" num_cycles="3">
        <SubTree ID="Lap" battery="{battery}" laps="{laps}"/>
      </Repeat>
      <Script name="greet" code="greeting := 'hello, world: ' .. laps .. ' laps done'"/>
      <AlwaysSuccess/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Lap">
    <Sequence name="lap">
      <ScriptCondition name="battery_check" code="battery &gt; 0.3"/>
      <Script name="drive_lap" code="laps += 1; battery -= 0.25"/>
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
			assert.Equal(t, "{battery}", eval[string](t, ctx, `document.querySelector('#inspector [data-attr="battery"]').value`), "its remapping in the inspector")
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
			press(t, ctx, "battery >")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#inspector [data-attr="code"]').classList.contains('invalid')`, "the script marked")
			msg := eval[string](t, ctx, `document.querySelector('#inspector [data-attr="code"]').parentElement.querySelector('.field-msg').textContent`)
			assert.Contains(t, msg, "1:10", "the parser's line and column")
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
		{"Ctrl+S saves the file expected, which ticks as hello does", func(t *testing.T) {
			checked()
			press(t, ctx, "s", chromedp.ModifierCtrl)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent === 'saved'`, "saved")
			want := filepath.Join(t.TempDir(), "want.xml")
			require.NoError(t, os.WriteFile(want, []byte(helloWithLap), 0o644))
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
