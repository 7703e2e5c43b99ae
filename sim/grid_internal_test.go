package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDistanceTransformMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, density := range []float64{0, 0.001, 0.05, 0.5} {
		g, _ := NewGrid(37, 23, 0.1, Pose{})
		for k := range g.cells {
			if rng.Float64() < density {
				g.cells[k] = Occupied
			}
		}
		got := distanceTransform(g, func(c Cell) bool { return c == Occupied })
		for j := 0; j < g.Height; j++ {
			for i := 0; i < g.Width; i++ {
				want := math.Inf(1)
				for jj := 0; jj < g.Height; jj++ {
					for ii := 0; ii < g.Width; ii++ {
						if g.At(ii, jj) == Occupied {
							want = math.Min(want, math.Hypot(float64(ii-i), float64(jj-j))*0.1)
						}
					}
				}
				k := j*g.Width + i
				require.False(t, got[k] != want && math.Abs(got[k]-want) > 1e-9, "density %v: cell (%d, %d): %v, want %v", density, i, j, got[k], want)
			}
		}
	}
}

func TestClearanceMeasuresToCellSquares(t *testing.T) {
	g, _ := NewGrid(20, 20, 0.1, Pose{})
	g.Set(10, 10, Occupied) // the square [1.0, 1.1] x [1.0, 1.1]
	for _, tc := range []struct{ x, y, want float64 }{
		{0.5, 1.05, 0.5},                 // west of the square's face
		{1.5, 1.05, 0.4},                 // east
		{0.7, 0.7, math.Hypot(0.3, 0.3)}, // south-west of its corner
		{1.05, 1.05, 0},                  // inside
		{0.05, 0.05, 0.05},               // the grid's edge is nearer
		{1.05, 1.95, 0.05},               // the north edge
		{1.05, 1.5, 0.4},                 //
	} {
		got := g.clearance(tc.x, tc.y, 1)
		assert.LessOrEqual(t, math.Abs(got-tc.want), 1e-9, "clearance(%v, %v) = %v, want %v", tc.x, tc.y, got, tc.want)
	}
	got := g.clearance(0.5, 0.5, 0.2)
	assert.Equal(t, 0.2, got, "beyond the limit: %v, want the limit 0.2", got)
}

func TestNormalizeAngle(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 0}, {math.Pi, -math.Pi}, {-math.Pi, -math.Pi}, {3 * math.Pi / 2, -math.Pi / 2},
		{-3 * math.Pi / 2, math.Pi / 2}, {7 * math.Pi, -math.Pi}, {0.5 + 4*math.Pi, 0.5},
	} {
		got := NormalizeAngle(tc.in)
		assert.LessOrEqual(t, math.Abs(got-tc.want), 1e-12, "NormalizeAngle(%v) = %v, want %v", tc.in, got, tc.want)
	}
	p := Pose{X: 1, Y: 2, Yaw: 0.7}
	q := Pose{X: -3, Y: 0.5, Yaw: -2}
	r := p.Compose(p.Relative(q))
	assert.LessOrEqual(t, math.Abs(r.X-q.X)+math.Abs(r.Y-q.Y)+math.Abs(r.Yaw-q.Yaw), 1e-12, "Compose(Relative(q)) = %v, want %v", r, q)
}

// TestLeapingTraceMatchesTheCellWalk: a beam traced with the distance
// field's leaps ends where the cell walk alone ends it, to rounding, from
// random free points in random directions on the shipped worlds and on
// random grids. A leap past an occupied cell would end the beam farther:
// with a margin of 1.2 cells instead of the diagonal, the random grids'
// beams pass cells' corners here.
func TestLeapingTraceMatchesTheCellWalk(t *testing.T) {
	random := func(density float64) func(t *testing.T) *Grid {
		return func(t *testing.T) *Grid {
			rng := rand.New(rand.NewPCG(5, uint64(density*1000)))
			g, _ := NewGrid(300, 200, 0.05, Pose{})
			for k := range g.cells {
				if rng.Float64() < density {
					g.cells[k] = Occupied
				}
			}
			return g
		}
	}
	world := func(dir string) func(t *testing.T) *Grid {
		return func(t *testing.T) *Grid {
			w, err := LoadWorld(dir, WorldConf{})
			require.NoError(t, err)
			return w.live
		}
	}
	for _, tc := range []struct {
		name string
		grid func(t *testing.T) *Grid
	}{
		{"office", world("../worlds/office")},
		{"warehouse", world("../worlds/warehouse")},
		{"sparse random cells", random(0.002)},
		{"dense random cells", random(0.05)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.grid(t)
			field := laserField(g)
			rng := rand.New(rand.NewPCG(3, 4))
			const maxCells = 240 // a 12 m laser at 5 cm cells
			for n := 0; n < 20000; {
				gx, gy := rng.Float64()*float64(g.Width), rng.Float64()*float64(g.Height)
				if g.cells[int(gy)*g.Width+int(gx)] == Occupied {
					continue
				}
				n++
				a := rng.Float64() * 2 * math.Pi
				dx, dy := math.Cos(a), math.Sin(a)
				walk := g.traceRay(gx, gy, dx, dy, maxCells, nil)
				leap := g.traceRay(gx, gy, dx, dy, maxCells, field)
				if walk != leap && !(math.Abs(walk-leap) <= 1e-9) {
					require.Failf(t, "the leaping trace ends elsewhere", "from (%v, %v) at %v rad: the cell walk ends at %v cells, the leaps at %v", gx, gy, a, walk, leap)
				}
			}
		})
	}
}
