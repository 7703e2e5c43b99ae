package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/internal/cputime"
	"github.com/btrobot/btrobot/sim"
)

// The speed figures the simulator promises, on one core: one robot with a
// 360-beam laser (10 Hz, like a real one) at a 50 Hz physics step at least
// 100 times real time; 20 such robots at least 10 times real time. Each
// benchmark iteration simulates one second and reports sim-s/s, simulated
// seconds per wall-clock second, and sim-s/cpu-s, simulated seconds per
// second of CPU time, which a busy machine does not distort.

// circlingWorld returns a world with n robots driving circles of 0.6 m
// radius, clear of walls and of each other, their lasers seeing walls,
// racks and each other: in the office corridor for one robot, in the
// warehouse aisles for more.
func circlingWorld(tb testing.TB, n int) *sim.World {
	tb.Helper()
	var w *sim.World
	var err error
	var centres [][2]float64
	if n == 1 {
		w, err = sim.LoadWorld("../worlds/office", sim.WorldConf{Seed: 1})
		centres = [][2]float64{{-3, 0}}
	} else {
		w, err = sim.LoadWorld("../worlds/warehouse", sim.WorldConf{Seed: 1})
		for aisle := 0; aisle < 6; aisle++ {
			for _, y := range []float64{5.2, 8.2, 12.3, 15.2} {
				centres = append(centres, [2]float64{5.4 + 3.6*float64(aisle), y})
			}
		}
	}
	require.NoError(tb, err)
	require.LessOrEqual(tb, n, len(centres), "room for %d circling robots, not %d", len(centres), n)
	for k := 0; k < n; k++ {
		c := centres[k]
		r, err := w.AddRobot(sim.RobotConf{Name: "robot" + string(rune('a'+k)), Spawn: sim.Pose{X: c[0], Y: c[1] - 0.6}, CmdTimeout: -1})
		require.NoError(tb, err)
		r.SetCmdVel(sim.Twist{Linear: 0.3, Angular: 0.5})
	}
	return w
}

func benchWorld(b *testing.B, n int) {
	w := circlingWorld(b, n)
	w.Step(time.Second) // past the ramps
	b.ResetTimer()
	cpu0 := cputime.Process()
	for range b.N {
		w.Step(time.Second)
	}
	reportSpeed(b, cpu0)
	for _, r := range w.Robots() {
		require.Equal(b, 0, r.Collisions(), "%s collided: the benchmark should measure free driving", r.Name())
	}
}

// BenchmarkOneRobot: one robot, 360-beam laser at 10 Hz, 50 Hz physics.
func BenchmarkOneRobot(b *testing.B) { benchWorld(b, 1) }

// BenchmarkTwentyRobots: 20 robots as above in one warehouse.
func BenchmarkTwentyRobots(b *testing.B) { benchWorld(b, 20) }

// BenchmarkOneRobotPatrol adds the navigator, updated at 10 Hz as the
// move_base server runs it, patrolling the office waypoints.
func BenchmarkOneRobotPatrol(b *testing.B) {
	w, err := sim.LoadWorld("../worlds/office", sim.WorldConf{Seed: 1})
	require.NoError(b, err)
	sp, _ := w.Places().Spawn("robot1")
	r, err := w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose})
	require.NoError(b, err)
	nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w})
	require.NoError(b, err)
	wps := w.Places().Waypoints
	next := 0
	b.ResetTimer()
	cpu0 := cputime.Process()
	for range b.N {
		for range 10 { // one simulated second
			cmd, st := nav.Update(w.Now(), r.Pose())
			if st.State != sim.NavActive {
				require.NoError(b, nav.SetGoal(wps[next%len(wps)].Pose))
				next++
			}
			r.SetCmdVel(cmd)
			w.Step(100 * time.Millisecond)
		}
	}
	reportSpeed(b, cpu0)
}

// reportSpeed reports b.N simulated seconds against wall and CPU time.
func reportSpeed(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "sim-s/cpu-s")
	}
}

// BenchmarkScan360 is one 360-beam scan in the office corridor.
func BenchmarkScan360(b *testing.B) {
	w := circlingWorld(b, 1)
	r := w.Robots()[0]
	b.ResetTimer()
	for range b.N {
		// A 1 kHz laser: every physics step scans.
		w.Step(20 * time.Millisecond)
	}
	_ = r
}

// BenchmarkPlanAcrossWarehouse inflates nothing (the planner is built
// once) and plans from the south-west dock to the far north-east corner.
func BenchmarkPlanAcrossWarehouse(b *testing.B) {
	w, err := sim.LoadWorld("../worlds/warehouse", sim.WorldConf{})
	require.NoError(b, err)
	p, err := sim.NewPlanner(sim.PlannerConf{Map: w.Map()})
	require.NoError(b, err)
	from, to := w.Places().Docks[0].Approach, sim.Pose{X: 28, Y: 18.5}
	b.ResetTimer()
	for range b.N {
		_, err := p.Plan(from, to)
		require.NoError(b, err)
	}
}
