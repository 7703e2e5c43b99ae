package sim

import (
	"fmt"
	"math"
)

// Cell is the state of one occupancy-grid cell.
type Cell uint8

// Cell states, as map_server's trinary mode classifies pixels.
const (
	Free Cell = iota
	Occupied
	Unknown
)

// String returns "free", "occupied" or "unknown".
func (c Cell) String() string {
	switch c {
	case Free:
		return "free"
	case Occupied:
		return "occupied"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Cell(%d)", uint8(c))
}

// Grid is an occupancy grid laid out like nav_msgs/OccupancyGrid: Width x
// Height cells of Resolution metres, row-major, cell (0, 0) at the bottom left,
// columns growing along the map's x axis and rows along its y axis. Origin is
// the world pose of the bottom-left corner of cell (0, 0).
//
// Only Occupied cells stop robots and reflect laser beams; Unknown cells are
// avoided by the planner unless it is told otherwise. Everything outside the
// grid counts as occupied for robots and as empty space for the laser.
type Grid struct {
	Width, Height int
	Resolution    float64
	Origin        Pose

	cells      []Cell
	sin, cos   float64 // of Origin.Yaw, cached for the hot paths
	rotated    bool
	invResolut float64
}

// NewGrid returns a grid of free cells, or an error naming the bad argument.
func NewGrid(width, height int, resolution float64, origin Pose) (*Grid, error) {
	switch {
	case width <= 0 || height <= 0:
		return nil, fmt.Errorf("grid size %dx%d: both must be > 0", width, height)
	case width > 1<<15 || height > 1<<15:
		return nil, fmt.Errorf("grid size %dx%d: at most %d cells a side", width, height, 1<<15)
	case !(resolution > 0) || math.IsInf(resolution, 0):
		return nil, fmt.Errorf("grid resolution %v: must be a positive number of metres", resolution)
	}
	g := &Grid{Width: width, Height: height, Resolution: resolution, Origin: origin, cells: make([]Cell, width*height)}
	g.init()
	return g, nil
}

func (g *Grid) init() {
	g.sin, g.cos = math.Sincos(g.Origin.Yaw)
	g.rotated = g.Origin.Yaw != 0
	g.invResolut = 1 / g.Resolution
}

// Clone returns an independent copy of the grid.
func (g *Grid) Clone() *Grid {
	c := *g
	c.cells = append([]Cell(nil), g.cells...)
	return &c
}

// In reports whether (i, j) is a cell of the grid.
func (g *Grid) In(i, j int) bool {
	return i >= 0 && j >= 0 && i < g.Width && j < g.Height
}

// At returns the state of cell (i, j); cells outside the grid are Occupied.
func (g *Grid) At(i, j int) Cell {
	if !g.In(i, j) {
		return Occupied
	}
	return g.cells[j*g.Width+i]
}

// Set sets the state of cell (i, j); cells outside the grid are ignored.
func (g *Grid) Set(i, j int, c Cell) {
	if g.In(i, j) {
		g.cells[j*g.Width+i] = c
	}
}

// toGrid converts world coordinates to continuous grid coordinates, in cells
// from the bottom-left corner of cell (0, 0).
func (g *Grid) toGrid(x, y float64) (gx, gy float64) {
	dx, dy := x-g.Origin.X, y-g.Origin.Y
	if g.rotated {
		dx, dy = g.cos*dx+g.sin*dy, -g.sin*dx+g.cos*dy
	}
	return dx * g.invResolut, dy * g.invResolut
}

// fromGrid converts continuous grid coordinates to world coordinates.
func (g *Grid) fromGrid(gx, gy float64) (x, y float64) {
	dx, dy := gx*g.Resolution, gy*g.Resolution
	if g.rotated {
		dx, dy = g.cos*dx-g.sin*dy, g.sin*dx+g.cos*dy
	}
	return g.Origin.X + dx, g.Origin.Y + dy
}

// CellOf returns the cell that holds the world point (x, y) and whether that
// cell is inside the grid.
func (g *Grid) CellOf(x, y float64) (i, j int, ok bool) {
	gx, gy := g.toGrid(x, y)
	i, j = int(math.Floor(gx)), int(math.Floor(gy))
	return i, j, g.In(i, j)
}

// CellCenter returns the world coordinates of the centre of cell (i, j).
func (g *Grid) CellCenter(i, j int) (x, y float64) {
	return g.fromGrid(float64(i)+0.5, float64(j)+0.5)
}

// Size returns the grid's extent in metres along its own x and y axes.
func (g *Grid) Size() (w, h float64) {
	return float64(g.Width) * g.Resolution, float64(g.Height) * g.Resolution
}

// OccupancyData returns the cells as nav_msgs/OccupancyGrid data: 0 free,
// 100 occupied, -1 unknown, in the grid's row order.
func (g *Grid) OccupancyData() []int8 {
	out := make([]int8, len(g.cells))
	for k, c := range g.cells {
		switch c {
		case Occupied:
			out[k] = 100
		case Unknown:
			out[k] = -1
		}
	}
	return out
}

// FillRect sets every cell that overlaps the world rectangle r (touching its
// edge is not overlapping). On a rotated map, the cells whose centres lie
// inside r.
func (g *Grid) FillRect(r Rect, c Cell) {
	if !g.rotated {
		lx, ly := g.toGrid(r.MinX, r.MinY)
		hx, hy := g.toGrid(r.MaxX, r.MaxY)
		i0, j0 := max(int(math.Floor(lx)), 0), max(int(math.Floor(ly)), 0)
		i1, j1 := min(int(math.Ceil(hx))-1, g.Width-1), min(int(math.Ceil(hy))-1, g.Height-1)
		for j := j0; j <= j1; j++ {
			for i := i0; i <= i1; i++ {
				g.cells[j*g.Width+i] = c
			}
		}
		return
	}
	i0, j0, i1, j1 := g.cellBox(r.MinX, r.MinY, r.MaxX, r.MaxY)
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			x, y := g.CellCenter(i, j)
			if x >= r.MinX && x <= r.MaxX && y >= r.MinY && y <= r.MaxY {
				g.Set(i, j, c)
			}
		}
	}
}

// cellBox returns the range of cells, clipped to the grid, that may hold a
// point of the world box (the box's corners are transformed, so it holds for
// a rotated map too). i1 < i0 when nothing is inside.
func (g *Grid) cellBox(minX, minY, maxX, maxY float64) (i0, j0, i1, j1 int) {
	gxs := [4]float64{}
	gys := [4]float64{}
	gxs[0], gys[0] = g.toGrid(minX, minY)
	gxs[1], gys[1] = g.toGrid(maxX, minY)
	gxs[2], gys[2] = g.toGrid(minX, maxY)
	gxs[3], gys[3] = g.toGrid(maxX, maxY)
	lx, ly, hx, hy := gxs[0], gys[0], gxs[0], gys[0]
	for k := 1; k < 4; k++ {
		lx, hx = math.Min(lx, gxs[k]), math.Max(hx, gxs[k])
		ly, hy = math.Min(ly, gys[k]), math.Max(hy, gys[k])
	}
	i0, j0 = max(int(math.Floor(lx)), 0), max(int(math.Floor(ly)), 0)
	i1, j1 = min(int(math.Floor(hx)), g.Width-1), min(int(math.Floor(hy)), g.Height-1)
	return
}

// clearance returns the distance from the world point (x, y) to the nearest
// occupied cell or to the edge of the grid, looking no further than limit;
// it returns limit when nothing is that close. A cell counts as its full
// square, so a robot of radius r at (x, y) overlaps a wall iff clearance < r.
func (g *Grid) clearance(x, y, limit float64) float64 {
	gx, gy := g.toGrid(x, y)
	lc := limit * g.invResolut
	best := lc
	// The grid's edge is a wall.
	best = math.Min(best, math.Min(math.Min(gx, gy), math.Min(float64(g.Width)-gx, float64(g.Height)-gy)))
	if best <= 0 {
		return 0
	}
	i0, j0 := max(int(math.Floor(gx-lc)), 0), max(int(math.Floor(gy-lc)), 0)
	i1, j1 := min(int(math.Floor(gx+lc)), g.Width-1), min(int(math.Floor(gy+lc)), g.Height-1)
	for j := j0; j <= j1; j++ {
		dy := 0.0
		if fy := float64(j); gy < fy {
			dy = fy - gy
		} else if gy > fy+1 {
			dy = gy - fy - 1
		}
		if dy >= best {
			continue
		}
		row := g.cells[j*g.Width : (j+1)*g.Width]
		for i := i0; i <= i1; i++ {
			if row[i] != Occupied {
				continue
			}
			dx := 0.0
			if fx := float64(i); gx < fx {
				dx = fx - gx
			} else if gx > fx+1 {
				dx = gx - fx - 1
			}
			if d := math.Hypot(dx, dy); d < best {
				best = d
			}
		}
	}
	return best * g.Resolution
}

// nearestOccupied returns the centre of the occupied cell nearest to (x, y)
// within limit metres, for the bumper's contact bearing.
func (g *Grid) nearestOccupied(x, y, limit float64) (cx, cy float64, ok bool) {
	i0, j0, i1, j1 := g.cellBox(x-limit, y-limit, x+limit, y+limit)
	best := math.Inf(1)
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			if g.cells[j*g.Width+i] != Occupied {
				continue
			}
			px, py := g.CellCenter(i, j)
			if d := math.Hypot(px-x, py-y); d < best {
				best, cx, cy, ok = d, px, py, true
			}
		}
	}
	return
}
