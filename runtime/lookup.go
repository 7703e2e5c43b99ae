package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/btrobot/btrobot/runtime/script"
)

// LookUp runs the tree that achieves the current goal: a table maps goal
// names to <BehaviorTree> IDs, and each tick looks the goal up and ticks
// that tree, so that goals (charge, deliver, inspect) become modules a
// mission picks at run time instead of SubTrees fixed in the XML.
//
//	<LookUp goal="{goal}" table="charge=Charge; deliver=Deliver; inspect=Inspect"/>
//	  goal "deliver" → ticks the Deliver tree's root
//
// Where it comes from: the goal-directed behavior trees of the literature
// this project grew from, where a look-up table from goals to the trees
// that achieve them makes goals reusable across missions. BehaviorTree.CPP
// has no such node (a SubTree's ID is fixed in the XML); in its XML a
// LookUp is an ordinary leaf with two ports, declared in
// <TreeNodesModel>, so Groot2 and BT.CPP-based tools still open the file.
//
// Contract:
//   - table is written in the tree (not a blackboard entry): goal=TreeID
//     pairs separated by ';'. Every tree it names is checked and built with
//     the tree, once: an unknown ID is an error at the table's line, with
//     the closest IDs; two goals may share a tree, built once. A goal
//     written as a literal must be one of the table's, and so must a string
//     a Script (or any script, post-conditions included) or a SetBlackboard
//     of the same <BehaviorTree> writes into the goal's entry;
//   - each tick reads goal and ticks the root of its tree, which becomes
//     RUNNING; its status is returned, and a completed tree is reset;
//   - when the goal changes while a tree is RUNNING, that tree is halted
//     before the new goal's tree is ticked, in the same tick;
//   - a goal the table does not name halts the running tree, if any, and
//     returns FAILURE; the reason names the known goals;
//   - halting halts the running tree.
//
// Each goal's tree runs in a blackboard scope of its own that sees the
// caller's entries, as a SubTree with _autoremap="true" does; its nodes'
// paths go through the LookUp and the tree's ID
// (MainTree/pursue/Deliver/...). Recordings and Groot2's live view show
// each goal's tree as a tree instance of its own at that path, as they
// show a SubTree's.
type LookUp struct {
	Base
	goals   []string       // in the table's order, for reasons
	index   map[string]int // goal → child (one child per distinct tree)
	trees   []string       // the tree of each child
	running int            // the child RUNNING, -1 when none
}

// lookUpID is the type ID the builder gives the goals' trees to.
const lookUpID = "LookUp"

func lookUpType() NodeType {
	return NodeType{
		ID: lookUpID, Kind: ActionKind, Category: "subtree",
		Summary: "Ticks the tree its table names for the current goal; halts the running one when the goal changes.",
		Doc:     nodeDocs["LookUp"], // DocOf cannot build one: its table is required
		Ports: []PortSpec{
			InputPort[string]("goal", "The goal to pursue: a name the table maps to a tree."),
			InputPort[string]("table", "goal=TreeID pairs separated by ';', written in the tree: each goal's tree, built with the tree."),
		},
		New: func(c *Config) (Node, error) {
			text, ok := LiteralAs[string](c, "table")
			if !ok {
				return nil, &PortError{Port: "table", Err: fmt.Errorf("write the table in the tree (goal=TreeID; ...): its trees are built with the tree, not read from the blackboard")}
			}
			table, err := parseGoalTable(text)
			if err != nil {
				return nil, &PortError{Port: "table", Err: err}
			}
			n := &LookUp{index: map[string]int{}, running: -1}
			for _, e := range table {
				i := indexOf(n.trees, e.tree)
				if i < 0 {
					i = len(n.trees)
					n.trees = append(n.trees, e.tree)
				}
				n.goals = append(n.goals, e.goal)
				n.index[e.goal] = i
			}
			if goal, ok := LiteralAs[string](c, "goal"); ok {
				if _, known := n.index[goal]; !known {
					return nil, &PortError{Port: "goal", Err: fmt.Errorf("no tree serves goal %q: the table has %s%s", goal, strings.Join(n.goals, ", "), didYouMean(goal, n.goals))}
				}
			}
			return n, nil
		},
	}
}

// Goals returns the goals of the table, in its order.
func (n *LookUp) Goals() []string { return n.goals }

// TreeIDs returns the ID of the tree of each child, in order.
func (n *LookUp) TreeIDs() []string { return n.trees }

// Live returns the index of the child RUNNING (see TreeIDs), -1 when none.
func (n *LookUp) Live() int { return n.running }

// Tick looks the goal up and ticks its tree.
func (n *LookUp) Tick() (Status, error) {
	goal, err := GetInput[string](n, "goal")
	if err != nil {
		return Failure, err
	}
	i, ok := n.index[goal]
	if !ok {
		n.haltRunning()
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("goal %q is not in the table; known goals: %s", goal, strings.Join(n.goals, ", ")))
		}
		return Failure, nil
	}
	if n.running != i {
		n.haltRunning() // the goal changed: the old tree stops first
	}
	n.setStatus(Running)
	child := n.children[i]
	st, err := execute(child, child.base())
	if err != nil {
		return st, err
	}
	switch st {
	case Running:
		n.running = i
	case Success, Failure:
		n.HaltChild(i)
		n.running = -1
	case Skipped:
		n.running = -1
	}
	if st != Running && n.Explaining() {
		n.SetReason(fmt.Sprintf("goal %q: tree %s %s", goal, n.trees[i], pastTense(st)))
	}
	return st, nil
}

func (n *LookUp) haltRunning() {
	if n.running >= 0 {
		n.HaltChild(n.running)
		n.running = -1
	}
}

// Halt halts the running tree.
func (n *LookUp) Halt() {
	n.running = -1
	n.ResetChildren()
}

// goalEntry is one goal=TreeID pair of a LookUp's table.
type goalEntry struct{ goal, tree string }

// parseGoalTable reads "goal=TreeID; goal=TreeID": spaces around names are
// ignored, a trailing ';' adds nothing, and every goal appears once.
func parseGoalTable(text string) ([]goalEntry, error) {
	var out []goalEntry
	seen := map[string]bool{}
	for _, item := range strings.Split(text, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		goal, tree, ok := strings.Cut(item, "=")
		goal, tree = strings.TrimSpace(goal), strings.TrimSpace(tree)
		switch {
		case !ok:
			return nil, fmt.Errorf("%q is not goal=TreeID", item)
		case goal == "":
			return nil, fmt.Errorf("%q names no goal", item)
		case !validName(tree):
			return nil, fmt.Errorf("%q: %q is not a tree ID", item, tree)
		case seen[goal]:
			return nil, fmt.Errorf("goal %q appears twice", goal)
		}
		seen[goal] = true
		out = append(out, goalEntry{goal, tree})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the table is empty; write goal=TreeID pairs separated by ';'")
	}
	return out, nil
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// buildGoalTrees builds the trees of LookUp s's table, each once, in the
// order the node's children take them (see LookUp.New); nil when one of
// them could not be built (the error is recorded) or the table does not
// parse (the constructor reported it).
func (b *builder) buildGoalTrees(s *NodeSpec, path string, bb *Blackboard, ancestors map[string]bool, depth int) []Node {
	text, _ := s.Attr("table")
	table, err := parseGoalTable(text)
	if err != nil {
		return nil
	}
	var ids []string
	var kids []Node
	ok := true
	for _, e := range table {
		if indexOf(ids, e.tree) >= 0 {
			continue
		}
		ids = append(ids, e.tree)
		t := b.trees[e.tree]
		if t == nil {
			b.errs.add(s.AttrPos("table").or(s.Pos), path, "LookUp's table maps goal %q to tree %q, which is not defined%s", e.goal, e.tree, didYouMean(e.tree, b.treeIDs()))
			ok = false
			continue
		}
		if ancestors[e.tree] {
			b.reportCycle(s, path, e.tree)
			ok = false
			continue
		}
		child := b.buildTree(t, b.childPath(path, e.tree, 1), bb.NewChild(map[string]string{}, true), ancestors, depth+1, s)
		if child == nil {
			ok = false
			continue
		}
		kids = append(kids, child)
	}
	if !ok {
		return nil
	}
	return kids
}

// checkLookUpGoals checks, tree by tree, the goals written into the
// entries LookUps read their goal from: a string a Script (or any script
// port, or a post-condition) or a SetBlackboard writes there must be a goal
// one of the tree's LookUps on that entry serves, as a literal goal must.
// Entries are matched by name within one <BehaviorTree> (its own scope;
// remapping into subtrees is not followed).
func (b *builder) checkLookUpGoals() {
	for _, t := range b.doc.Trees {
		if t.Root == nil {
			continue
		}
		served := map[string][]string{} // entry → the goals its LookUps serve
		walkSpecs(t.Root, func(s *NodeSpec) {
			if s.Type != lookUpID {
				return
			}
			g, _ := s.Attr("goal")
			key, ok := BlackboardKey(g, "goal")
			table, _ := s.Attr("table")
			entries, err := parseGoalTable(table)
			if !ok || err != nil {
				return
			}
			for _, e := range entries {
				if !slices.Contains(served[key], e.goal) {
					served[key] = append(served[key], e.goal)
				}
			}
		})
		if len(served) == 0 {
			continue
		}
		check := func(s *NodeSpec, attr, key, value, via string) {
			goals, read := served[key]
			if !read || slices.Contains(goals, value) {
				return
			}
			b.errs.add(s.AttrPos(attr), t.ID, "%s sets %s to %q, a goal no LookUp on {%s} serves (they serve %s)%s",
				via, key, value, key, strings.Join(goals, ", "), didYouMean(value, goals))
		}
		walkSpecs(t.Root, func(s *NodeSpec) {
			var scripts []string // the attributes holding scripts
			if nt, ok := b.reg.Lookup(s.Type); ok {
				for _, p := range nt.Ports {
					if p.Script {
						scripts = append(scripts, p.Name)
					}
				}
				if s.Type == "SetBlackboard" {
					out, _ := s.Attr("output_key")
					key, isRef := BlackboardKey(out, "output_key")
					if !isRef {
						key = out
					}
					if v, ok := s.Attr("value"); ok {
						if _, isRef := BlackboardKey(v, "value"); !isRef {
							check(s, "value", key, v, "SetBlackboard")
						}
					}
				}
			}
			scripts = append(scripts, PostConditions[:]...)
			for _, attr := range scripts {
				code, ok := s.Attr(attr)
				if !ok {
					continue
				}
				prog, err := script.Parse(code)
				if err != nil {
					continue // the node's own check says why
				}
				for _, a := range prog.StringAssignments() {
					check(s, attr, a.Name, a.Value, fmt.Sprintf("the script of %s (%s, %d:%d)", s.Name(), attr, a.Line, a.Column))
				}
			}
		})
	}
}

// walkSpecs calls f on s and every node under it, depth first.
func walkSpecs(s *NodeSpec, f func(*NodeSpec)) {
	f(s)
	for _, c := range s.Children {
		walkSpecs(c, f)
	}
}
