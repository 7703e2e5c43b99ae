package hil

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/runtime"
)

// maxGoals bounds a scenario's goals.
const maxGoals = 256

// serve decodes serve: the mission server's directory, profile, places
// and policy.
func (d *decoder) serve(n *yaml.Node, world string) *ServeConf {
	c := &ServeConf{Pos: d.pos(n), Places: world}
	ok := d.fields("serve", n, []string{"missions", "profile", "places", "preempt"}, func(k string, v *yaml.Node) {
		f := join("serve", k)
		switch k {
		case "missions":
			c.Missions, _ = d.path(f, v, true)
		case "profile":
			c.Profile, _ = d.path(f, v, false)
		case "places":
			c.Places, _ = d.path(f, v, false)
		case "preempt":
			if s, ok := d.str(f, v); ok {
				p, err := executor.ParsePreempt(s, executor.Replace)
				if err != nil {
					d.add(v, f, "%v", err)
				}
				c.Preempt = p
			}
		}
	})
	if ok && c.Missions == "" && !hasKey(n, "missions") {
		d.add(n, "serve", "no missions: want missions: the directory of the server's mission trees")
	}
	return c
}

// The calls an entry of goals: may make instead of a goal, each written
// {pause: true, at: 30s}.
const (
	CallPause  = "pause"
	CallResume = "resume"
	CallCancel = "cancel"
)

var goalCalls = []string{CallPause, CallResume, CallCancel}

var callWords = map[string]string{
	CallPause:  "the server's ~pause: the running mission held, the robot still",
	CallResume: "the server's ~resume: the paused mission goes on",
	CallCancel: "the running goal cancelled: it ends PREEMPTED, the robot stopped",
}

// goals decodes goals: the goals sent to the mission server, in order.
func (d *decoder) goals(n *yaml.Node, s *Scenario) []Goal {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 || len(n.Content) > maxGoals {
		d.add(n, "goals", "want a list of 1 to %d goals ({mission: Patrol, at: 0s}), got %s", maxGoals, input.Describe(n))
		return nil
	}
	var out []Goal
	pausedBy := -1 // the pause the server is in, by the goals in order
	for i, gn := range n.Content {
		field := fmt.Sprintf("goals[%d]", i)
		g := Goal{Pos: d.pos(gn)}
		var at, after, when, callNode *yaml.Node
		calls := 0
		if !d.fields(field, gn, append([]string{"mission", "payload", "preempt", "at", "after", "when", "expect"}, goalCalls...), func(k string, v *yaml.Node) {
			f := join(field, k)
			switch k {
			case CallPause, CallResume, CallCancel:
				calls++
				callNode = v
				if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || v.Value != "true" {
					d.add(v, f, "want %s: true (%s), got %s", k, callWords[k], input.Describe(v))
				}
				g.Call = k
			case "mission":
				calls++
				g.Mission, _ = d.str(f, v)
			case "payload":
				switch {
				case v.Kind == yaml.MappingNode:
					g.Payload = text(v)
				case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
					g.Payload = v.Value
				default:
					d.add(v, f, "want a mapping of the mission's inputs ({visits: 3}), got %s", input.Describe(v))
				}
			case "preempt":
				if p, ok := d.str(f, v); ok {
					if _, err := executor.ParsePreempt(p, executor.Replace); err != nil {
						d.add(v, f, "%v", err)
					}
					g.Preempt = p
				}
			case "at":
				at = v
				g.At, _ = d.duration(f, v, true)
			case "after":
				after = v
				if v.Kind != yaml.ScalarNode || v.Value != "previous" {
					d.add(v, f, "want after: previous (sent once the goal before has its result), got %s", input.Describe(v))
				}
				g.AfterPrevious = true
			case "when":
				when = v
				g.When = d.when(f, v, s)
			case "expect":
				g.Expect = d.goalExpect(f, v)
			}
		}) {
			continue
		}
		switch {
		case calls > 1:
			d.add(gn, field, "give one of mission, %s: an entry is a goal or one call on the server", strings.Join(goalCalls, ", "))
		case g.Call != "" && (hasKey(gn, "payload") || hasKey(gn, "preempt")):
			d.add(callNode, join(field, g.Call), "%s is a call on the server, not a goal: it takes no payload nor preempt", g.Call)
		case g.Call != "" && g.Expect != nil && (g.Expect.Outcome != "" || len(g.Expect.Contains) > 0 || g.Expect.ErrorCode != nil):
			d.add(callNode, join(field, "expect"), "%s has no result: its expect takes at_rest_within only (the goal it acts on has the outcome)", g.Call)
		case g.Call != CallPause && g.Call != CallCancel && g.Expect != nil && g.Expect.RestWithin != nil:
			d.add(gn, join(field, "expect.at_rest_within"), "at_rest_within belongs to a pause or a cancel (the robot at rest within that long after it)")
		case g.Call == "" && g.Mission == "" && !hasKey(gn, "mission"):
			d.add(gn, field, "no mission: want mission: a tree ID of the server's missions, or one of %s: true", strings.Join(goalCalls, ", "))
		case at != nil && after != nil, at != nil && when != nil, after != nil && when != nil:
			d.add(gn, field, "give one of at:, after: previous and when:")
		case at == nil && after == nil && when == nil:
			d.add(gn, field, "no time: want at: a simulated time (30s), after: previous, or when: a trigger ({node: to_kitchen, reaches: RUNNING}, {entry: visits, at_least: 2})")
		case after != nil && i == 0:
			d.add(after, join(field, "after"), "the first goal has no goal before it: give at: 0s")
		case when != nil && i == 0:
			d.add(when, join(field, "when"), "no mission runs before the first goal to trigger it: give at: 0s")
		case at != nil && s.TimeLimit > 0 && g.At >= s.TimeLimit:
			d.add(at, join(field, "at"), "at %v is not before the time limit (%v)", g.At, s.TimeLimit)
		case g.Call == "" && pausedBy >= 0:
			d.add(gn, field, "sent while the server is paused (goals[%d]): the server would start it paused; give {resume: true, ...} before it", pausedBy)
		}
		switch g.Call {
		case CallPause:
			pausedBy = i
		case CallResume:
			pausedBy = -1
		}
		out = append(out, g)
	}
	return out
}

// goalExpect decodes a goal's expect: its result.
func (d *decoder) goalExpect(field string, n *yaml.Node) *GoalExpect {
	e := &GoalExpect{Pos: d.pos(n), Text: text(n)}
	d.fields(field, n, []string{"outcome", "explanation_contains", "error_code", "at_rest_within"}, func(k string, v *yaml.Node) {
		f := join(field, k)
		switch k {
		case "at_rest_within":
			if w, ok := d.duration(f, v, true); ok {
				e.RestWithin = &w
			}
		case "outcome":
			if s, ok := d.str(f, v); ok {
				s = strings.ToUpper(s)
				switch s {
				case executor.OutcomeSuccess, executor.OutcomeFailure, executor.OutcomePreempted, executor.OutcomeAborted, "REJECTED":
					e.Outcome = s
				default:
					d.add(v, f, "want SUCCESS, FAILURE, PREEMPTED, ABORTED or REJECTED, got %s", v.Value)
				}
			}
		case "explanation_contains":
			switch {
			case v.Kind == yaml.ScalarNode && v.Value != "":
				e.Contains = []string{v.Value}
			case v.Kind == yaml.SequenceNode && len(v.Content) > 0:
				for i, c := range v.Content {
					if s, ok := d.str(fmt.Sprintf("%s[%d]", f, i), c); ok {
						e.Contains = append(e.Contains, s)
					}
				}
			default:
				d.add(v, f, "want a text, or a list of texts, the explanation must contain, got %s", input.Describe(v))
			}
		case "error_code":
			if v.Kind != yaml.ScalarNode {
				d.add(v, f, "want the error code (a number or a name; \"\" for none), got %s", input.Describe(v))
				return
			}
			code := v.Value
			e.ErrorCode = &code
		}
	})
	return e
}

// checkServed checks what a served scenario may not have: a mission, more
// than one robot, a stop_when, whole-run outcomes; and goals without
// serve.
func (d *decoder) checkServed(root *yaml.Node, s *Scenario, missionNode, goalsNode *yaml.Node) {
	if s.Serve == nil {
		if goalsNode != nil {
			d.add(goalsNode, "goals", "goals need serve: {missions: DIR, profile: ...}: the mission server they are sent to")
		}
		return
	}
	if goalsNode == nil {
		d.add(root, "", "serve: without goals: want goals: the goals sent to the mission server")
	}
	if missionNode != nil {
		d.add(missionNode, "mission", "give serve: or mission:, not both (the server's goals name its missions)")
	}
	if len(s.Robots) != 1 {
		d.add(root, "robots", "a served scenario has one robot (the server's); got %d", len(s.Robots))
	}
	for i, r := range s.Robots {
		if r.Mission.Tree != "" && missionNode == nil {
			d.add(root, fmt.Sprintf("robots[%d].mission", i), "a served robot's missions are the server's; leave mission: out")
		}
	}
	for _, e := range s.Expect {
		if e.Kind == "outcome" || e.Kind == "ends_within" {
			d.errs = append(d.errs, &runtime.BuildError{Pos: e.Pos, Path: "expect", Msg: e.Kind + ": a served run has no one outcome: give each goal expect: {outcome: ...}"})
		}
	}
}
