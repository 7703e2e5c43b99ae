package hil

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// servedHead is a served scenario on the office without goals; cases add
// theirs.
const servedHead = `world: ../../worlds/office
time_limit: 20s
serve:
  missions: ../../trees/missions
  profile: ../../robots/sim.yaml
robots: 1
expect:
  - collisions_at_most: 0
`

// TestServedGoals: goals sent to the mission server of a scenario act as
// their policy says, each at the simulated time the scenario gives (the
// world held while it acts), and their results are judged; the lockstep
// never goes on without a message it waits for (a world let run free
// while no mission ran made the next one's first ticks wait a second for
// sensor messages it took for stale).
func TestServedGoals(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	type want struct {
		at       time.Duration
		outcome  string
		contains string
	}
	for _, tc := range []struct {
		name  string
		goals string
		want  []want
	}{
		{"a rejected goal, then the goal after it at the same time", `goals:
  - {mission: Patrol, at: 0s}
  - {mission: Charge, at: 5s, preempt: reject, expect: {outcome: REJECTED, explanation_contains: busy with Patrol}}
  - {mission: Hello, after: previous, expect: {outcome: SUCCESS}}
`, []want{{0, "PREEMPTED", "preempted by Hello"}, {5 * time.Second, "REJECTED", "busy with Patrol (preempt: reject)"}, {5 * time.Second, "SUCCESS", "Hello"}}},
		{"an update hands the run on; the time limit ends it", `goals:
  - {mission: Patrol, at: 0s}
  - {mission: Patrol, at: 2s, preempt: update, expect: {outcome: ABORTED, explanation_contains: time limit}}
`, []want{{0, "PREEMPTED", "updated by goal 2"}, {2 * time.Second, "ABORTED", "time limit 20s reached"}}},
		{"a queued goal waits for the one before", `goals:
  - {mission: Hello, at: 3s}
  - {mission: Hello, at: 3s, preempt: queue}
  - {mission: Flyy, at: 4s, expect: {outcome: REJECTED}}
`, []want{{3 * time.Second, "SUCCESS", "Hello"}, {3 * time.Second, "SUCCESS", "Hello"}, {4 * time.Second, "REJECTED", "unknown mission"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(file, []byte(servedHead+tc.goals))
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var mu sync.Mutex
			var warned []string
			res, err := Run(ctx, RunConf{Scenario: s, Log: func(line string) {
				if strings.Contains(line, "may not repeat exactly") || strings.Contains(line, "never came") {
					mu.Lock()
					warned = append(warned, line)
					mu.Unlock()
				}
			}})
			require.NoError(t, err)
			mu.Lock()
			assert.Empty(t, warned, "the lockstep went on without a message: the run may not repeat")
			mu.Unlock()
			require.Len(t, res.Goals, len(tc.want))
			for i, w := range tc.want {
				g := res.Goals[i]
				assert.True(t, g.Sent, "goal %d", i)
				// Sent from the first tick at or after its time: within a
				// tick of it.
				assert.GreaterOrEqual(t, g.At, w.at, "goal %d: %s", i, g)
				assert.Less(t, g.At, w.at+100*time.Millisecond, "goal %d: %s", i, g)
				assert.Equal(t, w.outcome, g.Outcome, "goal %d: %s", i, g)
				assert.Contains(t, g.String(), w.contains, "goal %d", i)
			}
			for _, v := range res.Verdicts {
				assert.True(t, v.Pass, "%s", v)
			}
		})
	}
}

// TestServedScenarioRefusedWithMaster: a served scenario needs the
// harness's own simulator; with --master it is refused at once, saying
// why, before anything connects.
func TestServedScenarioRefusedWithMaster(t *testing.T) {
	s, err := Parse(file, []byte(servedHead+"goals: [{mission: Hello, at: 0s}]\n"))
	require.NoError(t, err)
	_, err = Run(context.Background(), RunConf{Scenario: s, Master: "http://127.0.0.1:1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "serve: runs the mission server in lockstep with the harness's own simulator")
}
