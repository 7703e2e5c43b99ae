package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

func officePlanner(t testing.TB, conf sim.PlannerConf) (*sim.World, *sim.Planner) {
	t.Helper()
	w := loadOffice(t, sim.WorldConf{})
	conf.Map = w.Map()
	p, err := sim.NewPlanner(conf)
	require.NoError(t, err)
	return w, p
}

// checkPath asserts that a path joins start to goal in steps no longer than
// a cell diagonal and keeps the robot's footprint off every wall.
func checkPath(t testing.TB, g *sim.Grid, path []sim.Pose, start, goal sim.Pose, radius float64) {
	t.Helper()
	require.GreaterOrEqual(t, len(path), 2, "path of %d poses", len(path))
	if assert.Equal(t, start.X, path[0].X, "path runs %v -> %v, want %v -> %v", path[0], path[len(path)-1], start, goal) {
		assert.Equal(t, start.Y, path[0].Y, "path runs %v -> %v, want %v -> %v", path[0], path[len(path)-1], start, goal)
		assert.Equal(t, goal, path[len(path)-1], "path runs %v -> %v, want %v -> %v", path[0], path[len(path)-1], start, goal)
	}
	for k := 1; k < len(path)-1; k++ {
		d := path[k].DistanceTo(path[k-1])
		require.False(t, d > g.Resolution*math.Sqrt2+1e-9 && k > 1, "step %d is %v m long", k, d)
		// The footprint at every pose is clear of occupied cells.
		for a := 0.0; a < 2*math.Pi; a += math.Pi / 16 {
			x, y := path[k].X+radius*math.Cos(a), path[k].Y+radius*math.Sin(a)
			i, j, _ := g.CellOf(x, y)
			require.NotEqual(t, sim.Occupied, g.At(i, j), "pose %d %v puts the robot's edge in a wall", k, path[k])
		}
	}
}

func TestPlannerFindsPathsBetweenAllOfficePlaces(t *testing.T) {
	w, p := officePlanner(t, sim.PlannerConf{})
	var places []sim.Place
	places = append(places, w.Places().Waypoints...)
	places = append(places, w.Places().Spawns...)
	for _, d := range w.Places().Docks {
		places = append(places, sim.Place{Name: d.Name + " approach", Pose: d.Approach})
	}
	// From every place to every waypoint: with paths reversible, that joins
	// every place to every other.
	for _, a := range places {
		for _, b := range w.Places().Waypoints {
			if a.Name == b.Name {
				continue
			}
			path, err := p.Plan(a.Pose, b.Pose)
			if !assert.NoError(t, err, "%s -> %s", a.Name, b.Name) {
				continue
			}
			checkPath(t, w.Map(), path, a.Pose, b.Pose, 0.18)
		}
	}
}

func TestPlannerPathIsShortAndKeepsToTheMiddle(t *testing.T) {
	w, p := officePlanner(t, sim.PlannerConf{})
	// Along the corridor (from y = -1 to 1): the path is straight down the
	// middle, as long as the straight line.
	start, goal := sim.Pose{X: -8, Y: 0}, sim.Pose{X: 8, Y: 0}
	path, err := p.Plan(start, goal)
	require.NoError(t, err)
	length := 0.0
	for k := 1; k < len(path); k++ {
		length += path[k].DistanceTo(path[k-1])
		require.LessOrEqual(t, math.Abs(path[k].Y), 0.05, "pose %d %v strays from the corridor's centre line", k, path[k])
	}
	assert.LessOrEqual(t, length, 16.1, "path %v m long for a 16 m corridor", length)
	// Through a doorway: the path passes the door's middle.
	path, err = p.Plan(sim.Pose{X: -8, Y: 0}, w.Places().Waypoints[0].Pose) // reception, door at x = -7.5
	require.NoError(t, err)
	for _, q := range path {
		assert.False(t, q.Y > 1.0 && q.Y < 1.15 && math.Abs(q.X+7.5) > 0.06, "crosses the doorway at x = %v, want its middle -7.5", q.X)
	}
}

func TestPlannerReportsNoPath(t *testing.T) {
	// A closed box in the middle of a room.
	g := roomGrid(t, 10, 10, 0.05)
	box := sim.Rect{MinX: 3, MinY: 3, MaxX: 7, MaxY: 7}
	g.FillRect(sim.Rect{MinX: 3, MinY: 3, MaxX: 7, MaxY: 3.1}, sim.Occupied)
	g.FillRect(sim.Rect{MinX: 3, MinY: 6.9, MaxX: 7, MaxY: 7}, sim.Occupied)
	g.FillRect(sim.Rect{MinX: 3, MinY: 3, MaxX: 3.1, MaxY: 7}, sim.Occupied)
	g.FillRect(sim.Rect{MinX: 6.9, MinY: 3, MaxX: 7, MaxY: 7}, sim.Occupied)
	_ = box
	p, err := sim.NewPlanner(sim.PlannerConf{Map: g})
	require.NoError(t, err)
	inside, outside := sim.Pose{X: 5, Y: 5}, sim.Pose{X: 1, Y: 1}
	for _, tc := range []struct {
		name        string
		start, goal sim.Pose
		want        string
	}{
		{"out of the box", inside, outside, "no path: goal (1.00, 1.00, 0.00) is not reachable from (5.00, 5.00, 0.00)"},
		{"into the box", outside, inside, "no path: goal (5.00, 5.00, 0.00) is not reachable from (1.00, 1.00, 0.00)"},
		{"goal in a wall", outside, sim.Pose{X: 3.05, Y: 5}, "no path: goal (3.05, 5.00, 0.00) is 0.00 m from an obstacle; the robot needs 0.22 m"},
		{"goal too close to a wall", outside, sim.Pose{X: 2.9, Y: 5}, "no path: goal (2.90, 5.00, 0.00) is 0.10 m from an obstacle; the robot needs 0.22 m"},
		{"goal off the map", outside, sim.Pose{X: 11, Y: 5}, "no path: goal (11.00, 5.00, 0.00) is off the map"},
		{"start off the map", sim.Pose{X: -1, Y: 5}, outside, "no path: start (-1.00, 5.00, 0.00) is off the map"},
	} {
		_, err := p.Plan(tc.start, tc.goal)
		assert.ErrorIs(t, err, sim.ErrNoPath, "%s: %v\nwant %s", tc.name, err, tc.want)
		assert.EqualError(t, err, tc.want, "%s: %v\nwant %s", tc.name, err, tc.want)
	}
	// Inside the box, paths still work.
	_, err = p.Plan(inside, sim.Pose{X: 6, Y: 6})
	assert.NoError(t, err, "inside the box")
}

func TestPlannerStartsFromAPoseTouchingAWall(t *testing.T) {
	// Docked robots sit closer to the wall than the planner would go.
	w, p := officePlanner(t, sim.PlannerConf{})
	dock := w.Places().Docks[0]
	path, err := p.Plan(dock.Pose, w.Places().Waypoints[1].Pose)
	require.NoError(t, err, "from the dock")
	if assert.Equal(t, dock.Pose.X, path[0].X, "path starts at %v, not at the dock %v", path[0], dock.Pose) {
		assert.Equal(t, dock.Pose.Y, path[0].Y, "path starts at %v, not at the dock %v", path[0], dock.Pose)
	}
}

func TestPlannerUnknownSpace(t *testing.T) {
	g := roomGrid(t, 10, 10, 0.05)
	// A band of unknown cells splits the room.
	g.FillRect(sim.Rect{MinX: 4.5, MinY: 0, MaxX: 5.5, MaxY: 10}, sim.Unknown)
	start, goal := sim.Pose{X: 2, Y: 5}, sim.Pose{X: 8, Y: 5}
	p, _ := sim.NewPlanner(sim.PlannerConf{Map: g})
	_, err := p.Plan(start, goal)
	assert.ErrorIs(t, err, sim.ErrNoPath, "through unknown space by default: %v, want no path", err)
	p, _ = sim.NewPlanner(sim.PlannerConf{Map: g, AllowUnknown: true})
	_, err = p.Plan(start, goal)
	assert.NoError(t, err, "with AllowUnknown")
}

func TestPlannerIsFastOnTheWarehouse(t *testing.T) {
	w, err := sim.LoadWorld("../worlds/warehouse", sim.WorldConf{})
	require.NoError(t, err)
	t0 := time.Now()
	p, err := sim.NewPlanner(sim.PlannerConf{Map: w.Map()})
	require.NoError(t, err)
	wps := w.Places().Waypoints
	for k := range wps {
		_, err := p.Plan(wps[k].Pose, wps[(k+1)%len(wps)].Pose)
		assert.NoError(t, err, "%s -> %s", wps[k].Name, wps[(k+1)%len(wps)].Name)
	}
	// Generous: about 20 ms on the development machine under -race.
	d := time.Since(t0)
	assert.LessOrEqual(t, d, 5*time.Second, "inflating and planning %d legs took %v", len(wps), d)
}

func TestPlannerConfErrors(t *testing.T) {
	g := roomGrid(t, 2, 2, 0.1)
	for _, tc := range []struct {
		conf sim.PlannerConf
		want string
	}{
		{sim.PlannerConf{}, "planner: missing Map"},
		{sim.PlannerConf{Map: g, RobotRadius: -1}, "planner RobotRadius: must be >= 0, got -1"},
		{sim.PlannerConf{Map: g, InflationMargin: math.Inf(1)}, "planner InflationMargin: must be >= 0, got +Inf"},
	} {
		_, err := sim.NewPlanner(tc.conf)
		assert.ErrorContains(t, err, tc.want, "%+v: %v, want %s", tc.conf, err, tc.want)
	}
}
