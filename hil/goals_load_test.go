package hil

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/runtime"
)

// served is a served scenario that loads; cases append to it.
const served = `world: ../../worlds/office
time_limit: 5m
serve:
  missions: ../../trees/missions
  profile: ../../robots/sim.yaml
  preempt: queue
robots: 1
expect:
  - collisions_at_most: 0
goals:
  - {mission: Patrol, at: 0s, payload: {visits: 2}, expect: {outcome: preempted, explanation_contains: [preempted by Charge, zero velocity], error_code: ""}}
  - {mission: Charge, at: 30s, preempt: replace, expect: {outcome: SUCCESS}}
  - {mission: Hello, after: previous}
`

// TestParseReadsServedScenarios: serve: and goals: arrive in the model as
// written.
func TestParseReadsServedScenarios(t *testing.T) {
	s, err := Parse(file, []byte(served))
	require.NoError(t, err)
	require.NotNil(t, s.Serve)
	assert.True(t, strings.HasSuffix(s.Serve.Missions, "trees/missions"), s.Serve.Missions)
	assert.True(t, strings.HasSuffix(s.Serve.Profile, "robots/sim.yaml"), s.Serve.Profile)
	assert.True(t, strings.HasSuffix(s.Serve.Places, "worlds/office"), s.Serve.Places)
	assert.Equal(t, executor.Queue, s.Serve.Preempt)
	require.Len(t, s.Goals, 3)
	g := s.Goals[0]
	assert.Equal(t, "Patrol", g.Mission)
	assert.Equal(t, "{visits: 2}", g.Payload)
	assert.Equal(t, time.Duration(0), g.At)
	require.NotNil(t, g.Expect)
	assert.Equal(t, "PREEMPTED", g.Expect.Outcome)
	assert.Equal(t, []string{"preempted by Charge", "zero velocity"}, g.Expect.Contains)
	require.NotNil(t, g.Expect.ErrorCode)
	assert.Equal(t, "", *g.Expect.ErrorCode)
	assert.Equal(t, 30*time.Second, s.Goals[1].At)
	assert.Equal(t, "replace", s.Goals[1].Preempt)
	assert.True(t, s.Goals[2].AfterPrevious)
	assert.Nil(t, s.Goals[2].Expect)
	require.Len(t, s.Robots, 1)
	assert.Equal(t, "", s.Robots[0].Mission.Tree)
}

// TestParseErrorsOfServedScenarios: each mistake in serve: or goals: is
// said at its line and column.
func TestParseErrorsOfServedScenarios(t *testing.T) {
	head := "world: ../../worlds/office\ntime_limit: 5m\nrobots: 1\nexpect: [{collisions_at_most: 0}]\n"
	srv := "serve: {missions: ../../trees/missions, profile: ../../robots/sim.yaml}\n"
	for _, tc := range []struct {
		name string
		doc  string // after head
		want []string
	}{
		{"goals without serve", "mission: {tree: ../../trees/missions/hello.xml}\ngoals: [{mission: Hello, at: 0s}]", []string{":6:8: goals: goals need serve:"}},
		{"serve without goals", srv, []string{":1:1: serve: without goals"}},
		{"serve and mission", srv + "mission: {tree: ../../trees/missions/hello.xml}\ngoals: [{mission: Hello, at: 0s}]", []string{":6:10: mission: give serve: or mission:, not both"}},
		{"no missions directory", "serve: {profile: ../../robots/sim.yaml}\ngoals: [{mission: Hello, at: 0s}]", []string{":5:8: serve: no missions:"}},
		{"missions not a directory", "serve: {missions: ../../trees/missions/hello.xml}\ngoals: [{mission: Hello, at: 0s}]", []string{":5:19: serve.missions: ../../trees/missions/hello.xml is not a directory"}},
		{"bad server policy", "serve: {missions: ../../trees/missions, preempt: later}\ngoals: [{mission: Hello, at: 0s}]", []string{`:5:50: serve.preempt: unknown preempt "later"`}},
		{"goals not a list", srv + "goals: {mission: Hello}", []string{":6:8: goals: want a list of 1 to 256 goals"}},
		{"goal without mission", srv + "goals: [{at: 0s}]", []string{":6:9: goals[0]: no mission:"}},
		{"goal without time", srv + "goals: [{mission: Hello}]", []string{":6:9: goals[0]: no time: want at:"}},
		{"goal at and after", srv + "goals: [{mission: Hello, at: 0s}, {mission: Hello, at: 1s, after: previous}]", []string{":6:35: goals[1]: give one of at:, after: previous and when:"}},
		{"goal at and when", srv + "goals: [{mission: Hello, at: 0s}, {mission: Hello, at: 1s, when: {node: a, reaches: RUNNING}}]", []string{":6:35: goals[1]: give one of at:, after: previous and when:"}},
		{"first goal on a trigger", srv + "goals: [{mission: Hello, when: {node: a, reaches: RUNNING}}]", []string{":6:32: goals[0].when: no mission runs before the first goal"}},
		{"goal trigger of a fault's vocabulary", srv + "goals: [{mission: Hello, at: 0s}, {mission: Hello, when: {entry: visits, below: few}}]", []string{`:6:81: goals[1].when.below: want a number to compare with`}},
		{"first goal after", srv + "goals: [{mission: Hello, after: previous}]", []string{":6:33: goals[0].after: the first goal has no goal before it"}},
		{"after what", srv + "goals: [{mission: Hello, at: 0s}, {mission: Hello, after: first}]", []string{`:6:59: goals[1].after: want after: previous`}},
		{"goal past the time limit", srv + "goals: [{mission: Hello, at: 5m}]", []string{":6:30: goals[0].at: at 5m0s is not before the time limit (5m0s)"}},
		{"bad goal policy", srv + "goals: [{mission: Hello, at: 0s, preempt: now}]", []string{`:6:43: goals[0].preempt: unknown preempt "now"`}},
		{"payload a list", srv + "goals: [{mission: Hello, at: 0s, payload: [1]}]", []string{":6:43: goals[0].payload: want a mapping of the mission's inputs"}},
		{"bad outcome", srv + "goals: [{mission: Hello, at: 0s, expect: {outcome: DONE}}]", []string{`:6:52: goals[0].expect.outcome: want SUCCESS, FAILURE, PREEMPTED, ABORTED or REJECTED, got DONE`}},
		{"unknown goal key", srv + "goals: [{mission: Hello, at: 0s, expct: {}}]", []string{`:6:34: goals[0]: unknown key "expct"; did you mean expect?`}},
		{"whole-run outcome", "world: ../../worlds/office\ntime_limit: 5m\nrobots: 1\nexpect: [{outcome: done}]\n" + srv + "goals: [{mission: Hello, at: 0s}]", []string{":4:10: expect: outcome: a served run has no one outcome"}},
		{"pause not true", srv + "goals: [{mission: Hello, at: 0s}, {pause: yes, at: 1s}]", []string{":6:43: goals[1].pause: want pause: true"}},
		{"a call and a mission", srv + "goals: [{mission: Hello, pause: true, at: 0s}]", []string{":6:9: goals[0]: give one of mission, pause, resume, cancel"}},
		{"a call with a payload", srv + "goals: [{mission: Hello, at: 0s}, {cancel: true, at: 1s, payload: {a: 1}}]", []string{":6:44: goals[1].cancel: cancel is a call on the server, not a goal"}},
		{"a call with an outcome", srv + "goals: [{mission: Hello, at: 0s}, {pause: true, at: 1s, expect: {outcome: SUCCESS}}]", []string{":6:43: goals[1].expect: pause has no result"}},
		{"at_rest_within on a goal", srv + "goals: [{mission: Hello, at: 0s, expect: {at_rest_within: 1s}}]", []string{":6:9: goals[0].expect.at_rest_within: at_rest_within belongs to a pause or a cancel"}},
		{"a goal while paused", srv + "goals: [{mission: Hello, at: 0s}, {pause: true, at: 1s}, {mission: Hello, at: 2s}]", []string{":6:58: goals[2]: sent while the server is paused (goals[1])"}},
		{"two robots", "world: ../../worlds/office\ntime_limit: 5m\nrobots: 2\nexpect: [{collisions_at_most: 0}]\n" + srv + "goals: [{mission: Hello, at: 0s}]", []string{":1:1: robots: a served scenario has one robot"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.doc
			if !strings.HasPrefix(doc, "world:") {
				doc = head + doc
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

// TestGoalResultsAreJudged: a goal's expectation holds only when each of
// its fields does.
func TestGoalResultsAreJudged(t *testing.T) {
	code := func(s string) *string { return &s }
	ended := GoalResult{Sent: true, At: 30 * time.Second, Outcome: "PREEMPTED", Explanation: []string{"preempted by Charge; zero velocity sent", "Patrol/patrol (Sequence) RUNNING"}, ErrorCode: "104"}
	for _, tc := range []struct {
		name   string
		result GoalResult
		expect GoalExpect
		pass   bool
		says   string
	}{
		{"outcome held", ended, GoalExpect{Outcome: "PREEMPTED"}, true, "sent at 30s: PREEMPTED: preempted by Charge"},
		{"outcome differs", ended, GoalExpect{Outcome: "SUCCESS"}, false, "PREEMPTED"},
		{"explanation holds every text", ended, GoalExpect{Contains: []string{"preempted by Charge", "RUNNING"}}, true, ""},
		{"explanation lacks a text", ended, GoalExpect{Contains: []string{"preempted by Dock"}}, false, `no "preempted by Dock" in the explanation`},
		{"error code held", ended, GoalExpect{ErrorCode: code("104")}, true, "(error_code 104)"},
		{"error code differs", ended, GoalExpect{ErrorCode: code("")}, false, "(error_code 104)"},
		{"never sent", GoalResult{}, GoalExpect{Outcome: "PREEMPTED"}, false, "not sent: the time limit came first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pass, measured := tc.result.judge(&tc.expect)
			assert.Equal(t, tc.pass, pass, measured)
			assert.Contains(t, measured, tc.says)
		})
	}
}

// TestParseReadsServerCalls: pause, resume and cancel arrive as calls,
// with a pause's or a cancel's at_rest_within; a goal after a resume (or
// a cancel's goal) loads.
func TestParseReadsServerCalls(t *testing.T) {
	doc := `world: ../../worlds/office
time_limit: 5m
serve: {missions: ../../trees/missions, profile: ../../robots/sim.yaml}
robots: 1
expect: [{collisions_at_most: 0}]
goals:
  - {mission: Patrol, at: 0s}
  - {pause: true, at: 3s, expect: {at_rest_within: 1s}}
  - {resume: true, at: 8s}
  - {cancel: true, after: previous, expect: {at_rest_within: 500ms}}
  - {mission: Hello, at: 20s}
  - {mission: Hello, when: {node: say_hello, reaches: RUNNING}}
  - {pause: true, when: {entry: visits, at_least: 2}}
`
	s, err := Parse(file, []byte(doc))
	require.NoError(t, err)
	require.Len(t, s.Goals, 7)
	for i, want := range []string{"", CallPause, CallResume, CallCancel, "", "", CallPause} {
		assert.Equal(t, want, s.Goals[i].Call, "goals[%d]", i)
	}
	assert.Equal(t, "", s.Goals[1].Mission)
	assert.Equal(t, 3*time.Second, s.Goals[1].At)
	require.NotNil(t, s.Goals[1].Expect)
	require.NotNil(t, s.Goals[1].Expect.RestWithin)
	assert.Equal(t, time.Second, *s.Goals[1].Expect.RestWithin)
	assert.Equal(t, "pause at 3s", s.Goals[1].String())
	assert.True(t, s.Goals[3].AfterPrevious)
	assert.Equal(t, 500*time.Millisecond, *s.Goals[3].Expect.RestWithin)
	assert.Nil(t, s.Goals[2].Expect)
	require.NotNil(t, s.Goals[5].When)
	assert.Equal(t, "say_hello", s.Goals[5].When.Node)
	assert.Equal(t, "Hello when say_hello reaches RUNNING", s.Goals[5].String())
	require.NotNil(t, s.Goals[6].When)
	require.NotNil(t, s.Goals[6].When.Entry)
	assert.Equal(t, "pause when visits at_least 2", s.Goals[6].String())
}

// TestRestAfterACallIsJudged: a pause's (or a cancel's) at_rest_within
// holds when the robot is at rest within the bound after the call and
// stays so until the next entry; each way it fails says what was seen.
func TestRestAfterACallIsJudged(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name           string
		moving         []motion
		from, to, with time.Duration
		pass           bool
		says           string
	}{
		{"brakes in time and stays", []motion{{0, true}, {3500 * time.Millisecond, false}, {8200 * time.Millisecond, true}}, 3 * s, 8 * s, s, true, "at rest 500ms after 3s and still until 8s"},
		{"already at rest", []motion{{0, false}, {10 * s, true}}, 3 * s, 8 * s, s, true, "at rest 0s after 3s"},
		{"brakes too late", []motion{{0, true}, {5 * s, false}}, 3 * s, 8 * s, s, false, "at rest 2s after 3s"},
		{"moves again while paused", []motion{{0, true}, {3500 * time.Millisecond, false}, {6 * s, true}}, 3 * s, 8 * s, s, false, "moving again at 6s (before 8s)"},
		{"never at rest", []motion{{0, true}}, 3 * s, 8 * s, s, false, "still moving 5s after 3s"},
		{"at rest only after the next entry", []motion{{0, true}, {9 * s, false}}, 3 * s, 8 * s, s, false, "still moving 5s after 3s"},
		{"to the last sample", []motion{{0, true}, {3500 * time.Millisecond, false}}, 3 * s, -1, s, true, "still until 20s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr := &robotRecord{moving: tc.moving, battery: []level{{at: 20 * s, v: 1}}}
			pass, measured := rr.restBetween(tc.from, tc.to, tc.with)
			assert.Equal(t, tc.pass, pass, measured)
			assert.Contains(t, measured, tc.says)
		})
	}
}
