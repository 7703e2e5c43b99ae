package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goalDoc is a main tree whose root is main, and three goal trees of one
// Step each: Charge (C), Deliver (D), Inspect (I).
func goalDoc(main *NodeSpec, charge, deliver, inspect string) *Document {
	return &Document{Main: "MainTree", Trees: []*TreeSpec{
		{ID: "MainTree", Root: main},
		{ID: "Charge", Root: S("C", charge, "rewind", "true")},
		{ID: "Deliver", Root: S("D", deliver, "rewind", "true")},
		{ID: "Inspect", Root: S("I", inspect, "rewind", "true")},
	}}
}

func lookUp(table string) *NodeSpec {
	return N("LookUp", A("name", "pursue", "goal", "{goal}", "table", table))
}

// TestLookUp: the goal picks the tree; a change of goal halts the running
// tree before the new one is ticked; an unknown goal fails and halts.
func TestLookUp(t *testing.T) {
	const table = "charge=Charge; deliver=Deliver; inspect=Inspect"
	cases := []struct {
		name                     string
		table                    string
		charge, deliver, inspect string
		steps                    []step
	}{
		{
			name:   "the goal's tree runs to completion and is reset",
			charge: "R,S", deliver: "F", inspect: "S",
			steps: []step{
				tick(Running, "C").writing("goal", "charge"),
				tick(Success, "C"),
				tick(Failure, "D").writing("goal", "deliver"),
			},
		},
		{
			name:   "a new goal halts the running tree before its own is ticked",
			charge: "R", deliver: "R,S", inspect: "S",
			steps: []step{
				tick(Running, "C").writing("goal", "charge"),
				tick(Running, "C"),
				tick(Running, "C! D").writing("goal", "deliver"),
				tick(Success, "D"),
				tick(Running, "C").writing("goal", "charge"),
			},
		},
		{
			name:   "an unknown goal fails and halts the running tree",
			charge: "R", deliver: "S", inspect: "S",
			steps: []step{
				tick(Running, "C").writing("goal", "charge"),
				tick(Failure, "C!").writing("goal", "fly"),
				tick(Failure, "").writing("goal", ""),
				tick(Running, "C").writing("goal", "charge"),
			},
		},
		{
			name:   "halting the LookUp halts the running tree",
			charge: "R", deliver: "S", inspect: "S",
			steps: []step{
				tick(Running, "C").writing("goal", "charge"),
				halted("C!"),
				tick(Running, "C"),
			},
		},
		{
			name:   "two goals of one tree: the same tree, which goes on running",
			table:  "charge=Charge; recharge=Charge; inspect=Inspect",
			charge: "R,R,S", deliver: "S", inspect: "S",
			steps: []step{
				tick(Running, "C").writing("goal", "charge"),
				tick(Running, "C").writing("goal", "recharge"),
				tick(Success, "C"),
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			tb := tc.table
			if tb == "" {
				tb = table
			}
			clock := NewManualClock(testEpoch)
			tree, err := Build(testRegistry(log), goalDoc(lookUp(tb), tc.charge, tc.deliver, tc.inspect), BuildConf{Clock: clock, Seed: 42})
			require.NoError(t, err)
			for i, s := range tc.steps {
				runStep(t, i+1, tree, clock, log, s)
			}
		})
	}
}

// TestLookUpBuildsEachTreeOnce: every tree of the table is built with the
// tree, once however many goals name it, under paths through the LookUp.
func TestLookUpBuildsEachTreeOnce(t *testing.T) {
	tree, err := Build(testRegistry(&eventLog{}),
		goalDoc(lookUp("charge=Charge; recharge=Charge; deliver=Deliver"), "S", "S", "S"),
		BuildConf{Clock: NewManualClock(testEpoch), Seed: 42})
	require.NoError(t, err)
	var paths []string
	for _, n := range tree.Nodes() {
		paths = append(paths, NodeOf(n).Path())
	}
	assert.Equal(t, []string{"MainTree/pursue", "MainTree/pursue/Charge/C", "MainTree/pursue/Deliver/D"}, paths)
	n := tree.Root().(*LookUp)
	assert.Equal(t, []string{"charge", "recharge", "deliver"}, n.Goals())
	assert.Equal(t, []string{"Charge", "Deliver"}, n.TreeIDs())
}

// TestLookUpReasons: the reason names the goal and its tree, or, for a
// goal the table does not have, the known goals; Explain goes into the
// goal's tree.
func TestLookUpReasons(t *testing.T) {
	cases := []struct {
		name string
		goal string
		text string
	}{
		{
			name: "a known goal: into its tree",
			goal: "deliver",
			text: "MainTree/pursue (LookUp) FAILURE: goal \"deliver\": tree Deliver failed\n" +
				"  MainTree/pursue/Deliver/D (Step) FAILURE\n",
		},
		{
			name: "an unknown goal: the known ones",
			goal: "fly",
			text: "MainTree/pursue (LookUp) FAILURE: goal \"fly\" is not in the table; known goals: charge, deliver, inspect\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := Build(testRegistry(&eventLog{}),
				goalDoc(lookUp("charge=Charge; deliver=Deliver; inspect=Inspect"), "S", "F", "S"),
				BuildConf{Clock: NewManualClock(testEpoch), Seed: 42})
			require.NoError(t, err)
			tree.SetExplaining(true)
			require.NoError(t, tree.Blackboard().Set("goal", tc.goal))
			st, err := tree.TickExactlyOnce()
			require.NoError(t, err)
			assert.Equal(t, Failure, st)
			assert.Equal(t, tc.text, FormatExplanation(tree.Explain()))
		})
	}
}

func TestLookUpBuildErrors(t *testing.T) {
	doc := func(table string) *Document { return goalDoc(lookUp(table), "S", "S", "S") }
	runBuildErrors(t, []buildErrorCase{
		{
			name: "an unknown tree, with the closest IDs",
			doc:  doc("charge=Charge; deliver=Delivr"),
			want: `MainTree/pursue: LookUp's table maps goal "deliver" to tree "Delivr", which is not defined (did you mean Deliver?)`,
		},
		{
			name: "a table read from the blackboard",
			doc:  goalDoc(N("LookUp", A("goal", "{goal}", "table", "{table}")), "S", "S", "S"),
			want: `MainTree/LookUp: port "table": write the table in the tree (goal=TreeID; ...): its trees are built with the tree, not read from the blackboard`,
		},
		{
			name: "a pair without '='",
			doc:  doc("charge=Charge; deliver"),
			want: `MainTree/pursue: port "table": "deliver" is not goal=TreeID`,
		},
		{
			name: "a goal twice",
			doc:  doc("charge=Charge; charge=Deliver"),
			want: `MainTree/pursue: port "table": goal "charge" appears twice`,
		},
		{
			name: "an empty table",
			doc:  doc(" ; "),
			want: `MainTree/pursue: port "table": the table is empty; write goal=TreeID pairs separated by ';'`,
		},
		{
			name: "a goal's tree that looks itself up",
			doc: &Document{Main: "MainTree", Trees: []*TreeSpec{
				{ID: "MainTree", Root: N("SubTree", A("ID", "Loop"))},
				{ID: "Loop", Root: lookUp("again=Loop")},
			}},
			want: `MainTree/Loop/pursue: LookUp "Loop" includes itself: Loop → Loop (recursive subtrees never end)`,
		},
		{
			name: "children in the XML",
			doc:  goalDoc(N("LookUp", A("name", "pursue", "goal", "{goal}", "table", "charge=Charge"), S("X", "S")), "S", "S", "S"),
			want: `MainTree/pursue: LookUp (an action) takes no children, has 1`,
		},
	})
}

// TestLookUpGoalsSetInTheTree: a goal a Script, a post-condition or a
// SetBlackboard writes into the LookUp's entry must be one the table
// serves, as a literal goal must; other entries and served goals are
// left alone.
func TestLookUpGoalsSetInTheTree(t *testing.T) {
	const table = "charge=Charge; deliver=Deliver"
	main := func(setter *NodeSpec) *NodeSpec { return N("Sequence", nil, setter, lookUp(table)) }
	runBuildErrors(t, []buildErrorCase{
		{
			name: "a script sets a goal no tree serves",
			doc:  goalDoc(main(N("Script", A("name", "choose", "code", "n := 1; goal := 'chrage'"))), "S", "S", "S"),
			want: `MainTree: the script of choose (code, 1:17) sets goal to "chrage", a goal no LookUp on {goal} serves (they serve charge, deliver) (did you mean charge?)`,
		},
		{
			name: "either branch of a conditional",
			doc:  goalDoc(main(N("Script", A("name", "choose", "code", "goal := low ? 'charge' : 'inspect'"))), "S", "S", "S"),
			want: `MainTree: the script of choose (code, 1:26) sets goal to "inspect", a goal no LookUp on {goal} serves (they serve charge, deliver)`,
		},
		{
			name: "a post-condition",
			doc:  goalDoc(main(N("AlwaysSuccess", A("name", "done", "_onSuccess", "goal := 'park'"))), "S", "S", "S"),
			want: `MainTree: the script of done (_onSuccess, 1:9) sets goal to "park", a goal no LookUp on {goal} serves (they serve charge, deliver)`,
		},
		{
			name: "a SetBlackboard",
			doc:  goalDoc(main(N("SetBlackboard", A("output_key", "goal", "value", "deliverr"))), "S", "S", "S"),
			want: `MainTree: SetBlackboard sets goal to "deliverr", a goal no LookUp on {goal} serves (they serve charge, deliver) (did you mean deliver?)`,
		},
	})
	for _, tc := range []struct {
		name   string
		setter *NodeSpec
	}{
		{"a served goal", N("Script", A("code", "goal := 'deliver'"))},
		{"another entry", N("Script", A("code", "mode := 'fast'"))},
		{"a SetBlackboard from another entry", N("SetBlackboard", A("output_key", "goal", "value", "{next}"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(testRegistry(nil), goalDoc(main(tc.setter), "S", "S", "S"), BuildConf{Clock: NewManualClock(testEpoch)})
			require.NoError(t, err)
		})
	}
}

func TestLookUpLiteralGoal(t *testing.T) {
	runBuildErrors(t, []buildErrorCase{{
		name: "a literal goal no tree serves",
		doc:  goalDoc(N("LookUp", A("name", "pursue", "goal", "chrage", "table", "charge=Charge; deliver=Deliver")), "S", "S", "S"),
		want: `MainTree/pursue: port "goal": no tree serves goal "chrage": the table has charge, deliver (did you mean charge?)`,
	}})
}

func TestLookUpLiteralGoalRuns(t *testing.T) {
	log := &eventLog{}
	clock := NewManualClock(testEpoch)
	tree, err := Build(testRegistry(log),
		goalDoc(N("LookUp", A("name", "pursue", "goal", "deliver", "table", "charge=Charge; deliver=Deliver")), "S", "F", "S"),
		BuildConf{Clock: clock, Seed: 42})
	require.NoError(t, err)
	runStep(t, 1, tree, clock, log, tick(Failure, "D"))
}
