package sim

import (
	"errors"
	"fmt"
	"math"
)

// ErrNoPath is wrapped by every planning failure: the goal is off the map,
// in or too near an obstacle, or not reachable from the start.
var ErrNoPath = errors.New("no path")

// OccupancySource provides the grid a planner plans on, and a revision that
// changes whenever the grid does. A *Grid is a source that never changes; a
// *World is one that changes when obstacles are placed or removed.
type OccupancySource interface {
	Occupancy() (*Grid, uint64)
}

// Occupancy returns the grid itself at revision 0, making a Grid an
// OccupancySource.
func (g *Grid) Occupancy() (*Grid, uint64) { return g, 0 }

// PlannerConf configures a Planner. Zero fields take the defaults in brackets.
type PlannerConf struct {
	// Map is the grid to plan on (required).
	Map *Grid
	// RobotRadius in metres [0.18]: cells closer than that to an obstacle are
	// lethal (the robot would touch it).
	RobotRadius float64
	// InflationMargin in metres [0.25]: cells within RobotRadius +
	// InflationMargin of an obstacle cost more the closer they are, so paths
	// keep to the middle of corridors and doorways.
	InflationMargin float64
	// CostWeight scales that cost [4]: a cell at the lethal edge costs
	// 1+CostWeight times its length.
	CostWeight float64
	// AllowUnknown lets paths cross unknown cells, which otherwise count as
	// obstacles.
	AllowUnknown bool
}

// Planner plans shortest paths for a circular robot with A* on an inflated
// 8-connected grid. It keeps the inflated costs of its map; build a new
// Planner when the map changes.
type Planner struct {
	conf   PlannerConf
	g      *Grid
	dist   []float64 // metres from a cell's centre to the nearest obstacle cell's centre
	cost   []float64 // extra cost per metre, +Inf when lethal
	lethal float64
}

// NewPlanner inflates conf.Map and returns a planner for it.
func NewPlanner(conf PlannerConf) (*Planner, error) {
	if conf.Map == nil {
		return nil, fmt.Errorf("planner: missing Map")
	}
	for _, f := range []struct {
		v    *float64
		d    float64
		name string
	}{
		{&conf.RobotRadius, 0.18, "RobotRadius"},
		{&conf.InflationMargin, 0.25, "InflationMargin"},
		{&conf.CostWeight, 4, "CostWeight"},
	} {
		if *f.v < 0 || isNaNOrInf(*f.v) {
			return nil, fmt.Errorf("planner %s: must be >= 0, got %v", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	g := conf.Map
	p := &Planner{conf: conf, g: g}
	// Distances are between cell centres; a robot centred in a cell touches
	// an obstacle cell's square up to half a diagonal sooner.
	p.lethal = conf.RobotRadius + g.Resolution*math.Sqrt2/2
	p.dist = distanceTransform(g, func(c Cell) bool { return c == Occupied || (c == Unknown && !conf.AllowUnknown) })
	infl := conf.RobotRadius + conf.InflationMargin
	p.cost = make([]float64, len(p.dist))
	for k, d := range p.dist {
		switch {
		case d < p.lethal:
			p.cost[k] = math.Inf(1)
		case d < infl:
			f := (infl - d) / (infl - p.lethal)
			p.cost[k] = conf.CostWeight * f * f
		}
	}
	return p, nil
}

// Clearance returns the distance in metres from the centre of the cell at
// (x, y) to the centre of the nearest obstacle cell (0 off the map).
func (p *Planner) Clearance(x, y float64) float64 {
	i, j, ok := p.g.CellOf(x, y)
	if !ok {
		return 0
	}
	return p.dist[j*p.g.Width+i]
}

// Plan returns a path from start to goal in world coordinates: start's
// position first, goal's pose last (at least these two), each pose but the
// last facing the next.
// It fails with an error wrapping ErrNoPath when the goal is off the map, too
// close to an obstacle for the robot, or unreachable.
func (p *Planner) Plan(start, goal Pose) ([]Pose, error) {
	g := p.g
	gi, gj, ok := g.CellOf(goal.X, goal.Y)
	if !ok {
		return nil, fmt.Errorf("%w: goal %v is off the map", ErrNoPath, goal)
	}
	goalIdx := gj*g.Width + gi
	if math.IsInf(p.cost[goalIdx], 1) {
		return nil, fmt.Errorf("%w: goal %v is %.2f m from an obstacle; the robot needs %.2f m", ErrNoPath, goal, p.dist[goalIdx], p.lethal)
	}
	si, sj, ok := g.CellOf(start.X, start.Y)
	if !ok {
		return nil, fmt.Errorf("%w: start %v is off the map", ErrNoPath, start)
	}
	startIdx := sj*g.Width + si
	if math.IsInf(p.cost[startIdx], 1) {
		// The robot is touching something (docked, or pushed against a
		// wall): start from the nearest cell it can plan from.
		idx, ok := p.escape(startIdx)
		if !ok {
			return nil, fmt.Errorf("%w: start %v is enclosed by obstacles", ErrNoPath, start)
		}
		startIdx = idx
	}
	cells, ok := p.astar(startIdx, goalIdx)
	if !ok {
		return nil, fmt.Errorf("%w: goal %v is not reachable from %v", ErrNoPath, goal, start)
	}
	path := make([]Pose, 0, len(cells)+2)
	path = append(path, Pose{X: start.X, Y: start.Y})
	for k := 1; k < len(cells)-1; k++ {
		x, y := g.CellCenter(cells[k]%g.Width, cells[k]/g.Width)
		path = append(path, Pose{X: x, Y: y})
	}
	path = append(path, goal) // even when start is goal: a path has two ends
	for k := 0; k+1 < len(path); k++ {
		path[k].Yaw = math.Atan2(path[k+1].Y-path[k].Y, path[k+1].X-path[k].X)
	}
	path[len(path)-1].Yaw = goal.Yaw
	return path, nil
}

// escape finds the nearest non-lethal cell reachable from idx through cells
// that are not obstacles, within a metre.
func (p *Planner) escape(idx int) (int, bool) {
	g := p.g
	limit := int(math.Ceil(1 / g.Resolution))
	seen := map[int]int{idx: 0}
	queue := []int{idx}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if !math.IsInf(p.cost[c], 1) {
			return c, true
		}
		if seen[c] >= limit {
			continue
		}
		i, j := c%g.Width, c/g.Width
		for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			ni, nj := i+d[0], j+d[1]
			n := nj*g.Width + ni
			if !g.In(ni, nj) || p.dist[n] == 0 {
				continue
			}
			if _, ok := seen[n]; !ok {
				seen[n] = seen[c] + 1
				queue = append(queue, n)
			}
		}
	}
	return 0, false
}

// openItem is a cell on A*'s open list with its estimated total cost f and
// its cost so far g.
type openItem struct {
	f, g float64
	idx  int
}

// before orders the open list: cheapest f first; among equals, the one
// furthest along (largest g), which keeps A* from fanning out over the many
// ties of a grid; then by cell index, so plans are deterministic.
func (a openItem) before(b openItem) bool {
	if a.f != b.f {
		return a.f < b.f
	}
	if a.g != b.g {
		return a.g > b.g
	}
	return a.idx < b.idx
}

// openSet is a binary min-heap of openItems.
type openSet []openItem

func (o *openSet) push(it openItem) {
	h := append(*o, it)
	k := len(h) - 1
	for k > 0 {
		p := (k - 1) / 2
		if !h[k].before(h[p]) {
			break
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
	*o = h
}

func (o *openSet) pop() openItem {
	h := *o
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	k := 0
	for {
		l := 2*k + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			m = r
		}
		if !h[m].before(h[k]) {
			break
		}
		h[k], h[m] = h[m], h[k]
		k = m
	}
	*o = h
	return top
}

// astar returns the cells of the cheapest path from start to goal.
// Not race-instrumented: see traceRay.
//
//go:norace
func (p *Planner) astar(start, goal int) ([]int, bool) {
	g := p.g
	w := g.Width
	n := len(p.cost)
	gScore := make([]float64, n)
	for k := range gScore {
		gScore[k] = posInf
	}
	parent := make([]int32, n)
	closed := make([]bool, n)
	res := g.Resolution
	gxI, gyI := goal%w, goal/w
	h := func(c int) float64 {
		dx, dy := float64(absInt(c%w-gxI)), float64(absInt(c/w-gyI))
		return res * (max(dx, dy) + (math.Sqrt2-1)*min(dx, dy))
	}
	gScore[start] = 0
	parent[start] = -1
	open := &openSet{}
	open.push(openItem{f: h(start), idx: start})
	type move struct {
		di, dj int
		length float64
	}
	moves := [8]move{{1, 0, res}, {-1, 0, res}, {0, 1, res}, {0, -1, res},
		{1, 1, res * math.Sqrt2}, {1, -1, res * math.Sqrt2}, {-1, 1, res * math.Sqrt2}, {-1, -1, res * math.Sqrt2}}
	for len(*open) > 0 {
		c := open.pop().idx
		if closed[c] {
			continue
		}
		if c == goal {
			var cells []int
			for k := c; k != -1; k = int(parent[k]) {
				cells = append(cells, k)
			}
			for a, b := 0, len(cells)-1; a < b; a, b = a+1, b-1 {
				cells[a], cells[b] = cells[b], cells[a]
			}
			return cells, true
		}
		closed[c] = true
		ci, cj := c%w, c/w
		for _, m := range moves {
			ni, nj := ci+m.di, cj+m.dj
			if !g.In(ni, nj) {
				continue
			}
			nb := nj*w + ni
			if closed[nb] || math.IsInf(p.cost[nb], 1) {
				continue
			}
			if m.di != 0 && m.dj != 0 {
				// No cutting corners between two lethal cells.
				if math.IsInf(p.cost[cj*w+ni], 1) || math.IsInf(p.cost[nj*w+ci], 1) {
					continue
				}
			}
			ng := gScore[c] + m.length*(1+(p.cost[c]+p.cost[nb])/2)
			if ng < gScore[nb] {
				gScore[nb] = ng
				parent[nb] = int32(c)
				open.push(openItem{f: ng + h(nb), g: ng, idx: nb})
			}
		}
	}
	return nil, false
}

// distanceTransform returns, for every cell, the Euclidean distance in
// metres from its centre to the nearest cell for which obstacle is true
// (+Inf if there is none), computed exactly in linear time with the
// lower-envelope-of-parabolas method of Felzenszwalb and Huttenlocher.
// Not race-instrumented: see traceRay.
//
//go:norace
func distanceTransform(g *Grid, obstacle func(Cell) bool) []float64 {
	w, h := g.Width, g.Height
	const inf = 1e20
	d := make([]float64, w*h)
	for k, c := range g.cells {
		if obstacle(c) {
			d[k] = 0
		} else {
			d[k] = inf
		}
	}
	n := max(w, h)
	f := make([]float64, n)
	out := make([]float64, n)
	v := make([]int, n)
	z := make([]float64, n+1)
	// Columns, then rows.
	for i := 0; i < w; i++ {
		for j := 0; j < h; j++ {
			f[j] = d[j*w+i]
		}
		dt1(f[:h], out[:h], v, z)
		for j := 0; j < h; j++ {
			d[j*w+i] = out[j]
		}
	}
	for j := 0; j < h; j++ {
		copy(f[:w], d[j*w:(j+1)*w])
		dt1(f[:w], out[:w], v, z)
		copy(d[j*w:(j+1)*w], out[:w])
	}
	for k := range d {
		if d[k] >= inf/2 {
			d[k] = math.Inf(1)
		} else {
			d[k] = math.Sqrt(d[k]) * g.Resolution
		}
	}
	return d
}

// dt1 is the one-dimensional squared distance transform of f into out.
// Not race-instrumented: see traceRay.
//
//go:norace
func dt1(f, out []float64, v []int, z []float64) {
	n := len(f)
	k := 0
	v[0] = 0
	z[0] = math.Inf(-1)
	z[1] = math.Inf(1)
	for q := 1; q < n; q++ {
		var s float64
		for {
			r := v[k]
			s = ((f[q] + float64(q*q)) - (f[r] + float64(r*r))) / float64(2*q-2*r)
			if s <= z[k] && k > 0 {
				k--
				continue
			}
			break
		}
		if s <= z[k] { // k == 0 and the new parabola dominates everywhere
			v[0] = q
			z[0] = math.Inf(-1)
			z[1] = math.Inf(1)
			continue
		}
		k++
		v[k] = q
		z[k] = s
		z[k+1] = math.Inf(1)
	}
	k = 0
	for q := 0; q < n; q++ {
		for z[k+1] < float64(q) {
			k++
		}
		r := v[k]
		out[q] = float64((q-r)*(q-r)) + f[r]
	}
}

// absInt is |x|, for astar's heuristic: math.Abs would take the float
// through an unsafe conversion that -race's pointer checks instrument even
// in a norace function (see traceRay).
func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
