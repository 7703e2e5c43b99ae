package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// beam returns the index of the beam at angle a in a default 360-beam scan.
func beam(a float64) int {
	return int(math.Round((a+math.Pi)/(2*math.Pi/360))) % 360
}

func TestLaserRangesMatchGeometry(t *testing.T) {
	// A 20 m room whose inner faces are at 0.05 and 19.95 m.
	for _, tc := range []struct {
		name  string
		map_  func(t *testing.T) *sim.Grid
		pose  sim.Pose
		beams map[float64]float64 // beam angle in the robot frame -> range
	}{
		{
			name: "centre of the room, facing east",
			pose: sim.Pose{X: 10, Y: 10},
			beams: map[float64]float64{
				0:                  9.95,
				math.Pi / 2:        9.95,
				-math.Pi:           9.95,
				-math.Pi / 2:       9.95,
				math.Pi / 4:        9.95 * math.Sqrt2,
				30 * math.Pi / 180: 9.95 / math.Cos(math.Pi/6),
			},
		},
		{
			name: "off centre, turned 90 degrees left",
			pose: sim.Pose{X: 4, Y: 7, Yaw: math.Pi / 2},
			beams: map[float64]float64{
				0:            12.95, // north face at 19.95
				math.Pi / 2:  3.95,  // west face at 0.05
				-math.Pi / 2: 15.95,
				-math.Pi:     6.95,
				math.Pi / 4:  3.95 * math.Sqrt2,
			},
		},
		{
			name: "a map rotated by its origin's yaw",
			map_: func(t *testing.T) *sim.Grid {
				g := roomGrid(t, 20, 20, 0.05)
				// Rotate the map frame by 0.3 rad about the world origin.
				r, err := sim.NewGrid(g.Width, g.Height, g.Resolution, sim.Pose{Yaw: 0.3})
				require.NoError(t, err)
				for j := 0; j < g.Height; j++ {
					for i := 0; i < g.Width; i++ {
						r.Set(i, j, g.At(i, j))
					}
				}
				return r
			},
			// The room's centre (10, 10) in the map's frame, facing along the
			// map's x axis.
			pose: sim.Pose{X: 10*math.Cos(0.3) - 10*math.Sin(0.3), Y: 10*math.Sin(0.3) + 10*math.Cos(0.3), Yaw: 0.3},
			beams: map[float64]float64{
				0:           9.95,
				math.Pi / 2: 9.95,
				math.Pi / 4: 9.95 * math.Sqrt2,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := sim.WorldConf{}
			if tc.map_ != nil {
				conf.Map = tc.map_(t)
			} else {
				conf.Map = roomGrid(t, 20, 20, 0.05)
			}
			w := roomWorld(t, conf)
			r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: tc.pose, Laser: sim.LaserConf{RangeMax: 30}})
			w.Step(20 * time.Millisecond)
			scan, ok := r.Scan()
			require.True(t, ok, "no scan after the first step")
			require.Len(t, scan.Ranges, 360, "scan layout: %d beams from %v by %v", len(scan.Ranges), scan.AngleMin, scan.AngleIncrement)
			require.InDelta(t, -math.Pi, scan.AngleMin, 1e-12, "scan layout: %d beams from %v by %v", len(scan.Ranges), scan.AngleMin, scan.AngleIncrement)
			require.InDelta(t, 2*math.Pi/360, scan.AngleIncrement, 1e-12, "scan layout: %d beams from %v by %v", len(scan.Ranges), scan.AngleMin, scan.AngleIncrement)
			for a, want := range tc.beams {
				got := float64(scan.Ranges[beam(a)])
				assert.InDelta(t, want, got, 1e-4, "beam at %.3f rad: range %v, want %v", a, got, want)
			}
		})
	}
}

func TestLaserRangeLimitsFollowREP117(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 3, Y: 10},
		Laser: sim.LaserConf{RangeMax: 5, RangeMin: 0.3}})
	// A second robot whose near edge is 0.25 m from r's scanner: too close.
	addRobot(t, w, sim.RobotConf{Name: "close", Spawn: sim.Pose{X: 3, Y: 10.43}})
	w.Step(20 * time.Millisecond)
	scan, _ := r.Scan()
	got := scan.Ranges[beam(math.Pi)]
	assert.Equal(t, float32(2.95), got, "west wall at 2.95 m: %v", got)
	got = scan.Ranges[beam(0)]
	assert.True(t, math.IsInf(float64(got), 1), "east wall beyond RangeMax: %v, want +Inf", got)
	got = scan.Ranges[beam(math.Pi/2)]
	assert.True(t, math.IsInf(float64(got), -1), "robot 0.25 m away, under RangeMin: %v, want -Inf", got)
}

func TestLaserSeesOtherRobotsAndObstacles(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 5, Y: 10}})
	addRobot(t, w, sim.RobotConf{Name: "other", Spawn: sim.Pose{X: 8, Y: 10}, Radius: 0.3})
	require.NoError(t, w.PlaceObstacle("box", sim.Rect{MinX: 4.5, MinY: 12, MaxX: 5.5, MaxY: 13}))
	w.Step(20 * time.Millisecond)
	scan, _ := r.Scan()
	got := scan.Ranges[beam(0)]
	assert.InDelta(t, 3-0.3, float64(got), 1e-5, "robot ahead at 3 m with radius 0.3: range %v, want 2.7", got)
	// Off-centre beam: the ray meets the circle at t = d cos a - sqrt(r² - d² sin² a).
	a := 5 * math.Pi / 180
	want := 3*math.Cos(a) - math.Sqrt(0.09-9*math.Sin(a)*math.Sin(a))
	got = scan.Ranges[beam(a)]
	assert.InDelta(t, want, float64(got), 1e-5, "beam at 5 degrees: range %v, want %v", got, want)
	got = scan.Ranges[beam(math.Pi/2)]
	assert.InDelta(t, 2, float64(got), 1e-5, "obstacle 2 m to the left: range %v", got)
	require.NoError(t, w.RemoveObstacle("box"))
	w.Step(100 * time.Millisecond)
	scan, _ = r.Scan()
	got = scan.Ranges[beam(math.Pi/2)]
	assert.InDelta(t, 9.95, float64(got), 1e-5, "after removing the obstacle: range %v, want the wall at 9.95", got)
}

func TestLaserRateAndStamps(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 5, Y: 10}, Laser: sim.LaserConf{Rate: 10}})
	var stamps []time.Duration
	for range 50 { // one second of 20 ms steps
		w.Step(20 * time.Millisecond)
		if s, ok := r.Scan(); ok && (len(stamps) == 0 || stamps[len(stamps)-1] != s.Stamp) {
			stamps = append(stamps, s.Stamp)
		}
	}
	require.Len(t, stamps, 10, "%d scans in 1 s at 10 Hz: %v", len(stamps), stamps)
	for k := 1; k < len(stamps); k++ {
		d := stamps[k] - stamps[k-1]
		assert.Equal(t, 100*time.Millisecond, d, "scans %d and %d %v apart", k-1, k, d)
	}
	s, _ := r.Scan()
	assert.Equal(t, 0.1, s.ScanTime, "ScanTime %v, want 0.1", s.ScanTime)
	off := addRobot(t, w, sim.RobotConf{Name: "blind", Spawn: sim.Pose{X: 10, Y: 10}, Laser: sim.LaserConf{Disabled: true}})
	w.Step(time.Second)
	_, ok := off.Scan()
	assert.False(t, ok, "a robot without a laser has a scan")
}

func TestLaserWithLimitedFieldOfView(t *testing.T) {
	w := roomWorld(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "r", Spawn: sim.Pose{X: 10, Y: 10},
		Laser: sim.LaserConf{Beams: 181, AngleMin: -math.Pi / 2, AngleMax: math.Pi / 2, RangeMax: 20}})
	w.Step(20 * time.Millisecond)
	s, _ := r.Scan()
	require.Len(t, s.Ranges, 181, "scan layout %d beams %v..%v by %v", len(s.Ranges), s.AngleMin, s.AngleMax, s.AngleIncrement)
	require.Equal(t, -math.Pi/2, s.AngleMin, "scan layout %d beams %v..%v by %v", len(s.Ranges), s.AngleMin, s.AngleMax, s.AngleIncrement)
	require.InDelta(t, math.Pi/2, s.AngleMax, 1e-12, "scan layout %d beams %v..%v by %v", len(s.Ranges), s.AngleMin, s.AngleMax, s.AngleIncrement)
	require.InDelta(t, math.Pi/180, s.AngleIncrement, 1e-12, "scan layout %d beams %v..%v by %v", len(s.Ranges), s.AngleMin, s.AngleMax, s.AngleIncrement)
	for k, want := range map[int]float64{0: 9.95, 90: 9.95, 180: 9.95, 45: 9.95 * math.Sqrt2} {
		got := float64(s.Ranges[k])
		assert.InDelta(t, want, got, 1e-4, "beam %d: %v, want %v", k, got, want)
	}
}
