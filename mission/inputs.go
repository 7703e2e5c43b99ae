package mission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/runtime/script"
)

// CheckInputWrites finds the nodes of tree main (its own nodes: the
// scope of its root blackboard, not its subtrees') that write an entry the
// robot profile's scan cycle fills from a topic: a script assigning to it
// (Script, a pre- or post-condition), an output port bound to it, or an
// output port that names it (SetBlackboard's output_key). Such a
// write is lost at the next tick's scan, and one of another type than the
// message makes the mission abort at the tick that writes it (the shipped
// Hello did: `battery := 1.0` against sim.yaml's BatteryState). Every
// write is a problem at its node's file:line:col.
func CheckInputWrites(reg *runtime.Registry, doc *runtime.Document, main string, p *bridge.Profile) []error {
	t := doc.Tree(main)
	if p == nil || t == nil {
		return nil
	}
	inputs := map[string]string{} // key -> what fills it
	for _, in := range p.Inputs {
		if in.Key != "" {
			inputs[in.Key] = fmt.Sprintf("the message of %s (%s)", in.Topic, in.Type.Name)
		}
		for _, f := range in.Fields {
			inputs[f.Key] = fmt.Sprintf("field %s of %s (%s)", f.Path, in.Topic, in.Type.Name)
		}
	}
	if len(inputs) == 0 {
		return nil
	}
	var problems []error
	var walk func(n *runtime.NodeSpec)
	walk = func(n *runtime.NodeSpec) {
		var ports []runtime.PortSpec
		if nt, ok := reg.Lookup(n.Type); ok {
			ports = nt.Ports
		}
		writes := func(key, how string, pos runtime.Pos) {
			what, ok := inputs[key]
			if !ok {
				return
			}
			if pos.Line == 0 {
				pos = n.Pos
			}
			name := n.Type
			if v, ok := n.Attr("name"); ok && v != "" {
				name += " " + v
			}
			problems = append(problems, fmt.Errorf("%s: %s %s %q, an input of the robot profile %s: the scan cycle writes %s into it every tick; give the tree's own value another name",
				pos, name, how, key, p.File, what))
		}
		for _, a := range n.Attrs {
			i := slices.IndexFunc(ports, func(ps runtime.PortSpec) bool { return ps.Name == a.Name })
			isCond := slices.Contains(runtime.PreConditions[:], a.Name) || slices.Contains(runtime.PostConditions[:], a.Name)
			switch {
			case isCond || i >= 0 && ports[i].Script:
				if _, inEntry := runtime.BlackboardKey(a.Value, a.Name); inEntry && !isCond {
					continue // the script is in an entry: unknown here
				}
				prog, err := script.Parse(a.Value)
				if err != nil {
					continue // the build reports it
				}
				for _, k := range prog.Writes() {
					writes(strings.TrimSpace(k), "assigns", a.Pos)
				}
			case i >= 0 && ports[i].EntryName && ports[i].Dir != runtime.Input:
				// The text names the entry written (SetBlackboard's
				// output_key); "{k}" names it through k: not known before
				// the tick.
				if _, indirect := runtime.BlackboardKey(a.Value, a.Name); !indirect {
					writes(strings.TrimSpace(a.Value), "writes its output "+a.Name+" to", a.Pos)
				}
			case i >= 0 && ports[i].Dir != runtime.Input:
				if k, ok := runtime.BlackboardKey(a.Value, a.Name); ok {
					writes(k, "writes its output "+a.Name+" to", a.Pos)
				}
			}
		}
		if n.Type == "SubTree" {
			return // another scope (its remapped ports are checked as ports)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(t.Root)
	return problems
}
