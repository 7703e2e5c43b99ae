package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// reachMission writes a mission that reaches one place with patrol.xml's
// Reach (the recovery ladder: try, back up and try, spin and try), with no
// give-up behind it: when the ladder's last rung fails, the mission fails.
func reachMission(t *testing.T, place string) string {
	t.Helper()
	patrol, err := filepath.Abs(mission("patrol.xml"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "reach.xml")
	require.NoError(t, os.WriteFile(path, []byte(`<root BTCPP_format="4" main_tree_to_execute="Mission">
  <include path="`+patrol+`"/>
  <BehaviorTree ID="Mission">
    <Sequence name="mission">
      <SubTree ID="WaitForRobot"/>
      <Script name="setup" code="target := '`+place+`'; recoveries := 0"/>
      <SubTree ID="Reach" _autoremap="true"/>
    </Sequence>
  </BehaviorTree>
</root>`), 0o644))
	return path
}

// TestExplainFailedMissions: missions that fail on the simulator, each for
// a fault of its own, explain themselves: the chain from the root ends at
// the leaf whose failure decided the outcome, with its reason.
func TestExplainFailedMissions(t *testing.T) {
	blockCorridor := func(w *sim.World) {
		if err := w.PlaceObstacle("blocked_corridor", sim.Rect{MinX: 4.8, MinY: -1.1, MaxX: 5.2, MaxY: 1.1}); err != nil {
			panic(err)
		}
	}
	cases := []struct {
		name  string
		setup worldSetup
		tree  func(t *testing.T) string
		fault func(w *world) // applied once the mission runs
		max   time.Duration  // simulated
		// What the last link of the chain must say.
		leafType, leafPathHas, reasonHas string // reasonHas: one of its |-separated parts
		// Links the chain must pass through (paths containing these).
		through []string
	}{
		{
			name:     "corridor blocked, no recovery left",
			setup:    worldSetup{before: blockCorridor},
			tree:     func(t *testing.T) string { return reachMission(t, "lab") },
			max:      5 * time.Minute,
			leafType: "NavigateTo", leafPathHas: "spin_and_retry/GuardedNavigate/watched/NavigateTo",
			reasonHas: "/robot1/move_base aborted the goal to lab",
			through:   []string{"Mission/mission", "Reach/recovery_ladder", "spin_and_retry", "watched"},
		},
		{
			name: "battery drop",
			tree: func(*testing.T) string { return mission("patrol.xml") },
			fault: func(w *world) {
				w.node.At(w.node.Now()+20*time.Second, func(sw *sim.World) {
					rb, _ := sw.Robot("robot1")
					rb.SetBatteryLevel(0.10)
				})
			},
			max:      3 * time.Minute,
			leafType: "BatteryAbove", leafPathHas: "Patrol/patrol/while_powered/battery_ok",
			reasonHas: "battery at 10.0%, not above 15%",
			through:   []string{"Patrol/patrol/while_powered"},
		},
		{
			name: "dead move_base",
			tree: func(t *testing.T) string { return reachMission(t, "kitchen") },
			fault: func(w *world) {
				w.node.At(w.node.Now()+3*time.Second, func(sw *sim.World) {
					rb, _ := sw.Robot("robot1")
					rb.SetNavigationDown(true)
				})
			},
			max:      5 * time.Minute,
			leafType: "NavigateTo", leafPathHas: "spin_and_retry/GuardedNavigate/watched/NavigateTo",
			// Down, the server may still be known to the master (the goal is
			// then not acknowledged), gone (it does not come up), or not
			// closed yet (the simulator's server rejects goals from the
			// fault until it closes).
			reasonHas: "going to kitchen: action server /robot1/move_base did not|/robot1/move_base rejected the goal to kitchen",
			through:   []string{"Reach/recovery_ladder", "spin_and_retry"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := startWorld(t, tc.setup)
			r := buildRig(t, w, "robot1", tc.tree(t), Deps{})
			r.tree.SetExplaining(true)
			warmUp(r)
			if tc.fault != nil {
				tc.fault(w)
			}
			st := r.run(tc.max)
			chain := r.tree.Explain()
			t.Logf("%v; events %q\nexplanation:\n%s", r, w.eventList(), runtime.FormatExplanation(chain))
			require.Equal(t, runtime.Failure, st, "the mission must fail")
			require.NotEmpty(t, chain)
			assert.Equal(t, runtime.Failure, chain[0].Status, "the root")
			leaf := chain[len(chain)-1]
			assert.Equal(t, tc.leafType, leaf.Type)
			assert.Contains(t, leaf.Path, tc.leafPathHas)
			assert.Equal(t, runtime.Failure, leaf.Status)
			assert.True(t, slices.ContainsFunc(strings.Split(tc.reasonHas, "|"), func(r string) bool { return strings.Contains(leaf.Reason, r) }),
				"the leaf's reason %q says one of %q", leaf.Reason, tc.reasonHas)
			for _, p := range tc.through {
				found := false
				for _, c := range chain {
					found = found || strings.Contains(c.Path, p)
				}
				assert.True(t, found, "the chain passes through %s", p)
			}
		})
	}
}
