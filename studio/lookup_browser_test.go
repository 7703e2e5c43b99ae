package studio_test

import (
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
)

// lookUpXML is a mission that pursues a goal through a LookUp: each goal's
// tree runs until the test ends.
const lookUpXML = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <LookUp name="pursue" goal="{goal}" table="charge=Charge; deliver=Deliver"/>
  </BehaviorTree>
  <BehaviorTree ID="Charge">
    <Sleep name="plug" msec="3600000"/>
  </BehaviorTree>
  <BehaviorTree ID="Deliver">
    <Sleep name="drive" msec="3600000"/>
  </BehaviorTree>
</root>`

// TestLookUpInTheEditor: a LookUp's table is written on the node and
// edited in the inspector as a table (a goal and its tree a row); every
// change is the table attribute, checked and saved.
func TestLookUpInTheEditor(t *testing.T) {
	dir := t.TempDir()
	file := writeIn(t, dir, "goals.xml", lookUpXML)
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=goals.xml"))
	waitJS(t, ctx, 10*time.Second, `window.studio.editor.path === 'goals.xml' && document.querySelectorAll('g.node').length === 1`, "goals.xml open")
	waitJS(t, ctx, 10*time.Second, `!!document.querySelector('#problems li.ok')`, "no problems")
	onNode := func() string {
		return eval[string](t, ctx, `[...document.querySelectorAll('g.node[data-uid="1"] text.goal')].map((x) => x.textContent).join('|')`)
	}
	rows := func() string {
		return eval[string](t, ctx, `[...document.querySelectorAll('#goal-table tbody tr')].map((tr) => tr.querySelector('input').value + '=' + tr.querySelector('select').value).join('|')`)
	}
	attr := func() string {
		return eval[string](t, ctx, `(window.studio.editor.doc.trees[window.studio.editor.tree].root.attrs.find((a) => a[0] === 'table') || ['', ''])[1]`)
	}
	click := func(sel string) {
		eval[bool](t, ctx, `(document.querySelector(`+jsq(sel)+`).dispatchEvent(new MouseEvent('click', {bubbles: true})), true)`)
	}
	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"the table written on the node and shown as a table", func(t *testing.T) {
			assert.Equal(t, "charge → Charge|deliver → Deliver", onNode())
			click(`g.node[data-uid="1"]`)
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#goal-table')`, "the goal table in the inspector")
			assert.Equal(t, "charge=Charge|deliver=Deliver", rows())
			assert.Equal(t, "{goal}", eval[string](t, ctx, `document.querySelector('#inspector input[data-attr="goal"]').value`))
			assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('#inspector [data-attr="table"]').length`), "no raw text field for the table")
			screenshot(t, ctx, "studio-lookup-editor")
		}},
		{"a goal added, named and given a tree", func(t *testing.T) {
			click(`#goal-add`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('#goal-table tbody tr').length === 3`, "a third row")
			eval[bool](t, ctx, `(() => { const x = document.querySelector('#goal-table input[data-goal-row="2"]'); x.value = 'refuel'; x.dispatchEvent(new Event('input')); x.dispatchEvent(new Event('change')); return true })()`)
			eval[bool](t, ctx, `(() => { const x = document.querySelector('#goal-table select[data-tree-row="2"]'); x.value = 'Charge'; x.dispatchEvent(new Event('change')); return true })()`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('g.node[data-uid="1"] text.goal').length === 3`, "three lines on the node")
			assert.Equal(t, "charge=Charge; deliver=Deliver; refuel=Charge", attr())
			assert.Equal(t, "charge → Charge|deliver → Deliver|refuel → Charge", onNode())
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#problems li.ok')`, "two goals may share a tree: no problems")
		}},
		{"a tree the file lacks is a problem the check names", func(t *testing.T) {
			eval[bool](t, ctx, `(() => { const x = document.querySelector('#goal-table input[data-goal-row="1"]'); x.value = 'deliver'; return true })()`)
			// A table naming no tree of the file, typed by hand elsewhere:
			// the check still catches it.
			eval[bool](t, ctx, `(() => { const n = window.studio.editor.doc.trees[window.studio.editor.tree].root; n.attrs.find((a) => a[0] === 'table')[1] = 'charge=Charge; deliver=Delivr'; document.querySelector('#btn-save').click(); return true })()`)
			waitJS(t, ctx, 5*time.Second, `[...document.querySelectorAll('#problems li')].some((li) => li.textContent.includes('Delivr'))`, "the unknown tree named")
			assert.Contains(t, eval[string](t, ctx, `document.querySelector('#problems').textContent`), "Deliver", "with the closest ID")
		}},
		{"a goal removed; saved as the table attribute", func(t *testing.T) {
			eval[bool](t, ctx, `(() => { const n = window.studio.editor.doc.trees[window.studio.editor.tree].root; n.attrs.find((a) => a[0] === 'table')[1] = 'charge=Charge; deliver=Deliver; refuel=Charge'; return true })()`)
			click(`g.node[data-uid="1"]`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('#goal-table tbody tr').length === 3`, "three rows")
			click(`#goal-table button[data-del-row="2"]`)
			waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('#goal-table tbody tr').length === 2`, "two rows")
			click(`#btn-save`)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent === 'saved'`, "saved without problems")
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Contains(t, string(data), `table="charge=Charge; deliver=Deliver"`)
			c := mission.CheckFile(mission.Nodes(), filepath.Join(dir, "goals.xml"))
			assert.Empty(t, c.Problems)
		}},
	} {
		if !t.Run(step.name, step.do) {
			break
		}
	}
}

// TestLookUpLiveInTheMonitor: in a running tree, the LookUp's row of the
// goal pursued is marked live, on the node and in the node panel, and
// follows the goal when it changes.
func TestLookUpLiveInTheMonitor(t *testing.T) {
	srv := newServer(t, studio.Conf{})
	tree := buildXML(t, "goals.xml", lookUpXML)
	dbg, detach := attach(srv, tree)
	defer detach()
	ctx := browser(t)
	live := func() string {
		return eval[string](t, ctx, `[...document.querySelectorAll('g.node text.goal.live')].map((x) => x.dataset.goal).join('|') + ' / ' +
			[...document.querySelectorAll('#goals tr.live')].map((x) => x.dataset.goal).join('|')`)
	}
	for i, tc := range []struct {
		goal string
		want string
	}{
		{goal: "deliver", want: "deliver / deliver"},
		{goal: "charge", want: "charge / charge"},
		{goal: "nowhere", want: " / "}, // not in the table: FAILURE, no branch live
	} {
		t.Run(tc.goal, func(t *testing.T) {
			require.NoError(t, tree.Blackboard().Set("goal", tc.goal))
			tick(t, tree, dbg, 1)
			if i == 0 {
				within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
				waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 3`, "the tree drawn")
				eval[bool](t, ctx, `(document.querySelector('g.node[data-uid="1"]').dispatchEvent(new MouseEvent('click', {bubbles: true})), true)`)
				waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#goals')`, "the goals in the node panel")
			}
			if !waitFor(t, ctx, 5*time.Second, `(() => { const s = `+jsq(tc.want)+`; return [...document.querySelectorAll('g.node text.goal.live')].map((x) => x.dataset.goal).join('|') + ' / ' + [...document.querySelectorAll('#goals tr.live')].map((x) => x.dataset.goal).join('|') === s })()`) {
				assert.Equal(t, tc.want, live())
			}
			if tc.goal == "deliver" {
				assert.True(t, strings.HasPrefix(eval[string](t, ctx, `document.querySelector('g.node text.goal.live').textContent`), "▶ deliver → Deliver"))
				screenshot(t, ctx, "studio-lookup-live")
			}
		})
	}
}
