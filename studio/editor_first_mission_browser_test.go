package studio_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// emptyFile is a file of one tree without nodes: where a mission starts.
const emptyFile = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main"/>
</root>
`

// TestEditorBuildsTheREADMEsFirstMission: the README's first mission
// ("A first mission") built in chromium from an empty file with the
// palette and the inspector alone, saved, and then `btrobot check` and
// `btrobot tick --ticks 3` on the saved file say what the README says.
func TestEditorBuildsTheREADMEsFirstMission(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "first.xml")
	require.NoError(t, os.WriteFile(file, []byte(emptyFile), 0o644))
	bin := filepath.Join(t.TempDir(), "btrobot")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/btrobot").CombinedOutput()
	require.NoError(t, err, "%s", out)

	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=first.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelector('#tickinfo').textContent === 'first.xml' && document.querySelectorAll('g.node').length === 0`, "the empty file open")

	click := func(sel string) {
		eval[bool](t, ctx, `(document.querySelector(`+jsq(sel)+`).dispatchEvent(new MouseEvent('click', {bubbles: true})), true)`)
	}
	set := func(attr, value string) {
		eval[bool](t, ctx, `(() => { const i = document.querySelector('#inspector input[data-attr=`+jsq(attr)+`]'); i.value = `+jsq(value)+`; i.dispatchEvent(new Event('input')); return true })()`)
	}
	for _, step := range []struct {
		name  string
		pick  string // the node clicked first, if any
		add   string // the palette type clicked
		attrs [][2]string
		nodes int
	}{
		{name: "the root Sequence", add: "Sequence", nodes: 1},
		{name: "count := 0", add: "Script", attrs: [][2]string{{"code", "count := 0"}}, nodes: 2},
		{name: "a Repeat under the Sequence", pick: `g.node[data-uid="1"]`, add: "Repeat", attrs: [][2]string{{"num_cycles", "3"}}, nodes: 3},
		{name: "count += 1 under the Repeat", add: "Script", attrs: [][2]string{{"code", "count += 1"}}, nodes: 4},
		{name: "the condition, last in the Sequence", pick: `g.node[data-uid="1"]`, add: "ScriptCondition", attrs: [][2]string{{"code", "count == 3"}}, nodes: 5},
	} {
		t.Run(step.name, func(t *testing.T) {
			if step.pick != "" {
				click(step.pick)
			}
			click(`#palette .pt[data-type=` + jsq(step.add) + `]`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node').length === `+strconv.Itoa(step.nodes), "the node added")
			assert.Equal(t, step.add, eval[string](t, ctx, `document.querySelector('#inspector h3').textContent`), "the new node selected")
			for _, a := range step.attrs {
				set(a[0], a[1])
			}
		})
	}
	waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#problems li.ok')`, "no problems")
	eval[bool](t, ctx, `(document.querySelector('#btn-save').click(), true)`)
	waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent === 'saved'`, "saved")

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
}
