package sim_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// navigate runs nav for robot r at 10 Hz until it leaves NavActive or limit
// passes, and returns the final status and the feedback seen on the way.
func navigate(t testing.TB, w *sim.World, r *sim.Robot, nav *sim.Navigator, limit time.Duration) (sim.NavStatus, []float64) {
	t.Helper()
	var remaining []float64
	end := w.Now() + limit
	for w.Now() < end {
		cmd, st := nav.Update(w.Now(), r.Pose())
		if st.State != sim.NavActive {
			return st, remaining
		}
		remaining = append(remaining, st.DistanceRemaining)
		r.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	require.Fail(t, fmt.Sprintf("navigation still active after %v", limit))
	return sim.NavStatus{}, nil
}

func newNav(t testing.TB, conf sim.NavigatorConf) *sim.Navigator {
	t.Helper()
	n, err := sim.NewNavigator(conf)
	require.NoError(t, err)
	return n
}

func TestNavigatorReachesGoalsWithinTolerance(t *testing.T) {
	for _, tc := range []struct {
		name            string
		goal            sim.Pose
		tolerance, yawT float64
	}{
		{"kitchen, default tolerance", sim.Pose{X: 2.5, Y: 3.5, Yaw: 0}, 0, 0},
		{"lab facing south, tight tolerance", sim.Pose{X: 6.5, Y: -3.5, Yaw: -math.Pi / 2}, 0.03, 0.03},
		{"behind the robot", sim.Pose{X: -8, Y: 0, Yaw: math.Pi}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := loadOffice(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -5, Y: 0}})
			nav := newNav(t, sim.NavigatorConf{Map: w, GoalTolerance: tc.tolerance, YawTolerance: tc.yawT})
			require.NoError(t, nav.SetGoal(tc.goal))
			_, first := nav.Update(w.Now(), r.Pose())
			require.Equal(t, sim.NavActive, first.State, "after the first update: %v", first.State)
			plan := nav.Path()
			st, remaining := navigate(t, w, r, nav, 3*time.Minute)
			require.Equal(t, sim.NavSucceeded, st.State, "state %v: %v", st.State, st.Err)
			require.NoError(t, st.Err, "state %v", st.State)
			tol, yawT := tc.tolerance, tc.yawT
			if tol == 0 {
				tol, yawT = 0.1, 0.1
			}
			p := r.Pose()
			// The command stops at success; braking adds under 2 cm.
			d := p.DistanceTo(tc.goal)
			assert.LessOrEqual(t, d, tol+0.02, "stopped %v m from the goal", d)
			d = math.Abs(sim.NormalizeAngle(p.Yaw - tc.goal.Yaw))
			assert.LessOrEqual(t, d, yawT+0.05, "heading off by %v rad", d)
			// Feedback starts at the plan's length and shrinks to zero.
			length := 0.0
			for k := 1; k < len(plan); k++ {
				length += plan[k].DistanceTo(plan[k-1])
			}
			assert.InDelta(t, length, remaining[0], 0.3, "first feedback %v m, path %v m", remaining[0], length)
			if assert.Equal(t, 0.0, st.DistanceRemaining, "final %+v with %d collisions", st, r.Collisions()) {
				assert.Equal(t, 0, st.Replans, "final %+v with %d collisions", st, r.Collisions())
				assert.Equal(t, 0, r.Collisions(), "final %+v with %d collisions", st, r.Collisions())
			}
			for k := 10; k < len(remaining); k += 10 {
				assert.LessOrEqual(t, remaining[k], remaining[k-10]+0.05, "remaining distance grew from %v to %v", remaining[k-10], remaining[k])
			}
		})
	}
}

func TestNavigatorAbortsWhenThereIsNoPath(t *testing.T) {
	g := roomGrid(t, 10, 10, 0.05)
	for _, r := range []sim.Rect{{MinX: 3, MinY: 3, MaxX: 7, MaxY: 3.1}, {MinX: 3, MinY: 6.9, MaxX: 7, MaxY: 7},
		{MinX: 3, MinY: 3, MaxX: 3.1, MaxY: 7}, {MinX: 6.9, MinY: 3, MaxX: 7, MaxY: 7}} {
		g.FillRect(r, sim.Occupied)
	}
	w := roomWorld(t, sim.WorldConf{Map: g})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 1, Y: 1}})
	nav := newNav(t, sim.NavigatorConf{Map: w})
	err := nav.SetGoal(sim.Pose{X: 5, Y: 5})
	require.NoError(t, err, "SetGoal in the enclosed box: %v; want accepted, then aborted", err)
	cmd, st := nav.Update(w.Now(), r.Pose())
	assert.Equal(t, sim.NavAborted, st.State, "into an enclosed box: %v %v %+v", st.State, st.Err, cmd)
	assert.ErrorIs(t, st.Err, sim.ErrNoPath, "into an enclosed box: %v %v %+v", st.State, st.Err, cmd)
	assert.Equal(t, (sim.Twist{}), cmd, "into an enclosed box: %v %v %+v", st.State, st.Err, cmd)
	// Goals that cannot be valid fail at once.
	for _, goal := range []sim.Pose{{X: 3.05, Y: 5}, {X: 20, Y: 5}, {X: math.NaN()}} {
		err := nav.SetGoal(goal)
		assert.ErrorIs(t, err, sim.ErrNoPath, "SetGoal(%v) = %v, want ErrNoPath", goal, err)
		st := nav.Status()
		assert.Equal(t, sim.NavAborted, st.State, "after SetGoal(%v) failed: %v", goal, st.State)
	}
}

func TestNavigatorAbortsWhenProgressStalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(w *sim.World, r *sim.Robot)
	}{
		{"an obstacle the navigator does not know", func(w *sim.World, r *sim.Robot) {
			require.NoError(t, w.PlaceObstacle("pallet", corridorBlock))
		}},
		{"both wheels stalled", func(w *sim.World, r *sim.Robot) {
			r.StallWheel(sim.LeftWheel, true)
			r.StallWheel(sim.RightWheel, true)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := loadOffice(t, sim.WorldConf{})
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -6, Y: 0}})
			// Planning on the static map: the navigator cannot see the pallet.
			nav := newNav(t, sim.NavigatorConf{Map: w.Map(), StallTimeout: 4 * time.Second})
			tc.fault(w, r)
			require.NoError(t, nav.SetGoal(sim.Pose{X: 2, Y: 0}))
			st, remaining := navigate(t, w, r, nav, time.Minute)
			require.Equal(t, sim.NavAborted, st.State, "%v: %v, want aborted for no progress", st.State, st.Err)
			require.ErrorIs(t, st.Err, sim.ErrStalled, "%v: %v, want aborted for no progress", st.State, st.Err)
			want := "no progress: the robot gained less than 0.10 m toward (2.00, 0.00, 0.00) in 4s"
			assert.Equal(t, want, st.Err.Error(), "error %q\nwant %q", st.Err, want)
			// The abort comes 4 s after the last progress, not before.
			best, last := math.Inf(1), 0
			for k, rem := range remaining {
				if rem < best-0.1 {
					best, last = rem, k
				}
			}
			stuck := len(remaining) - last
			assert.GreaterOrEqual(t, stuck, 40, "aborted %d updates after the last progress, want 40 (4 s at 10 Hz)", stuck)
			assert.LessOrEqual(t, stuck, 41, "aborted %d updates after the last progress, want 40 (4 s at 10 Hz)", stuck)
		})
	}
}

func TestNavigatorCancelAndPreempt(t *testing.T) {
	w := loadOffice(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -5, Y: 0}})
	nav := newNav(t, sim.NavigatorConf{Map: w})
	require.NoError(t, nav.SetGoal(sim.Pose{X: 5, Y: 0}))
	for range 30 {
		cmd, _ := nav.Update(w.Now(), r.Pose())
		r.SetCmdVel(cmd)
		w.Step(100 * time.Millisecond)
	}
	nav.Cancel()
	cmd, st := nav.Update(w.Now(), r.Pose())
	require.Equal(t, sim.NavCanceled, st.State, "after Cancel: %v %+v", st.State, cmd)
	require.Equal(t, (sim.Twist{}), cmd, "after Cancel: %v %+v", st.State, cmd)
	r.SetCmdVel(cmd)
	w.Step(time.Second)
	assert.Equal(t, (sim.Twist{}), r.Twist(), "robot still moving a second after the cancel: %+v", r.Twist())
	// A new goal preempts; going back west.
	back := sim.Pose{X: -6, Y: 0, Yaw: math.Pi}
	require.NoError(t, nav.SetGoal(sim.Pose{X: 5, Y: 0}))
	nav.Update(w.Now(), r.Pose())
	require.NoError(t, nav.SetGoal(back))
	g, ok := nav.Goal()
	assert.True(t, ok, "Goal() = %v, %v after preempting", g, ok)
	assert.Equal(t, back, g, "Goal() = %v, %v after preempting", g, ok)
	st, _ = navigate(t, w, r, nav, time.Minute)
	if assert.Equal(t, sim.NavSucceeded, st.State, "preempting goal: %v at %v", st.State, r.Pose()) {
		assert.LessOrEqual(t, r.Pose().DistanceTo(back), 0.12, "preempting goal: %v at %v", st.State, r.Pose())
	}
	nav.Cancel() // no goal active: nothing happens
	assert.Equal(t, sim.NavSucceeded, nav.Status().State, "Cancel after success changed the state to %v", nav.Status().State)
}

func TestNavigatorFollowsAGivenPath(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 5, Y: 5}})
	nav := newNav(t, sim.NavigatorConf{}) // no map needed for SetPath
	square := []sim.Pose{{X: 5, Y: 5}, {X: 9, Y: 5}, {X: 9, Y: 9}, {X: 5, Y: 9, Yaw: math.Pi}}
	require.NoError(t, nav.SetPath(square))
	st, _ := navigate(t, w, r, nav, time.Minute)
	require.Equal(t, sim.NavSucceeded, st.State, "%v: %v", st.State, st.Err)
	// Pure pursuit cuts the corners by a fraction of the lookahead only.
	for _, p := range r.Trail() {
		d := math.Min(math.Abs(p.Y-5), math.Min(math.Abs(p.X-9), math.Abs(p.Y-9)))
		if !assert.LessOrEqual(t, d, 0.25, "trail point %v is %v m off the square", p, d) {
			break
		}
	}
	err := nav.SetGoal(sim.Pose{X: 1, Y: 1})
	assert.ErrorIs(t, err, sim.ErrNoPath, "SetGoal without a map: %v", err)
	err = nav.SetPath(nil)
	assert.ErrorIs(t, err, sim.ErrNoPath, "SetPath(nil): %v", err)
}

func TestNavigatorConfErrors(t *testing.T) {
	for _, tc := range []struct {
		conf sim.NavigatorConf
		want string
	}{
		{sim.NavigatorConf{MaxLinear: -1}, "navigator MaxLinear: must be >= 0, got -1"},
		{sim.NavigatorConf{Lookahead: math.NaN()}, "navigator Lookahead: must be >= 0, got NaN"},
		{sim.NavigatorConf{ReplanPeriod: -time.Second}, "navigator ReplanPeriod: must be >= 0, got -1s"},
	} {
		_, err := sim.NewNavigator(tc.conf)
		assert.EqualError(t, err, tc.want, "%+v: %v, want %s", tc.conf, err, tc.want)
	}
}

func TestNavigatorReplansPeriodically(t *testing.T) {
	w := loadOffice(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: -5, Y: 0}})
	nav := newNav(t, sim.NavigatorConf{Map: w, ReplanPeriod: time.Second})
	require.NoError(t, nav.SetGoal(sim.Pose{X: 0, Y: 0}))
	st, _ := navigate(t, w, r, nav, time.Minute)
	// About 5 m at 0.4 m/s: a dozen seconds, a replan each second.
	assert.Equal(t, sim.NavSucceeded, st.State, "%v with %d replans", st.State, st.Replans)
	assert.GreaterOrEqual(t, st.Replans, 10, "%v with %d replans", st.State, st.Replans)
}
