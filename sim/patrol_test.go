package sim_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// patrolResult is what a patrol run reports.
type patrolResult struct {
	reached  []string
	failures []string
	simTime  time.Duration
	goals    []sim.GoalMarker
}

// runPatrol drives robot r through the world's waypoints with a Navigator
// at 10 Hz, as the move_base server will, and returns what happened.
func runPatrol(t testing.TB, w *sim.World, r *sim.Robot, limit time.Duration) patrolResult {
	t.Helper()
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w, RobotRadius: r.Conf().Radius})
	require.NoError(t, err)
	var res patrolResult
	const period = 100 * time.Millisecond
	for _, wp := range w.Places().Waypoints {
		require.NoError(t, nav.SetGoal(wp.Pose), "SetGoal(%s)", wp.Name)
		res.goals = append(res.goals, sim.GoalMarker{Robot: r.Name(), Pose: wp.Pose})
		for {
			cmd, st := nav.Update(w.Now(), r.Pose())
			if st.State != sim.NavActive {
				if st.State == sim.NavSucceeded {
					res.reached = append(res.reached, wp.Name)
				} else {
					res.failures = append(res.failures, wp.Name+": "+st.Err.Error())
				}
				break
			}
			r.SetCmdVel(cmd)
			w.Step(period)
			require.LessOrEqual(t, w.Now(), limit, "patrol ran out of time at %s", wp.Name)
		}
	}
	res.simTime = w.Now()
	return res
}

// TestPatrolsVisitEveryWaypoint runs each shipped world's patrol: one robot
// visits every waypoint in order, while a second robot sits on a dock. With
// SIM_RENDER_DIR set, the run is rendered there as <world>_patrol.png/.svg.
func TestPatrolsVisitEveryWaypoint(t *testing.T) {
	for _, tc := range []struct {
		world     string
		minTime   time.Duration
		maxTime   time.Duration
		parkedOn  string
		parkedBot string
	}{
		// The office patrol is sized for two to three minutes.
		{"office", 2 * time.Minute, 3 * time.Minute, "dock_lab", "robot2"},
		{"warehouse", time.Minute, 6 * time.Minute, "dock_b", "robot2"},
	} {
		t.Run(tc.world, func(t *testing.T) {
			w, err := sim.LoadWorld(filepath.Join("..", "worlds", tc.world), sim.WorldConf{Seed: 1})
			require.NoError(t, err)
			spawn, _ := w.Places().Spawn("robot1")
			r := addRobot(t, w, sim.RobotConf{Name: "robot1", Spawn: spawn.Pose})
			dock, _ := w.Places().Dock(tc.parkedOn)
			parked := addRobot(t, w, sim.RobotConf{Name: tc.parkedBot, Spawn: dock.Pose})
			require.NoError(t, parked.Dock(tc.parkedOn))
			res := runPatrol(t, w, r, 10*time.Minute)
			t.Logf("reached %v in %v, travelled %.1f m, %d collisions, battery %.3f",
				res.reached, res.simTime, r.Travelled(), r.Collisions(), r.Battery().Percentage)
			if assert.Empty(t, res.failures, "failures: %v", res.failures) {
				assert.Len(t, res.reached, len(w.Places().Waypoints), "failures: %v", res.failures)
			}
			assert.GreaterOrEqual(t, res.simTime, tc.minTime, "patrol took %v, want %v to %v", res.simTime, tc.minTime, tc.maxTime)
			assert.LessOrEqual(t, res.simTime, tc.maxTime, "patrol took %v, want %v to %v", res.simTime, tc.minTime, tc.maxTime)
			if assert.Equal(t, 0, r.Collisions(), "collisions: %d and %d", r.Collisions(), parked.Collisions()) {
				assert.Equal(t, 0, parked.Collisions(), "collisions: %d and %d", r.Collisions(), parked.Collisions())
			}
			b := parked.Battery()
			assert.Equal(t, sim.StatusFull, b.Status, "docked robot's battery: %+v, want full", b)
			if dir := os.Getenv("SIM_RENDER_DIR"); dir != "" {
				opt := sim.RenderOptions{Title: tc.world + " patrol", Goals: res.goals}
				for ext, render := range map[string]func(io.Writer, *sim.World, sim.RenderOptions) error{".png": sim.RenderPNG, ".svg": sim.RenderSVG} {
					f, err := os.Create(filepath.Join(dir, tc.world+"_patrol"+ext))
					require.NoError(t, err)
					require.NoError(t, render(f, w, opt))
					f.Close()
				}
			}
		})
	}
}
