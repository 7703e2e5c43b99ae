package studio_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/studio"
)

// emptyFile is a file of one tree without nodes: where a mission starts.
const emptyFile = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main"/>
</root>
`

// TestEditorBuildsTheREADMEsFirstMission: the README's first mission
// ("A first mission") built in chromium from an empty file with the
// palette (by clicks, and by drag and drop) and the inspector alone,
// saved, and then `btrobot check` and `btrobot tick --ticks 3` on the
// saved file say what the README says.
func TestEditorBuildsTheREADMEsFirstMission(t *testing.T) {
	bin := rostest.Btrobot(t)

	for _, how := range []struct {
		name string
		add  func(t *testing.T, ctx context.Context, typ, onto string)
	}{
		{name: "by clicks: select the parent, click the type", add: func(t *testing.T, ctx context.Context, typ, onto string) {
			if onto != "#tree" {
				click(t, ctx, onto)
			}
			click(t, ctx, paletteType(typ))
		}},
		{name: "by drag and drop: the type dropped on its parent", add: func(t *testing.T, ctx context.Context, typ, onto string) {
			drag(t, ctx, paletteType(typ), onto, 0.5)
		}},
	} {
		t.Run(how.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "first.xml"), []byte(emptyFile), 0o644))
			buildFirstMission(t, dir, how.add)
			for _, tc := range []struct {
				name string
				args []string
				want string
			}{
				{name: "btrobot check", args: []string{"check", "first.xml"}, want: ""},
				{name: "btrobot tick --ticks 3", args: []string{"tick", "first.xml", "--ticks", "3"}, want: `{"tick":1,"status":"RUNNING"}
{"tick":2,"status":"RUNNING"}
{"tick":3,"status":"SUCCESS"}
{"blackboard":{"count":3}}
`},
			} {
				t.Run(tc.name, func(t *testing.T) {
					cmd := exec.Command(bin, tc.args...)
					cmd.Dir = dir
					out, err := cmd.Output()
					require.NoError(t, err, "%s", out)
					assert.Equal(t, tc.want, string(out))
				})
			}
		})
	}
}

// buildFirstMission builds the README's first mission in the empty file
// first.xml of dir, adding each node with add (onto: its parent, or
// #tree, the empty pane, for the root) and setting its ports in the
// inspector, and saves it.
func buildFirstMission(t *testing.T, dir string, add func(t *testing.T, ctx context.Context, typ, onto string)) {
	t.Helper()
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=first.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelector('#tickinfo').textContent === 'first.xml' && document.querySelectorAll('g.node').length === 0`, "the empty file open")
	set := func(attr, value string) {
		eval[bool](t, ctx, `(() => { const i = document.querySelector('#inspector input[data-attr=`+jsq(attr)+`]'); i.value = `+jsq(value)+`; i.dispatchEvent(new Event('input')); return true })()`)
	}
	for _, step := range []struct {
		name  string
		onto  string
		add   string // the palette type
		attrs [][2]string
		want  string // the tree after the step
	}{
		{name: "the root Sequence", onto: "#tree", add: "Sequence", want: "Sequence"},
		{name: "count := 0", onto: `g.node[data-uid="1"]`, add: "Script", attrs: [][2]string{{"code", "count := 0"}}, want: "Sequence(Script)"},
		{name: "a Repeat under the Sequence", onto: `g.node[data-uid="1"]`, add: "Repeat", attrs: [][2]string{{"num_cycles", "3"}}, want: "Sequence(Script,Repeat)"},
		{name: "count += 1 under the Repeat", onto: `g.node[data-uid="3"]`, add: "Script", attrs: [][2]string{{"code", "count += 1"}}, want: "Sequence(Script,Repeat(Script))"},
		{name: "the condition, last in the Sequence", onto: `g.node[data-uid="1"]`, add: "ScriptCondition", attrs: [][2]string{{"code", "count == 3"}}, want: "Sequence(Script,Repeat(Script),ScriptCondition)"},
	} {
		t.Run(step.name, func(t *testing.T) {
			add(t, ctx, step.add, step.onto)
			if !waitFor(t, ctx, 5*time.Second, shapeJS+` === `+jsq(step.want)) {
				require.Fail(t, "the tree after the step", "want %s, have %s", step.want, eval[string](t, ctx, shapeJS))
			}
			assert.Equal(t, step.add, eval[string](t, ctx, `document.querySelector('#inspector h3').textContent`), "the new node selected")
			for _, a := range step.attrs {
				set(a[0], a[1])
			}
		})
	}
	if !waitFor(t, ctx, 10*time.Second, `!!document.querySelector('#problems li.ok')`) {
		require.FailNow(t, fmt.Sprintf("problems left: %s; the tree: %s", eval[string](t, ctx, `JSON.stringify(window.studio.editor.problems)`),
			eval[string](t, ctx, `JSON.stringify(window.studio.editor.doc.trees[0].root)`)))
	}
	eval[bool](t, ctx, `(document.querySelector('#btn-save').click(), true)`)
	waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent === 'saved'`, "saved")
}

// click clicks the element sel names.
func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	eval[bool](t, ctx, `(document.querySelector(`+jsq(sel)+`).dispatchEvent(new MouseEvent('click', {bubbles: true})), true)`)
}
