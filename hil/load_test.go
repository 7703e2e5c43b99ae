package hil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// file is where the inline scenarios claim to live: paths in them start at
// testdata/.
const file = "testdata/inline.scenario.yaml"

// base is a scenario that loads; cases append to it or replace its lines.
const base = `world: ../../worlds/office
time_limit: 5m
mission:
  tree: ../../trees/missions/patrol.xml
  profile: ../../robots/sim.yaml
robots: 1
expect:
  - outcome: done
`

// TestParseReadsEveryField: every field of a scenario, as written, arrives
// in the model.
func TestParseReadsEveryField(t *testing.T) {
	s, err := Parse(file, []byte(`scenario: every field
world: ../../worlds/office
seed: 7
time_limit: 2m30s
visit_radius: 0.8
mission:
  tree: ../../trees/missions/patrol.xml
  main: Patrol
  profile: ../../robots/sim.yaml
  places: ../../worlds/office/places.yaml
  blackboard: {rounds: 2, name: "7", fast: true}
  stop_when: {entry: visits, at_least: 4}
robots:
  - {name: robot1, battery: 0.5}
  - {name: robot2, spawn: robot3}
  - {name: robot9, spawn: [1, 2, 0.5], mission: {tree: ../../trees/missions/hello.xml}}
faults:
  - {at: 30s, robot: robot1, battery: 0.12}
  - {at: 10s, obstacle: {name: box, rect: [4.8, -1.1, 5.2, 1.1]}}
  - {at: 11s, obstacle: {name: k, place: kitchen, size: 2}}
  - {at: 60s, clear_obstacle: box}
  - {at: 1m, robot: robot2, move_base: stop}
  - {at: 2m, robot: robot2, move_base: restart}
  - {at: 5s, robot: robot1, freeze: odom}
  - {at: 6s, robot: robot1, unfreeze: odom}
  - {at: 7s, robot: robot1, delay: {topic: scan, by: 2s}}
  - {at: 8s, robot: robot1, stall_wheel: left}
  - {at: 9s, robot: robot1, free_wheel: left}
  - {near: {robot: robot2, place: kitchen, within: 1.5}, battery: 0.2}
  - {when: {robot: robot9, node: errand/to_kitchen, reaches: RUNNING}, move_base: stop}
expect:
  - outcome: failed
  - {robot: robot2, ends_within: 4m}
  - visits: [kitchen, lab]
  - visits_in_order: [reception, robot1]
  - collisions_at_most: 2
  - battery_never_below: 0.2
  - at_rest: {within: 1s}
  - at_rest: {within: 2s, after: 30s}
  - node: {path: while_powered/battery_ok, reaches: FAILURE}
  - node: {path: battery_ok, never_reaches: SUCCESS}
`))
	require.NoError(t, err)
	assert.Equal(t, "every field", s.Name)
	assert.Equal(t, filepath.Join("testdata", "../../worlds/office"), s.World)
	assert.Equal(t, uint64(7), s.Seed)
	assert.Equal(t, 150*time.Second, s.TimeLimit)
	assert.Equal(t, 0.8, s.VisitRadius)
	require.Len(t, s.Robots, 3)
	r1 := s.Robots[0]
	assert.Equal(t, "robot1", r1.Name)
	assert.Equal(t, 0.5, r1.Battery)
	assert.Equal(t, -8.6, r1.Spawn.X, "spawned at the place named like it")
	assert.Equal(t, "Patrol", r1.Mission.Main)
	assert.Equal(t, []string{"rounds=2", "name:string=7", "fast=true"}, r1.Mission.Blackboard)
	assert.Equal(t, &StopWhen{Entry: "visits", AtLeast: 4}, r1.Mission.StopWhen)
	assert.Equal(t, 1.0, s.Robots[1].Battery)
	assert.Equal(t, 0.0, s.Robots[1].Spawn.X, "spawned at robot3's place")
	assert.Equal(t, 1.0, s.Robots[2].Spawn.X)
	assert.Equal(t, 0.5, s.Robots[2].Spawn.Yaw)
	assert.True(t, strings.HasSuffix(s.Robots[2].Mission.Tree, "hello.xml"))
	assert.Nil(t, s.Robots[2].Mission.StopWhen, "a robot's own mission replaces the scenario's")
	var kinds []string
	for _, f := range s.Faults {
		kinds = append(kinds, f.Kind)
		assert.NotNil(t, f.apply)
	}
	assert.Equal(t, []string{"battery", "obstacle", "obstacle", "clear_obstacle", "move_base", "move_base", "freeze", "unfreeze", "delay", "stall_wheel", "free_wheel", "battery", "move_base"}, kinds)
	assert.Nil(t, s.Faults[0].Near)
	assert.Equal(t, &Near{Robot: "robot2", Place: "kitchen", Within: 1.5}, s.Faults[11].Near)
	assert.Equal(t, "robot2", s.Faults[11].Robot, "the robot that comes near")
	assert.Equal(t, &When{Robot: "robot9", Node: "errand/to_kitchen", Status: runtime.Running}, s.Faults[12].When)
	assert.Equal(t, "robot9", s.Faults[12].Robot)
	assert.Equal(t, 30*time.Second, s.Faults[0].At)
	assert.Equal(t, "robot1", s.Faults[0].Robot)
	assert.Equal(t, "", s.Faults[1].Robot)
	assert.Equal(t, runtime.Pos{File: file, Line: 18, Col: 5}, s.Faults[0].Pos)
	assert.Equal(t, "{at: 30s, robot: robot1, battery: 0.12}", s.Faults[0].Text)
	require.Len(t, s.Expect, 10)
	assert.Equal(t, "failed", s.Expect[0].Outcome)
	assert.Equal(t, "robot2", s.Expect[1].Robot)
	assert.Equal(t, 4*time.Minute, s.Expect[1].Within)
	assert.Equal(t, []string{"kitchen", "lab"}, s.Expect[2].Places)
	assert.Equal(t, "visits_in_order", s.Expect[3].Kind)
	assert.Equal(t, 2, s.Expect[4].Count)
	assert.Equal(t, 0.2, s.Expect[5].Level)
	assert.Equal(t, afterEnd, s.Expect[6].After)
	assert.Equal(t, 30*time.Second, s.Expect[7].After)
	assert.Equal(t, 2*time.Second, s.Expect[7].Within)
	assert.Equal(t, runtime.Failure, s.Expect[8].Status)
	assert.False(t, s.Expect[8].Never)
	assert.True(t, s.Expect[9].Never)
	assert.Equal(t, runtime.Pos{File: file, Line: 32, Col: 5}, s.Expect[0].Pos)
}

// TestParseDefaults: what a scenario leaves out.
func TestParseDefaults(t *testing.T) {
	s, err := Parse(file, []byte(base))
	require.NoError(t, err)
	assert.Equal(t, "inline", s.Name, "named after its file")
	assert.Equal(t, uint64(DefaultSeed), s.Seed)
	assert.Equal(t, DefaultVisitRadius, s.VisitRadius)
	require.Len(t, s.Robots, 1)
	assert.Equal(t, "robot1", s.Robots[0].Name)
	assert.Equal(t, 1.0, s.Robots[0].Battery)
	assert.Equal(t, s.World, s.Robots[0].Mission.Places, "the world's places")
}

// TestParseErrors: every problem at its line and column, with what would
// be right.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string // appended to base, or the whole file when it has world:
		want []string
	}{
		{"empty", "#", []string{":1:1: the scenario is empty"}},
		{"not a mapping", "- a", []string{":1:1: want a mapping with scenario, world"}},
		{"bad yaml", "world: [", []string{":1:1: not valid YAML: did not find expected node content"}},
		{"nothing required", "seed: 1", []string{":1:1: no world", ":1:1: no time_limit", ":1:1: no robots", ":1:1: no expect"}},
		{"unknown key", "tme_limit: 5m", []string{`:9:1: unknown key "tme_limit"; did you mean time_limit?`}},
		{"missing world", "world: ../nowhere\ntime_limit: 1m\nrobots: 1\nexpect: [{outcome: done}]", []string{":1:8: world: ../nowhere does not exist (paths start at the scenario's directory", ":3:9: robots[0]: no mission"}},
		{"world is a file", "world: ../load_test.go\ntime_limit: 1m\nrobots: 1\nexpect: [{outcome: done}]", []string{":1:8: world: ../load_test.go is not a directory", ":3:9: robots[0]: no mission"}},
		{"bad duration", "world: ../../worlds/office\ntime_limit: 5 minutes\nrobots: 1\nexpect: [{outcome: done}]", []string{":2:13: time_limit: want a duration such as 30s, 2m or 500ms, got \"5 minutes\"", ":3:9: robots[0]: no mission"}},
		{"bad seed", "seed: -1", []string{":9:7: seed: want a whole number ≥ 0"}},
		{"too many robots", "world: ../../worlds/office\ntime_limit: 1m\nrobots: 99\nexpect: [{outcome: done}]", []string{":3:9: robots: want a count in [1, 32]"}},
		{"unknown spawn", "world: ../../worlds/office\ntime_limit: 1m\nmission: {tree: ../../trees/missions/hello.xml}\nrobots: [{name: robot1, spawn: robot5}]\nexpect: [{outcome: done}]", []string{`:4:32: robots[0].spawn: no spawn place named "robot5" in the world; did you mean robot1 or robot2 or robot3?`}},
		{"robot twice", "world: ../../worlds/office\ntime_limit: 1m\nmission: {tree: ../../trees/missions/hello.xml}\nrobots: [{name: robot1}, {name: robot1}]\nexpect: [{outcome: done}]", []string{":4:26: robots[1].name: robot robot1 given twice"}},
		{"no mission", "world: ../../worlds/office\ntime_limit: 1m\nrobots: [{name: robot1}]\nexpect: [{outcome: done}]", []string{":3:10: robots[0]: no mission"}},
		{"battery out of range", "world: ../../worlds/office\ntime_limit: 1m\nmission: {tree: ../../trees/missions/hello.xml}\nrobots: [{name: robot1, battery: 1.5}]\nexpect: [{outcome: done}]", []string{":4:34: robots[0].battery: want a fraction in (0, 1] (0.12 for 12%), got 1.5"}},
		{"missing tree", "world: ../../worlds/office\ntime_limit: 1m\nmission: {tree: nope.xml}\nrobots: 1\nexpect: [{outcome: done}]", []string{":3:17: mission.tree: nope.xml does not exist"}},
		{"bad blackboard key", "world: ../../worlds/office\ntime_limit: 1m\nmission: {tree: ../../trees/missions/hello.xml, blackboard: {'a b': 1}}\nrobots: 1\nexpect: [{outcome: done}]", []string{":3:62: mission.blackboard.a b: blackboard key"}},
		{"stop_when without entry", "world: ../../worlds/office\ntime_limit: 1m\nmission: {tree: ../../trees/missions/hello.xml, stop_when: {at_least: 2}}\nrobots: 1\nexpect: [{outcome: done}]", []string{":3:60: mission.stop_when: want entry:"}},
		{"fault without at", "faults: [{battery: 0.1}]", []string{":9:10: faults[0]: no at:"}},
		{"fault at and near", "faults: [{at: 1s, near: {place: lab}, battery: 0.1}]", []string{":9:10: faults[0]: give one of at, near and when"}},
		{"when without reaches", "faults: [{when: {node: a/b}, battery: 0.1}]", []string{":9:17: faults[0].when: want node:"}},
		{"when a bad status", "faults: [{when: {node: a/b, reaches: OK}, battery: 0.1}]", []string{`:9:38: faults[0].when.reaches: want one of RUNNING, SUCCESS, FAILURE, SKIPPED, IDLE, got "OK"`}},
		{"near an unknown place", "faults: [{near: {place: labb}, battery: 0.1}]", []string{`:9:25: faults[0].near.place: no place named "labb" in the world; did you mean lab?`}},
		{"near without place", "faults: [{near: {within: 1}, battery: 0.1}]", []string{":9:17: faults[0].near: want place:"}},
		{"near too far", "faults: [{near: {place: lab, within: 0}, battery: 0.1}]", []string{":9:38: faults[0].near.within: want metres in (0, 100], got 0"}},
		{"fault unknown kind", "faults: [{at: 1s, batery: 0.1}]", []string{`:9:19: faults[0]: unknown key "batery"; did you mean battery or at?`}},
		{"fault none", "faults: [{at: 1s}]", []string{":9:10: faults[0]: no fault: want one of battery, obstacle"}},
		{"two faults in one", "faults: [{at: 1s, battery: 0.1, freeze: odom}]", []string{":9:41: faults[0].freeze: a second fault in one entry (battery was given)"}},
		{"fault on unknown robot", "faults: [{at: 1s, robot: robot7, battery: 0.1}]", []string{`:9:26: faults[0].robot: no robot named "robot7"; did you mean robot1?`}},
		{"world fault given a robot", "faults: [{at: 1s, robot: robot1, clear_obstacle: box}]", []string{":9:26: faults[0].robot: clear_obstacle strikes the world, not a robot"}},
		{"bad battery level", "faults: [{at: 1s, battery: 12}]", []string{":9:28: faults[0].battery: want a fraction in [0, 1] (0.12 for 12%), got 12"}},
		{"bad move_base", "faults: [{at: 1s, move_base: kill}]", []string{`:9:30: faults[0].move_base: want stop or restart, got "kill"`}},
		{"bad topic", "faults: [{at: 1s, freeze: odometry}]", []string{`:9:27: faults[0].freeze: no topic "odometry"; want one of cmd_vel, odom`}},
		{"bad delay", "faults: [{at: 1s, delay: {topic: scan}}]", []string{":9:26: faults[0].delay: want topic: one of"}},
		{"bad wheel", "faults: [{at: 1s, stall_wheel: middle}]", []string{`:9:32: faults[0].stall_wheel: want left or right, got "middle"`}},
		{"obstacle rect and place", "faults: [{at: 1s, obstacle: {name: b, rect: [0, 0, 1, 1], place: lab}}]", []string{":9:29: faults[0].obstacle: want either rect:"}},
		{"obstacle bad rect", "faults: [{at: 1s, obstacle: {name: b, rect: [1, 0, 0, 1]}}]", []string{":9:45: faults[0].obstacle.rect: want minx < maxx and miny < maxy"}},
		{"obstacle unknown place", "faults: [{at: 1s, obstacle: {name: b, place: kichen}}]", []string{`:9:46: faults[0].obstacle.place: no place named "kichen" in the world; did you mean kitchen?`}},
		{"obstacle without name", "faults: [{at: 1s, obstacle: {place: lab}}]", []string{":9:29: faults[0].obstacle: no name:"}},
		{"expect not a list", "world: ../../worlds/office\ntime_limit: 1m\nmission: {tree: ../../trees/missions/hello.xml}\nrobots: 1\nexpect: {outcome: done}", []string{":5:9: expect: want a list of expectations"}},
		{"unknown expectation", "  - outcom: done", []string{`:9:5: expect[1]: unknown key "outcom"; did you mean outcome?`}},
		{"bad outcome", "  - outcome: won", []string{`:9:14: expect[1].outcome: want one of succeeded, failed, stopped, aborted, done, got "won"`}},
		{"unknown place", "  - visits: [kitchen, labb]", []string{`:9:23: expect[1].visits[1]: no place named "labb" in the world; did you mean lab?`}},
		{"place twice", "  - visits_in_order: [lab, kitchen, lab]", []string{":9:37: expect[1].visits_in_order[2]: lab given twice"}},
		{"bad count", "  - collisions_at_most: 1.5", []string{":9:25: expect[1].collisions_at_most: want a whole number ≥ 0"}},
		{"at_rest without within", "  - at_rest: {after: end}", []string{":9:14: expect[1].at_rest: no within:"}},
		{"bad status", "  - node: {path: a/b, reaches: DONE}", []string{`:9:32: expect[1].node.reaches: want one of RUNNING, SUCCESS, FAILURE, SKIPPED, IDLE, got "DONE"`}},
		{"node without status", "  - node: {path: a/b}", []string{":9:11: expect[1].node: want path:"}},
		{"expectation on unknown robot", "  - {robot: robot2, outcome: done}", []string{`:9:13: expect[1].robot: no robot named "robot2"`}},
		{"long not a boolean", "long: soon", []string{`:9:7: long: want true or false, got "soon"`}},
		{"every problem at once", "seed: x\nvisit_radius: -1", []string{`:9:7: seed: want a number, got "x"`, ":10:15: visit_radius: want metres in (0, 100], got -1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if !strings.Contains(doc, "world:") && tc.name != "empty" && tc.name != "not a mapping" && tc.name != "nothing required" {
				doc = base + doc
			}
			_, err := Parse(file, []byte(doc))
			require.Error(t, err)
			var list runtime.ErrorList
			require.ErrorAs(t, err, &list)
			require.Len(t, list, len(tc.want), "%v", err)
			for i, w := range tc.want {
				assert.Contains(t, list[i].Error(), file+w)
			}
		})
	}
}

// TestLoadRefusesWhatIsNotAScenario: a directory, a missing file.
func TestLoadRefusesWhatIsNotAScenario(t *testing.T) {
	_, err := Load("testdata")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "testdata")
	_, err = Load("testdata/none.scenario.yaml")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestIsScenario(t *testing.T) {
	for name, want := range map[string]bool{
		"a.scenario.yaml": true, "dir/B.Scenario.YML": true, "robots/sim.yaml": false, "scenario.yaml": false, "a.xml": false,
	} {
		assert.Equal(t, want, IsScenario(name), name)
	}
}

func posAt(file string, line int) runtime.Pos { return runtime.PosAt(file, line, 5) }
