package studio_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

// inViewJS is the nodes drawn whose box lies outside the tree's pane (how
// many, and the first three).
const inViewJS = `(() => {
	const pane = document.querySelector('#tree').getBoundingClientRect(), out = [];
	for (const g of document.querySelectorAll('g.node')) {
		const r = g.querySelector('rect.box').getBoundingClientRect();
		if (r.left < pane.left - 1 || r.right > pane.right + 1 || r.top < pane.top - 1 || r.bottom > pane.bottom + 1) out.push(g.dataset.path);
	}
	return out.length ? [out.length + ' of ' + document.querySelectorAll('g.node').length + ' nodes', ...out.slice(0, 3)] : [];
})()`

// TestTheFirstViewIsFitted: a run's tree opens fitted to the pane,
// however wide (the demo's patrol opened cut off at the left, at a zoom
// of 0.7 around its root); until the user zooms or pans, the view follows
// the pane's size; once they did, their view stays while the tree ticks
// and the window changes, until Fit.
func TestTheFirstViewIsFitted(t *testing.T) {
	missions := copyMissions(t)
	for _, c := range []struct {
		name string
		tree func(t *testing.T) *runtime.Tree
	}{
		{"hello, a small tree", func(t *testing.T) *runtime.Tree {
			tr, _, _ := offlineTree(t, filepath.Join(missions, "hello.xml"))
			return tr
		}},
		{"patrol, the demo's wide tree", func(t *testing.T) *runtime.Tree {
			tr, _, _ := offlineTree(t, filepath.Join(missions, "patrol.xml"))
			return tr
		}},
		{"200 nodes side by side", func(t *testing.T) *runtime.Tree { return bigTree(t, 200) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{})
			tree := c.tree(t)
			_, detach := attach(srv, tree)
			defer detach()
			ctx := browser(t)
			within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
			waitJS(t, ctx, 15*time.Second, `window.studio && window.studio.stats.events > 0 && document.querySelectorAll('g.node').length === window.studio.state.nodes.length`, "the whole tree drawn")
			assert.Empty(t, eval[[]string](t, ctx, inViewJS), "nodes outside the first view")
			if c.name == "patrol, the demo's wide tree" {
				screenshot(t, ctx, "studio-fitted")
			}
		})
	}

	t.Run("the view follows the pane until the user moves it, then stays theirs", func(t *testing.T) {
		srv := newServer(t, studio.Conf{})
		tree := bigTree(t, 60)
		dbg, detach := attach(srv, tree)
		defer detach()
		ctx := browser(t)
		within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
		waitJS(t, ctx, 15*time.Second, `window.studio && window.studio.stats.events > 0 && document.querySelectorAll('g.node').length === 60`, "the tree drawn")
		const view = `document.querySelector('#viewport').getAttribute('transform')`
		first := eval[string](t, ctx, view)

		// A narrower window: the untouched view is fitted again.
		within(t, ctx, 10*time.Second, chromedp.EmulateViewport(900, 700))
		waitJS(t, ctx, 10*time.Second, view+` !== `+jsString(first), "the view fitted to the narrower pane")
		assert.Empty(t, eval[[]string](t, ctx, inViewJS), "nodes outside the view after the window narrowed")

		// The user zooms in with the wheel at the pane's middle.
		eval[bool](t, ctx, `(() => { const r = document.querySelector('#tree').getBoundingClientRect();
			document.querySelector('#tree').dispatchEvent(new WheelEvent('wheel', {deltaY: -400, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true}));
			return true })()`)
		zoomed := eval[string](t, ctx, view)
		require.NotEqual(t, first, zoomed)
		before := eval[float64](t, ctx, `window.studio.stats.events`)
		tick(t, tree, dbg, 5)
		waitJS(t, ctx, 10*time.Second, `window.studio.stats.applied > `+jsNumber(before), "the ticks drawn")
		within(t, ctx, 10*time.Second, chromedp.EmulateViewport(1200, 800))
		// Two frames: a refit would have happened by then.
		eval[bool](t, ctx, `new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`)
		assert.Equal(t, zoomed, eval[string](t, ctx, view), "the user's zoom kept across ticks and a resize")

		// Fit hands the view back: fitted, and following the pane again.
		within(t, ctx, 10*time.Second, chromedp.Click(`#btn-fit`))
		assert.Empty(t, eval[[]string](t, ctx, inViewJS), "nodes outside the view after Fit")
		fitted := eval[string](t, ctx, view)
		within(t, ctx, 10*time.Second, chromedp.EmulateViewport(800, 600))
		waitJS(t, ctx, 10*time.Second, view+` !== `+jsString(fitted), "the view fitted to the pane again")
		assert.Empty(t, eval[[]string](t, ctx, inViewJS), "nodes outside the view after the window narrowed")
	})
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// jsNumber is v as a JavaScript number.
func jsNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestMessageValuesReadAsRostopicEcho: a ROS message on the blackboard is
// shown as rostopic echo shows it — its fields by their ROS names, the
// stamp in seconds, NaN as nan — folded to one line; ▸ unfolds it, one
// field a line, and it stays unfolded as the blackboard is repainted. It
// was Go's %v dump: {0 0 {0 0 1970-01-01 00:00:13 +0000 UTC robot1/base_link} 13.74 NaN …}.
func TestMessageValuesReadAsRostopicEcho(t *testing.T) {
	srv := newServer(t, studio.Conf{})
	tree := bigTree(t, 12)
	require.NoError(t, tree.Blackboard().Set("battery_state", sensor_msgs.BatteryState{
		Header:      std_msgs.Header{Stamp: time.Unix(13, 0), FrameId: "robot1/base_link"},
		Voltage:     13.74,
		Temperature: float32(math.NaN()),
		Percentage:  0.87,
		Present:     true,
	}))
	require.NoError(t, tree.Blackboard().Set("goal_name", "kitchen"))
	dbg, detach := attach(srv, tree)
	defer detach()
	tick(t, tree, dbg, 1)
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
	const cell = `document.querySelector('#bb tr[data-key="Big/battery_state"] td.value')`
	waitJS(t, ctx, 15*time.Second, `!!`+cell, "the message on the blackboard")
	line := eval[string](t, ctx, cell+`.querySelector('.line').textContent`)
	assert.True(t, strings.HasPrefix(line, `{header: {seq: 0, stamp: 13, frame_id: "robot1/base_link"}, voltage: 13.74, temperature: nan,`), line)
	assert.NotContains(t, line, "UTC")
	assert.Equal(t, `"kitchen"`, eval[string](t, ctx, `document.querySelector('#bb tr[data-key="Big/goal_name"] td.value').textContent`), "a string: no expander")
	assert.True(t, eval[bool](t, ctx, cell+`.querySelector('pre.echo').hidden`), "folded at first")

	within(t, ctx, 10*time.Second, chromedp.Click(`#bb tr[data-key="Big/battery_state"] td.value button.unfold`))
	text := eval[string](t, ctx, cell+`.querySelector('pre.echo').textContent`)
	assert.True(t, strings.HasPrefix(text, "header:\n  seq: 0\n  stamp: 13\n  frame_id: \"robot1/base_link\"\nvoltage: 13.74\ntemperature: nan\n"), text)
	// Repainted (a tick) it stays unfolded.
	eval[bool](t, ctx, `(document.querySelector('#bb tr[data-key="Big/battery_state"]').dataset.old = '1', true)`)
	tick(t, tree, dbg, 3)
	waitJS(t, ctx, 10*time.Second, `!!document.querySelector('#bb tr[data-key="Big/battery_state"]') && !document.querySelector('#bb tr[data-key="Big/battery_state"]').dataset.old`, "the blackboard repainted")
	assert.False(t, eval[bool](t, ctx, cell+`.querySelector('pre.echo').hidden`), "still unfolded after a repaint")
	screenshot(t, ctx, "studio-value")
}

// TestGroot2Comforts: on the patrol, as Groot2 offers them — each node
// coloured by its kind (action, condition, control, decorator, subtree),
// the ports written on the nodes at a click of Ports (and gone at the
// next), and a search box that finds nodes by name or type and pans to
// each in turn.
func TestGroot2Comforts(t *testing.T) {
	srv := newServer(t, studio.Conf{})
	tree, _, _ := offlineTree(t, filepath.Join(copyMissions(t), "patrol.xml"))
	_, detach := attach(srv, tree)
	defer detach()
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
	waitJS(t, ctx, 15*time.Second, `window.studio && window.studio.stats.events > 0 && document.querySelectorAll('g.node').length === window.studio.state.nodes.length`, "the tree drawn")

	t.Run("colours by kind", func(t *testing.T) {
		fill := func(sel string) string {
			return eval[string](t, ctx, `getComputedStyle(document.querySelector('`+sel+` path.kind')).fill`)
		}
		for _, c := range []struct{ sel, kind string }{
			{`g.node[data-path$="/NavigateTo"]`, "action"},
			{`g.node[data-path$="/not_bumped"]`, "condition"},
			{`g.node[data-path="Patrol/patrol"]`, "control"},
			{`g.node[data-path$="/forever"]`, "decorator"},
			{`g.node[data-path$="/PatrolStep"]`, "subtree"},
		} {
			assert.Equal(t, c.kind, eval[string](t, ctx, `document.querySelector('`+c.sel+`').dataset.kind`), c.sel)
		}
		colours := map[string]bool{}
		for _, k := range []string{"action", "condition", "control", "decorator", "subtree"} {
			colours[fill(`g.node[data-kind=`+k+`]`)] = true
		}
		assert.Len(t, colours, 5, "five kinds, five colours")
	})

	t.Run("ports written on the nodes", func(t *testing.T) {
		const nav = `document.querySelector('g.node[data-path$="/NavigateTo"]')`
		assert.Zero(t, eval[int](t, ctx, nav+`.querySelectorAll('text.port').length`), "no ports until asked")
		within(t, ctx, 10*time.Second, chromedp.Click(`#btn-ports`))
		waitJS(t, ctx, 5*time.Second, nav+` && `+nav+`.querySelectorAll('text.port').length > 0`, "the ports on NavigateTo")
		ports := eval[string](t, ctx, `[...`+nav+`.querySelectorAll('text.port')].map((t) => t.textContent).join('|')`)
		assert.Contains(t, ports, "goal: {target}")
		assert.Empty(t, eval[[]string](t, ctx, inViewJS), "still fitted with the ports")
		screenshot(t, ctx, "studio-ports")
		within(t, ctx, 10*time.Second, chromedp.Click(`#btn-ports`))
		waitJS(t, ctx, 5*time.Second, `document.querySelectorAll('text.port').length === 0`, "the ports gone")
	})

	t.Run("search finds by name or type and pans to each", func(t *testing.T) {
		within(t, ctx, 10*time.Second, chromedp.SendKeys(`#node-search`, "navigateto"))
		waitJS(t, ctx, 5*time.Second, `/^1 of [2-9]/.test(document.querySelector('#search-info').textContent)`, "the NavigateTo nodes found")
		centred := `(() => { const g = document.querySelector('g.node.found-at'), pane = document.querySelector('#tree').getBoundingClientRect();
			if (!g) return ''; const r = g.querySelector('rect.box').getBoundingClientRect();
			return Math.abs((r.left + r.right) / 2 - (pane.left + pane.right) / 2) < 2 && Math.abs((r.top + r.bottom) / 2 - (pane.top + pane.bottom) / 2) < 2 ? g.dataset.path : ''; })()`
		first := eval[string](t, ctx, centred)
		assert.True(t, strings.HasSuffix(first, "/NavigateTo"), "the first found, in the middle: %q", first)
		screenshot(t, ctx, "studio-search")
		within(t, ctx, 10*time.Second, chromedp.SendKeys(`#node-search`, "\r"))
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#search-info').textContent.startsWith('2 of')`, "Enter: the next")
		second := eval[string](t, ctx, centred)
		assert.True(t, strings.HasSuffix(second, "/NavigateTo"), second)
		assert.NotEqual(t, first, second)
		// By name: the recovery ladder's nodes.
		eval[bool](t, ctx, `(() => { const s = document.querySelector('#node-search'); s.value = 'back_up'; s.dispatchEvent(new Event('input')); return true })()`)
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#search-info').textContent === '1 of 1'`, "one node named back_up…")
		assert.True(t, strings.HasSuffix(eval[string](t, ctx, centred), "/back_up_and_retry"))
		eval[bool](t, ctx, `(() => { const s = document.querySelector('#node-search'); s.value = 'nothing like it'; s.dispatchEvent(new Event('input')); return true })()`)
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#search-info').textContent === 'no node' && !document.querySelector('g.node.found')`, "none found, none marked")
	})
}
