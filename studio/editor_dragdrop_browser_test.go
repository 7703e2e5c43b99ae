package studio_test

import (
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
	const E = window.studioEditor;
	return f(E.doc.trees[E.tree].root);
})()`

// pointJS is a point of a node's box (or of another element, such as
// the tree's pane): across its width at the fraction given, halfway down.
func pointJS(node string, across float64) string {
	return fmt.Sprintf(`const el = document.querySelector(%s), r = (el.querySelector('rect.box') || el).getBoundingClientRect();
	const x = r.left + r.width * %g, y = r.top + r.height / 2;`, jsq(node), across)
}

// dragTypeJS drags a palette type onto a node (or the pane) as the browser's drag and
// drop does: dragstart on the palette, dragover and drop on the tree.
func dragTypeJS(typ, node string, across float64) string {
	return `(() => { const dt = new DataTransfer();
	document.querySelector('#palette .pt[data-type=` + jsq(typ) + `]').dispatchEvent(new DragEvent('dragstart', {dataTransfer: dt, bubbles: true}));
	` + pointJS(node, across) + `
	const at = document.elementFromPoint(x, y);
	for (const kind of ['dragover', 'drop']) at.dispatchEvent(new DragEvent(kind, {dataTransfer: dt, clientX: x, clientY: y, bubbles: true, cancelable: true}));
	return true })()`
}

// dragNodeJS drags a node of the tree by the pointer onto another.
func dragNodeJS(from, node string, across float64) string {
	return `(() => { const s = document.querySelector(` + jsq(from) + ` + ' rect.box').getBoundingClientRect();
	document.querySelector(` + jsq(from) + ` + ' rect.box').dispatchEvent(new PointerEvent('pointerdown', {clientX: s.left + 10, clientY: s.top + 10, button: 0, bubbles: true}));
	` + pointJS(node, across) + `
	window.dispatchEvent(new PointerEvent('pointermove', {clientX: (s.left + x) / 2, clientY: (s.top + y) / 2, bubbles: true}));
	window.dispatchEvent(new PointerEvent('pointermove', {clientX: x, clientY: y, bubbles: true}));
	window.dispatchEvent(new PointerEvent('pointerup', {clientX: x, clientY: y, bubbles: true}));
	return true })()`
}

func node(name string) string { return `g.node[data-path$="/` + name + `"]` }

// TestEditorDragAndDrop: node types dragged from the palette onto the
// tree, and nodes of the tree dragged onto others, in chromium: where a
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
		drag     string
		want     string
		selected string // the inspector's node after the drop
		marked   string // a node the checker then marks, if any
	}{
		{name: "a palette type into a Sequence: its last child", drag: dragTypeJS("AlwaysFailure", node("lap"), 0.5),
			want: "hello(start,three_laps(lap(battery_ok,drive_lap,AlwaysFailure)),greet)", selected: "AlwaysFailure"},
		{name: "a palette type on a node's left quarter: before it", drag: dragTypeJS("AlwaysFailure", node("start"), 0.1),
			want: "hello(AlwaysFailure,start,three_laps(lap(battery_ok,drive_lap)),greet)", selected: "AlwaysFailure"},
		{name: "a palette type on a leaf's right half: after it", drag: dragTypeJS("AlwaysFailure", node("greet"), 0.6),
			want: "hello(start,three_laps(lap(battery_ok,drive_lap)),greet,AlwaysFailure)", selected: "AlwaysFailure"},
		{name: "a palette type into a decorator that has its child: refused by the checker, not by the drop",
			drag: dragTypeJS("AlwaysFailure", node("three_laps"), 0.5),
			want: "hello(start,three_laps(lap(battery_ok,drive_lap),AlwaysFailure),greet)", selected: "AlwaysFailure", marked: node("three_laps")},
		{name: "a node re-parented into another", drag: dragNodeJS(node("greet"), node("lap"), 0.5),
			want: "hello(start,three_laps(lap(battery_ok,drive_lap,greet)))", selected: "Script"},
		{name: "a node reordered before its sibling", drag: dragNodeJS(node("drive_lap"), node("battery_ok"), 0.1),
			want: "hello(start,three_laps(lap(drive_lap,battery_ok)),greet)", selected: "Script"},
		{name: "a node reordered after its sibling", drag: dragNodeJS(node("start"), node("greet"), 0.9),
			want: "hello(three_laps(lap(battery_ok,drive_lap)),greet,start)", selected: "Script"},
		{name: "a node on its own child: refused", drag: dragNodeJS(node("three_laps"), node("battery_ok"), 0.5),
			want: hello},
		{name: "the root: not moved", drag: dragNodeJS(`g.node[data-uid="1"]`, node("lap"), 0.5),
			want: hello},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eval[bool](t, ctx, tc.drag)
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
		eval[bool](t, ctx, dragNodeJS(node("greet"), node("lap"), 0.5))
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
