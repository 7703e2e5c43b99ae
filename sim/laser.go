package sim

import (
	"fmt"
	"math"
	"time"
)

// LaserConf describes a robot's planar laser scanner, mounted on the robot's
// axis facing forward. Zero fields take the defaults in brackets (a 360° lidar
// like the ones on small indoor robots).
type LaserConf struct {
	// Disabled removes the scanner.
	Disabled bool
	// Beams is the number of readings per scan [360].
	Beams int
	// AngleMin and AngleMax bound the scan in the robot's frame; when both are
	// zero the scan covers the full circle from -pi in Beams equal steps.
	AngleMin, AngleMax float64
	// RangeMin and RangeMax in metres [0.12, 12].
	RangeMin, RangeMax float64
	// Rate is the number of scans per second [10]. The first scan is taken
	// at the first physics step, later ones at the first step at or after
	// each multiple of 1/Rate from it.
	Rate float64
	// Noise is the standard deviation of range noise in metres [0: exact].
	Noise float64
	// MountX is how far ahead of the base's centre the scanner sits [0].
	MountX float64
}

func (c LaserConf) withDefaults() (LaserConf, error) {
	if c.Beams == 0 {
		c.Beams = 360
	}
	if c.Beams < 1 || c.Beams > 100000 {
		return c, fmt.Errorf("laser Beams: want 1 to 100000, got %d", c.Beams)
	}
	for _, f := range []struct {
		v    *float64
		d    float64
		name string
	}{
		{&c.RangeMin, 0.12, "RangeMin"},
		{&c.RangeMax, 12, "RangeMax"},
		{&c.Rate, 10, "Rate"},
		{&c.Noise, 0, "Noise"},
	} {
		if *f.v < 0 || isNaNOrInf(*f.v) {
			return c, fmt.Errorf("laser %s: must be >= 0, got %v", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	if c.RangeMin >= c.RangeMax {
		return c, fmt.Errorf("laser RangeMin %v: must be below RangeMax %v", c.RangeMin, c.RangeMax)
	}
	if isNaNOrInf(c.AngleMin) || isNaNOrInf(c.AngleMax) || isNaNOrInf(c.MountX) {
		return c, fmt.Errorf("laser AngleMin, AngleMax and MountX: must be finite")
	}
	if (c.AngleMin != 0 || c.AngleMax != 0) && c.AngleMin >= c.AngleMax {
		return c, fmt.Errorf("laser AngleMin %v: must be below AngleMax %v", c.AngleMin, c.AngleMax)
	}
	return c, nil
}

func (c LaserConf) period() time.Duration {
	return time.Duration(float64(time.Second) / c.Rate)
}

// increment returns the first beam's angle and the angle between beams.
func (c LaserConf) increment() (float64, float64) {
	if c.AngleMin == 0 && c.AngleMax == 0 {
		return -math.Pi, 2 * math.Pi / float64(c.Beams)
	}
	if c.Beams == 1 {
		return c.AngleMin, 0
	}
	return c.AngleMin, (c.AngleMax - c.AngleMin) / float64(c.Beams-1)
}

// LaserScan is one scan, with the fields of a sensor_msgs/LaserScan. Ranges
// follow REP 117: +Inf where a beam hit nothing within RangeMax, -Inf where
// something was closer than RangeMin.
type LaserScan struct {
	Stamp          time.Duration
	AngleMin       float64
	AngleMax       float64
	AngleIncrement float64
	TimeIncrement  float64 // 0: all beams are sampled at Stamp
	ScanTime       float64 // seconds between scans
	RangeMin       float64
	RangeMax       float64
	Ranges         []float32
}

// Scan returns the latest laser scan and false if the robot has none yet
// (or no scanner). Each scan is a new value that callers may keep but must
// not modify.
func (r *Robot) Scan() (*LaserScan, bool) { return r.scan, r.scan != nil }

func (r *Robot) initLaser() {
	if r.laserConf.Disabled {
		return
	}
	a0, inc := r.laserConf.increment()
	r.beamCos = make([]float64, r.laserConf.Beams)
	r.beamSin = make([]float64, r.laserConf.Beams)
	for b := range r.beamCos {
		r.beamSin[b], r.beamCos[b] = math.Sincos(a0 + float64(b)*inc)
	}
}

// castScan samples robot r's laser against the live grid and the other
// robots. Beams walk the grid cell by cell (Amanatides-Woo traversal), so a
// beam costs one step per cell crossed and never skips a thin wall.
func (w *World) castScan(r *Robot) *LaserScan {
	c := r.laserConf
	a0, inc := c.increment()
	s := &LaserScan{
		Stamp:          w.now,
		AngleMin:       a0,
		AngleMax:       a0 + inc*float64(c.Beams-1),
		AngleIncrement: inc,
		ScanTime:       c.period().Seconds(),
		RangeMin:       c.RangeMin,
		RangeMax:       c.RangeMax,
		Ranges:         make([]float32, c.Beams),
	}
	g := w.live
	sy, cy := math.Sincos(r.pose.Yaw)
	ox, oy := r.pose.X+c.MountX*cy, r.pose.Y+c.MountX*sy
	gx, gy := g.toGrid(ox, oy)
	// Beam directions in the grid's frame: the robot's yaw less the map's.
	gs, gc := math.Sincos(r.pose.Yaw - g.Origin.Yaw)
	maxCells := c.RangeMax / g.Resolution
	// Other robots within reach, as circles.
	type disc struct{ x, y, r2 float64 }
	var discs []disc
	for _, o := range w.robots {
		if o != r && math.Hypot(o.pose.X-ox, o.pose.Y-oy) < c.RangeMax+o.conf.Radius {
			discs = append(discs, disc{o.pose.X - ox, o.pose.Y - oy, o.conf.Radius * o.conf.Radius})
		}
	}
	for b := range s.Ranges {
		bc, bs := r.beamCos[b], r.beamSin[b]
		dx, dy := gc*bc-gs*bs, gs*bc+gc*bs // rotate the beam into the grid frame
		d := g.traceRay(gx, gy, dx, dy, maxCells, w.field) * g.Resolution
		if len(discs) > 0 {
			wc, ws := cy*bc-sy*bs, sy*bc+cy*bs // the beam in the world frame
			for _, o := range discs {
				// Solve |t*u - o|² = r² for the nearest t >= 0.
				proj := o.x*wc + o.y*ws
				if proj <= 0 {
					continue
				}
				perp2 := o.x*o.x + o.y*o.y - proj*proj
				if perp2 > o.r2 {
					continue
				}
				if t := proj - math.Sqrt(o.r2-perp2); t < d {
					d = math.Max(t, 0)
				}
			}
		}
		if c.Noise > 0 && !math.IsInf(d, 1) {
			d += c.Noise * r.rng.NormFloat64()
		}
		switch {
		case d > c.RangeMax:
			s.Ranges[b] = float32(math.Inf(1))
		case d < c.RangeMin:
			s.Ranges[b] = float32(math.Inf(-1))
		default:
			s.Ranges[b] = float32(d)
		}
	}
	return s
}

// traceRay walks from grid point (gx, gy) along the unit direction (dx, dy)
// and returns the distance in cells to the first occupied cell, or +Inf if
// the ray leaves the grid or passes maxCells first.
//
// field, when not nil, holds each cell's distance (in cells) from its centre
// to the nearest occupied cell's centre. Far from obstacles the ray then
// leaps ahead by that distance less a cell diagonal (half a diagonal from
// the point to its cell's centre, half from the occupied cell's centre to
// its corners), which can never enter an occupied cell; near them it walks
// cell by cell, so the range is the one the cell walk alone would give, to
// rounding (TestLeapingTraceMatchesTheCellWalk). The margin was a diagonal
// and a half before: the tighter one takes a 360-beam scan in the office
// corridor 15 % less time (BenchmarkScan360).
//
// The grid's numeric kernels — traceRay, walkCells, the planner's astar,
// distanceTransform and dt1 — are left out of the race detector's
// instrumentation (go:norace): they only read and write memory their caller
// holds (the world's grids while it steps under its lock, the planner's own
// arrays), and instrumenting each cell access made every simulated test run
// a quarter slower under -race (hil's TestEachKindPassesAndFails: 24 → 17
// CPU-s). The code around them stays instrumented, so a grid shared without
// the lock is still seen where the other code touches it. They read +Inf
// from posInf, not math.Inf, and take no math.Abs: those go through an
// unsafe conversion, which the race detector's pointer checks (checkptr,
// on with -race) instrument even in a norace function.
//
//go:norace
func (g *Grid) traceRay(gx, gy, dx, dy, maxCells float64, field []float32) float64 {
	w, h := g.Width, g.Height
	t := 0.0
	walk := math.MaxInt // cells to walk before looking at the field again
	if field != nil {
		walk = 8
	}
	for {
		x, y := gx+t*dx, gy+t*dy
		if x < 0 || y < 0 {
			return posInf
		}
		i, j := int(x), int(y)
		if i >= w || j >= h {
			return posInf
		}
		if field != nil {
			if s := float64(field[j*w+i]) - math.Sqrt2; s >= 1 {
				if t += s; t > maxCells {
					return posInf
				}
				continue
			}
		}
		hit, walked := g.walkCells(x, y, i, j, dx, dy, maxCells-t, walk)
		if walked < 0 {
			return t + hit
		}
		t += walked
	}
}

// walkCells is the Amanatides-Woo cell walk from (x, y), in cell (i, j),
// over at most n cells. It returns the distance to an occupied cell (or
// +Inf when the ray leaves the grid or passes maxCells) and -1, or, when it
// walked n free cells, 0 and the distance to where it entered the last one.
// Not race-instrumented: see traceRay.
//
//go:norace
func (g *Grid) walkCells(x, y float64, i, j int, dx, dy, maxCells float64, n int) (float64, float64) {
	if g.cells[j*g.Width+i] == Occupied {
		return 0, -1
	}
	stepI, stepJ := 1, 1
	tMaxX, tMaxY := posInf, posInf
	tDX, tDY := posInf, posInf
	if dx > 0 {
		tDX = 1 / dx
		tMaxX = (float64(i) + 1 - x) * tDX
	} else if dx < 0 {
		stepI = -1
		tDX = -1 / dx
		tMaxX = (x - float64(i)) * tDX
	}
	if dy > 0 {
		tDY = 1 / dy
		tMaxY = (float64(j) + 1 - y) * tDY
	} else if dy < 0 {
		stepJ = -1
		tDY = -1 / dy
		tMaxY = (y - float64(j)) * tDY
	}
	w, h, cells := g.Width, g.Height, g.cells
	for k := 0; k < n; k++ {
		var t float64
		if tMaxX < tMaxY {
			t = tMaxX
			tMaxX += tDX
			i += stepI
			if i < 0 || i >= w {
				return posInf, -1
			}
		} else {
			t = tMaxY
			tMaxY += tDY
			j += stepJ
			if j < 0 || j >= h {
				return posInf, -1
			}
		}
		if t > maxCells {
			return posInf, -1
		}
		if cells[j*w+i] == Occupied {
			return t, -1
		}
		if k == n-1 {
			// Restart a hair inside the cell just entered, so that rounding
			// cannot put the restart back in the cell before.
			return 0, t + 1e-9
		}
	}
	return 0, 0
}

// posInf is +Inf for the norace kernels (see traceRay).
var posInf = math.Inf(1)
