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
