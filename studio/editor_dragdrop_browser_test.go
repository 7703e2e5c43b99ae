package studio_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/trees"
)

// shapeJS is the edited tree as names, children in brackets:
// hello(start,three_laps(lap(battery_ok,drive_lap)),greet).
const shapeJS = `(() => {
	const name = (n) => { const a = n.attrs.find((x) => x[0] === 'name'); return a ? a[1] : n.type; };
	const f = (n) => name(n) + (n.children.length ? '(' + n.children.map(f).join(',') + ')' : '');
	const E = window.studio.editor;
	return f(E.doc.trees[E.tree].root);
})()`

// drag drags what from names (a palette type's entry, or a node of the
// tree) with chromium's own mouse input onto the element onto names (a
// node, or the tree's pane): at the fraction across of its box's width,
// halfway down. A palette entry is a native HTML5 drag (dragstart,
// dragover, drop), a node a pointer drag; chromedp.DragAndDropXY does both.
func drag(t *testing.T, ctx context.Context, from, onto string, across float64) {
	t.Helper()
	// A check's answer redraws the problems' list above the palette and
	// moves its entries: the drag starts once the last edit is checked.
	waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent !== 'checking…' && !window.studio.editor.checking`, "the last edit checked")
	// The points are taken, and each checked to hit what it should, in
	// one task after two frames (the page has laid out what it drew); a
	// point that hits something else (the page moved meanwhile) is taken
	// again.
	var pts []float64
	for try := 0; ; try++ {
		pts = eval[[]float64](t, ctx, fmt.Sprintf(`new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(() => {
	const f = document.querySelector(%[1]s), o = document.querySelector(%[2]s);
	f.scrollIntoView({block: 'center', behavior: 'instant'});
	const box = (el) => (el.querySelector('rect.box') || el).getBoundingClientRect();
	const a = box(f), b = box(o);
	const p = [a.left + Math.min(20, a.width / 2), a.top + a.height / 2, b.left + b.width * %[3]g, b.top + b.height / 2];
	const hits = (x, y, el) => { const e = document.elementFromPoint(x, y); return !!e && (e === el || el.contains(e)); };
	res(hits(p[0], p[1], f) && hits(p[2], p[3], o) ? p : []);
})))`, jsq(from), jsq(onto), across))
		if len(pts) == 4 || try == 20 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Len(t, pts, 4, "the points of %s and %s hit them", from, onto)
	within(t, ctx, 10*time.Second, chromedp.DragAndDropXY(pts[0], pts[1], pts[2], pts[3]))
}

func paletteType(typ string) string { return `#palette .pt[data-type=` + jsq(typ) + `]` }

func node(name string) string { return `g.node[data-path$="/` + name + `"]` }

// TestEditorDragAndDrop: node types dragged from the palette onto the
// tree, and nodes of the tree dragged onto others, in chromium with its
// own mouse input: where a
// drop puts the node (left quarter of a box: before it, right quarter:
// after it, elsewhere: into it), and undo restores the tree every time.
func TestEditorDragAndDrop(t *testing.T) {
	dir := copyMissions(t)
	srv := newServer(t, studio.Conf{Dir: dir})
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=hello.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 7`, "hello's seven nodes")
	const hello = "hello(start,three_laps(lap(battery_ok,drive_lap)),greet)"
	require.Equal(t, hello, eval[string](t, ctx, shapeJS))

	for _, tc := range []struct {
		name     string
		from     string // a palette entry or a node
		onto     string
		across   float64
		want     string
		selected string // the inspector's node after the drop
		marked   string // a node the checker then marks, if any
	}{
		{name: "a palette type into a Sequence: its last child", from: paletteType("AlwaysFailure"), onto: node("lap"), across: 0.5,
			want: "hello(start,three_laps(lap(battery_ok,drive_lap,AlwaysFailure)),greet)", selected: "AlwaysFailure"},
		{name: "a palette type on a node's left quarter: before it", from: paletteType("AlwaysFailure"), onto: node("start"), across: 0.1,
			want: "hello(AlwaysFailure,start,three_laps(lap(battery_ok,drive_lap)),greet)", selected: "AlwaysFailure"},
		{name: "a palette type on a leaf's right half: after it", from: paletteType("AlwaysFailure"), onto: node("greet"), across: 0.6,
			want: "hello(start,three_laps(lap(battery_ok,drive_lap)),greet,AlwaysFailure)", selected: "AlwaysFailure"},
		{name: "a palette type into a decorator that has its child: refused by the checker, not by the drop",
			from: paletteType("AlwaysFailure"), onto: node("three_laps"), across: 0.5,
			want: "hello(start,three_laps(lap(battery_ok,drive_lap),AlwaysFailure),greet)", selected: "AlwaysFailure", marked: node("three_laps")},
		{name: "a node re-parented into another", from: node("greet"), onto: node("lap"), across: 0.5,
			want: "hello(start,three_laps(lap(battery_ok,drive_lap,greet)))", selected: "Script"},
		{name: "a node reordered before its sibling", from: node("drive_lap"), onto: node("battery_ok"), across: 0.1,
			want: "hello(start,three_laps(lap(drive_lap,battery_ok)),greet)", selected: "Script"},
		{name: "a node reordered after its sibling", from: node("start"), onto: node("greet"), across: 0.9,
			want: "hello(three_laps(lap(battery_ok,drive_lap)),greet,start)", selected: "Script"},
		{name: "a node on its own child: refused", from: node("three_laps"), onto: node("battery_ok"), across: 0.5,
			want: hello},
		{name: "the root: not moved", from: `g.node[data-uid="1"]`, onto: node("lap"), across: 0.5,
			want: hello},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drag(t, ctx, tc.from, tc.onto, tc.across)
			waitJS(t, ctx, 5*time.Second, shapeJS+` === `+jsq(tc.want), "the drop: "+tc.want)
			if tc.selected != "" {
				assert.Equal(t, tc.selected, eval[string](t, ctx, `document.querySelector('#inspector h3').textContent`), "the dropped node selected")
			}
			if tc.marked != "" {
				waitJS(t, ctx, 5*time.Second, `!!document.querySelector(`+jsq(tc.marked+".bad")+`)`, "the checker's mark")
			}
			assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('g.node.drop').length`), "no drop mark left")
			eval[bool](t, ctx, `(window.dispatchEvent(new KeyboardEvent('keydown', {key: 'z', ctrlKey: true, bubbles: true})), true)`)
			waitJS(t, ctx, 5*time.Second, shapeJS+` === `+jsq(hello), "undone")
		})
	}

	t.Run("a drop saved", func(t *testing.T) {
		drag(t, ctx, node("greet"), node("lap"), 0.5)
		waitJS(t, ctx, 5*time.Second, shapeJS+` === "hello(start,three_laps(lap(battery_ok,drive_lap,greet)))"`, "greet in lap")
		eval[bool](t, ctx, `(document.querySelector('#btn-save').click(), true)`)
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#edit-state').textContent.startsWith('saved')`, "saved")
		doc, err := trees.Load(filepath.Join(dir, "hello.xml"))
		require.NoError(t, err)
		lap := doc.Trees[0].Root.Children[1].Children[0]
		require.Len(t, lap.Children, 3)
		assert.Equal(t, "greet", lap.Children[2].Name())
	})
}
