package sim_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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
	if err != nil {
		t.Fatal(err)
	}
	var res patrolResult
	const period = 100 * time.Millisecond
	for _, wp := range w.Places().Waypoints {
		if err := nav.SetGoal(wp.Pose); err != nil {
			t.Fatalf("SetGoal(%s): %v", wp.Name, err)
		}
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
			if w.Now() > limit {
				t.Fatalf("patrol ran out of time at %s", wp.Name)
			}
		}
	}
	res.simTime = w.Now()
	return res
}

func TestOfficePatrolVisitsEveryWaypoint(t *testing.T) {
	w, err := sim.LoadWorld("../worlds/office", sim.WorldConf{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	spawn, _ := w.Places().Spawn("robot1")
	r, err := w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: spawn.Pose})
	if err != nil {
		t.Fatal(err)
	}
	res := runPatrol(t, w, r, 10*time.Minute)
	t.Logf("reached %v in %v, travelled %.1f m, %d collisions, battery %.3f", res.reached, res.simTime, r.Travelled(), r.Collisions(), r.Battery().Percentage)
	if len(res.failures) > 0 {
		t.Errorf("failures: %v", res.failures)
	}
	if dir := os.Getenv("SIM_RENDER_DIR"); dir != "" {
		f, _ := os.Create(filepath.Join(dir, "office_patrol.png"))
		defer f.Close()
		if err := sim.RenderPNG(f, w, sim.RenderOptions{Title: "office patrol", Goals: res.goals}); err != nil {
			t.Fatal(err)
		}
	}
}
