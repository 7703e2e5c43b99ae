package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildReg is the built-in palette plus two leaves with typed ports.
func buildReg() *Registry {
	r := testRegistry(&eventLog{})
	r.MustRegister(
		NodeType{ID: "MoveTo", Kind: ActionKind, Ports: []PortSpec{
			InputPort[float64]("x", "goal x in metres"),
			InputPort[int]("retries", "attempts").WithDefault("3"),
			OutputPort[string]("result", "how it went"),
		}, New: func(*Config) (Node, error) { return &stepLeaf{play: []Status{Success}, log: &eventLog{}}, nil }},
		NodeType{ID: "Count", Kind: ActionKind, Ports: []PortSpec{
			OutputPort[int]("out", "a count"),
		}, New: func(*Config) (Node, error) { return &stepLeaf{play: []Status{Success}, log: &eventLog{}}, nil }},
	)
	return r
}

func doc(trees ...*TreeSpec) *Document { return &Document{Main: trees[0].ID, Trees: trees} }

func tree(id string, root *NodeSpec) *TreeSpec { return &TreeSpec{ID: id, Root: root} }

func TestBuildErrors(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{
		{name: "unknown node type with the nearest names", reg: buildReg,
			doc:  doc(tree("Main", N("Sequense", nil, N("AlwaysSuccess", nil)))),
			want: `Main/Sequense: unknown node type "Sequense" (did you mean Sequence?)`},
		{name: "missing required port", reg: buildReg,
			doc:  doc(tree("Main", N("MoveTo", nil))),
			want: `Main/MoveTo: missing required input port "x" (float64): goal x in metres`},
		{name: "unknown port names the node's ports", reg: buildReg,
			doc:  doc(tree("Main", N("MoveTo", A("x", "1", "retry", "2")))),
			want: `Main/MoveTo: MoveTo has no port "retry" (its ports: x, retries, result)`},
		{name: "a literal that does not convert", reg: buildReg,
			doc:  doc(tree("Main", N("MoveTo", A("x", "far")))),
			want: `Main/MoveTo: port "x" (float64): "far" is not a number`},
		{name: "an output port given a literal", reg: buildReg,
			doc:  doc(tree("Main", N("MoveTo", A("x", "1", "result", "done")))),
			want: `Main/MoveTo: output port "result" must name a blackboard entry like {result}, not the literal "done"`},
		{name: "a leaf with children", reg: buildReg,
			doc:  doc(tree("Main", N("AlwaysSuccess", nil, N("AlwaysSuccess", nil)))),
			want: "Main/AlwaysSuccess: AlwaysSuccess (an action) takes no children, has 1 (to make a child's result SUCCESS, wrap it in ForceSuccess; AlwaysSuccess is a leaf in BT.CPP)"},
		{name: "a control without children", reg: buildReg,
			doc:  doc(tree("Main", N("Sequence", nil))),
			want: "Main/Sequence: Sequence (a control) takes at least 1 child, has 0"},
		{name: "unknown subtree", reg: buildReg,
			doc:  doc(tree("Main", N("SubTree", A("ID", "Dok")))),
			want: `Main/Dok: SubTree names tree "Dok", which is not defined`},
		{name: "recursive subtree", reg: buildReg,
			doc:  doc(tree("Main", N("SubTree", A("ID", "Loop"))), tree("Loop", N("Sequence", nil, N("SubTree", A("ID", "Main"))))),
			want: `Main/Loop/Sequence/Main: SubTree "Main" includes itself: Main → Loop → Main (recursive subtrees never end)`},
		{name: "duplicate tree IDs", reg: buildReg,
			doc:  doc(tree("Main", N("AlwaysSuccess", nil)), tree("Main", N("AlwaysFailure", nil))),
			want: `tree ID "Main" is defined twice (first at )`},
		{name: "a blackboard key used with two types", reg: buildReg,
			doc:  doc(tree("Main", N("Sequence", nil, N("MoveTo", A("x", "{k}")), N("Count", A("out", "{k}"))))),
			want: `Main/Sequence/Count: port "out" wants blackboard entry "k" as int, but Main/Sequence/MoveTo port "x" declared it float64`},
		{name: "a misspelt required port is one mistake", reg: buildReg,
			doc:  doc(tree("Main", N("MoveTo", A("xx", "1")))),
			want: `Main/MoveTo: MoveTo has no port "xx" (did you mean x?)`},
		{name: "children of an unknown node are still checked", reg: buildReg,
			doc: doc(tree("Main", N("Sequense", nil, N("AlwaysSucess", nil)))),
			want: `Main/Sequense: unknown node type "Sequense" (did you mean Sequence?)` +
				"\n" + `Main/Sequense/AlwaysSucess: unknown node type "AlwaysSucess" (did you mean AlwaysSuccess?)`},
		{name: "a BT.CPP v3 name", reg: buildReg,
			doc:  doc(tree("Main", N("SequenceStar", nil, N("AlwaysSuccess", nil)))),
			want: `Main/SequenceStar: unknown node type "SequenceStar" (BT.CPP v4 renamed it SequenceWithMemory)`},
		{name: "every error in one pass", reg: buildReg,
			doc: doc(tree("Main", N("Sequence", nil, N("Nope", nil), N("MoveTo", nil), N("MoveTo", A("x", "y"))))),
			want: `Main/Sequence/Nope: unknown node type "Nope"` +
				"\n" + `Main/Sequence/MoveTo: missing required input port "x" (float64): goal x in metres` +
				"\n" + `Main/Sequence/MoveTo#2: port "x" (float64): "y" is not a number`},
		{name: "too deep", reg: buildReg,
			doc:  doc(tree("Main", deep(300))),
			want: "Main" + strings.Repeat("/Inverter", 258) + ": nesting deeper than 256 nodes; flatten the tree or split it into subtrees"},
	})
	t.Run("no main tree among several", func(t *testing.T) {
		// Only Build needs to know which tree to run; Check looks at all.
		d := &Document{Trees: []*TreeSpec{tree("A", N("AlwaysSuccess", nil)), tree("B", N("AlwaysSuccess", nil))}}
		_, err := Build(buildReg(), d, BuildConf{})
		require.EqualError(t, err, `several trees and no main_tree_to_execute: say which to run (one of A, B)`)
		require.NoError(t, Check(buildReg(), d, BuildConf{}))
	})
}

func TestBuildRefusesSubtreeBombs(t *testing.T) {
	for _, check := range []bool{false, true} {
		conf := BuildConf{MaxNodes: 10_000}
		var err error
		if check {
			err = Check(NewRegistry(), bomb(), conf)
		} else {
			_, err = Build(NewRegistry(), bomb(), conf)
		}
		if assert.Error(t, err, "check=%v: %v", check, err) {
			assert.Len(t, err.(ErrorList), 1, "check=%v: %v", check, err)
			assert.Contains(t, err.Error(), "the tree expands to more than 10000 nodes (each SubTree is a copy of its tree)", "check=%v: %v", check, err)
		}
	}
}

// bomb is ten trees, each using the next one ten times: 10^10 nodes.
func bomb() *Document {
	d := &Document{Main: "T0"}
	for i := 0; i < 10; i++ {
		root := N("Sequence", nil)
		for k := 0; k < 10; k++ {
			if i == 9 {
				root.Children = append(root.Children, N("AlwaysSuccess", nil))
			} else {
				root.Children = append(root.Children, N("SubTree", A("ID", fmt.Sprintf("T%d", i+1))))
			}
		}
		d.Trees = append(d.Trees, tree(fmt.Sprintf("T%d", i), root))
	}
	return d
}

func deep(n int) *NodeSpec {
	s := N("AlwaysSuccess", nil)
	for i := 0; i < n; i++ {
		s = N("Inverter", nil, s)
	}
	return s
}

func TestBuildPathsUIDsAndSubtreeScopes(t *testing.T) {
	d := doc(
		tree("Main", N("Sequence", A("name", "Patrol"),
			N("AlwaysSuccess", nil),
			N("AlwaysSuccess", nil),
			N("SubTree", A("ID", "Dock", "name", "GoDock", "target", "{station}", "speed", "0.25", "tries", "2", "label", "left")),
		)),
		tree("Dock", N("AlwaysSuccess", A("name", "Docked"))),
	)
	tr, err := Build(NewRegistry(), d, BuildConf{})
	require.NoError(t, err)
	var paths []string
	for i, n := range tr.Nodes() {
		b := NodeOf(n)
		assert.Equal(t, i+1, int(b.UID()), "%s has UID %d, want %d", b.Path(), b.UID(), i+1)
		paths = append(paths, b.Path())
	}
	want := []string{"Main/Patrol", "Main/Patrol/AlwaysSuccess", "Main/Patrol/AlwaysSuccess#2", "Main/Patrol/GoDock", "Main/Patrol/GoDock/Docked"}
	require.Equal(t, strings.Join(want, " "), strings.Join(paths, " "), "paths %v, want %v", paths, want)
	sub := NodeOf(tr.Node("Main/Patrol/GoDock/Docked")).Blackboard()
	err = tr.Blackboard().Set("station", "A")
	require.NoError(t, err)
	v, _ := sub.Get("target")
	assert.Equal(t, "A", v, "remapped target = %v", v)
	for k, want := range map[string]any{"speed": 0.25, "tries": 2, "label": "left"} {
		v, _ := sub.Get(k)
		assert.Equal(t, want, v, "subtree literal %s = %#v, want %#v (typed as BT.CPP types SubTree literals)", k, v, want)
	}
}

func TestCheckAcceptsModelOnlyNodesButBuildDoesNot(t *testing.T) {
	d := doc(tree("Main", N("Sequence", nil, N("Beep", A("volume", "3")))))
	d.Models = []*NodeModel{{ID: "Beep", Kind: ActionKind, Ports: []PortSpec{InputPort[int]("volume", "")}}}
	err := Check(NewRegistry(), d, BuildConf{})
	require.NoError(t, err, "Check with the model: %v", err)
	_, err = Build(NewRegistry(), d, BuildConf{})
	require.ErrorContains(t, err, `node type "Beep" is only declared in <TreeNodesModel>; register it to run the tree`, "Build: %v", err)
	d.Trees[0].Root.Children[0].Attrs = A("volume", "loud")
	err = Check(NewRegistry(), d, BuildConf{})
	require.ErrorContains(t, err, `"loud" is not an integer`, "Check must type-check model ports: %v", err)
}

// TestSiblingPaths: the k-th sibling of a name is name#k, however the
// names alternate.
func TestSiblingPaths(t *testing.T) {
	leaf := func(name string) *NodeSpec { return N("AlwaysSuccess", A("name", name)) }
	cases := []struct {
		name  string
		kids  []string
		paths []string
	}{
		{name: "one child", kids: []string{"a"}, paths: []string{"M/S/a"}},
		{name: "a run", kids: []string{"a", "a", "a"}, paths: []string{"M/S/a", "M/S/a#2", "M/S/a#3"}},
		{name: "alternating", kids: []string{"a", "b", "a", "b", "b", "c", "a"},
			paths: []string{"M/S/a", "M/S/b", "M/S/a#2", "M/S/b#2", "M/S/b#3", "M/S/c", "M/S/a#3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := N("Sequence", A("name", "S"))
			for _, k := range tc.kids {
				root.Children = append(root.Children, leaf(k))
			}
			tr, err := Build(NewRegistry(), &Document{Trees: []*TreeSpec{{ID: "M", Root: root}}}, BuildConf{Seed: 1})
			require.NoError(t, err)
			var paths []string
			for _, n := range tr.Nodes()[1:] {
				paths = append(paths, NodeOf(n).Path())
			}
			assert.Equal(t, tc.paths, paths)
		})
	}
}
