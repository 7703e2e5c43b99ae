package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// run is a scripted scenario with every source of randomness switched on:
// two robots patrolling the office with odometry noise, wheel slip and laser
// noise, navigating on their own (drifting) odometry.
type run struct {
	trails [][]sim.Pose
	odoms  []sim.Pose
	scans  [][]float32
}

func noisyRun(t testing.TB, seed uint64) run {
	t.Helper()
	w := loadOffice(t, sim.WorldConf{Seed: seed})
	var robots []*sim.Robot
	var navs []*sim.Navigator
	for k, name := range []string{"robot1", "robot3"} {
		sp, _ := w.Places().Spawn(name)
		r := addRobot(t, w, sim.RobotConf{Name: name, Spawn: sp.Pose, OdomNoise: 0.05, WheelSlip: 0.05,
			Laser: sim.LaserConf{Noise: 0.01}})
		nav, err := sim.NewNavigator(sim.NavigatorConf{Map: w})
		require.NoError(t, err)
		require.NoError(t, nav.SetGoal(w.Places().Waypoints[k+1].Pose))
		robots, navs = append(robots, r), append(navs, nav)
	}
	for range 400 { // 40 s
		for k, r := range robots {
			est := r.OdomOrigin().Compose(r.Odometry().Pose)
			cmd, _ := navs[k].Update(w.Now(), est)
			r.SetCmdVel(cmd)
		}
		w.Step(100 * time.Millisecond)
	}
	var out run
	for _, r := range robots {
		out.trails = append(out.trails, r.Trail())
		out.odoms = append(out.odoms, r.Odometry().Pose)
		s, _ := r.Scan()
		out.scans = append(out.scans, s.Ranges)
	}
	return out
}

func sameBits(a, b sim.Pose) bool {
	return math.Float64bits(a.X) == math.Float64bits(b.X) && math.Float64bits(a.Y) == math.Float64bits(b.Y) &&
		math.Float64bits(a.Yaw) == math.Float64bits(b.Yaw)
}

func TestSameSeedGivesBitwiseIdenticalRuns(t *testing.T) {
	a, b := noisyRun(t, 42), noisyRun(t, 42)
	for k := range a.trails {
		require.Len(t, a.trails[k], len(b.trails[k]), "robot %d: trails of %d and %d points", k, len(a.trails[k]), len(b.trails[k]))
		require.GreaterOrEqual(t, len(a.trails[k]), 100, "robot %d: trails of %d and %d points", k, len(a.trails[k]), len(b.trails[k]))
		for i := range a.trails[k] {
			require.True(t, sameBits(a.trails[k][i], b.trails[k][i]), "robot %d: trail point %d differs: %+v vs %+v", k, i, a.trails[k][i], b.trails[k][i])
		}
		assert.True(t, sameBits(a.odoms[k], b.odoms[k]), "robot %d: odometry differs: %+v vs %+v", k, a.odoms[k], b.odoms[k])
		for i := range a.scans[k] {
			require.Equal(t, math.Float32bits(b.scans[k][i]), math.Float32bits(a.scans[k][i]), "robot %d: beam %d differs: %v vs %v", k, i, a.scans[k][i], b.scans[k][i])
		}
	}
	c := noisyRun(t, 43)
	assert.False(t, sameBits(a.odoms[0], c.odoms[0]), "seeds 42 and 43 gave the same odometry: the seed is not used")
}

func TestOdometryNoiseDriftsOnlyTheEstimate(t *testing.T) {
	drive := func(conf sim.RobotConf) *sim.Robot {
		w := roomWorld(t, sim.WorldConf{Seed: 3})
		conf.Name, conf.Spawn = "r", sim.Pose{X: 5, Y: 10}
		r := addRobot(t, w, conf)
		hold(w, r, sim.Twist{Linear: 0.4, Angular: 0.2}, 10*time.Second)
		hold(w, r, sim.Twist{Linear: 0.4}, 10*time.Second)
		return r
	}
	exact := drive(sim.RobotConf{})
	noisy := drive(sim.RobotConf{OdomNoise: 0.1})
	assert.True(t, sameBits(exact.Pose(), noisy.Pose()), "odometry noise moved the robot itself: %v vs %v", noisy.Pose(), exact.Pose())
	est := noisy.OdomOrigin().Compose(noisy.Odometry().Pose)
	d := est.DistanceTo(noisy.Pose())
	assert.GreaterOrEqual(t, d, 0.01, "10%% encoder noise over 7 m drifted only %v m", d)
	slipping := drive(sim.RobotConf{WheelSlip: 0.2})
	assert.True(t, sameBits(slipping.Odometry().Pose, exact.Odometry().Pose), "the encoders saw the slip: odometry %v vs %v", slipping.Odometry().Pose, exact.Odometry().Pose)
	got, want := slipping.Travelled(), exact.Travelled()
	assert.True(t, (got < 0.95*want && got > 0.85*want), "with up to 20%% slip the robot drove %v m of %v m", got, want)
}
