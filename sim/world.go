package sim

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
)

// WorldConf configures a World. Zero fields take the defaults in brackets.
type WorldConf struct {
	// Map is the static occupancy grid (required for NewWorld).
	Map *Grid
	// Places are the world's named places (optional).
	Places *Places
	// PhysicsStep is the fixed step at which robots are integrated [20 ms,
	// 50 Hz]. Sensors sample at the first step at or after their due time.
	PhysicsStep time.Duration
	// Seed seeds every random draw (odometry noise, wheel slip, laser noise);
	// each robot draws from its own stream derived from Seed and its name.
	Seed uint64
	// TrailSpacing is the distance in metres between recorded trail points
	// [0.05]; TrailLimit the number of points kept per robot before the
	// trail is thinned to every other point [20000].
	TrailSpacing float64
	TrailLimit   int
}

// World is a map with robots on it, advanced by Step. It starts no
// goroutines and is not safe for concurrent use: the caller serialises Step
// with every other call on the world and its robots.
type World struct {
	conf      WorldConf
	static    *Grid
	live      *Grid     // static plus obstacles
	field     []float32 // distance field of live, for the laser
	revision  uint64
	obstacles []Obstacle
	docks     []Dock
	robots    []*Robot

	ticks int64
	now   time.Duration
	acc   time.Duration
}

// NewWorld returns a world with no robots at time 0.
func NewWorld(conf WorldConf) (*World, error) {
	if conf.Map == nil {
		return nil, fmt.Errorf("world: missing Map")
	}
	if conf.PhysicsStep == 0 {
		conf.PhysicsStep = 20 * time.Millisecond
	}
	if conf.PhysicsStep < 0 {
		return nil, fmt.Errorf("world PhysicsStep %v: must be > 0", conf.PhysicsStep)
	}
	if conf.TrailSpacing == 0 {
		conf.TrailSpacing = 0.05
	}
	if conf.TrailSpacing < 0 || isNaNOrInf(conf.TrailSpacing) {
		return nil, fmt.Errorf("world TrailSpacing %v: must be >= 0", conf.TrailSpacing)
	}
	if conf.TrailLimit == 0 {
		conf.TrailLimit = 20000
	}
	if conf.TrailLimit < 2 {
		return nil, fmt.Errorf("world TrailLimit %d: must be >= 2", conf.TrailLimit)
	}
	if conf.Places == nil {
		conf.Places = &Places{}
	}
	w := &World{conf: conf, static: conf.Map.Clone()}
	w.docks = append(w.docks, conf.Places.Docks...)
	w.rebuildLive()
	w.revision = 0
	return w, nil
}

// LoadWorld loads a world from disk and returns NewWorld(conf) with its map
// and places filled in. path is either a directory holding places.yaml (whose
// map key names the map YAML; when absent, <directory name>.yaml), or a
// map_server YAML file, with places.yaml beside it used if present. Every
// place must lie on free space of the map; errors name the file and line.
func LoadWorld(path string, conf WorldConf) (*World, error) {
	var mapPath, placesPath string
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		placesPath = filepath.Join(path, "places.yaml")
		mapPath = filepath.Join(path, filepath.Base(filepath.Clean(path))+".yaml")
	} else {
		mapPath = path
		placesPath = filepath.Join(filepath.Dir(path), "places.yaml")
		if _, err := os.Stat(placesPath); err != nil {
			placesPath = ""
		}
	}
	pl := &Places{}
	if placesPath != "" {
		if pl, err = places.Load(placesPath); err != nil {
			return nil, err
		}
		if pl.Map != "" && st.IsDir() {
			mapPath = pl.Map
			if !filepath.IsAbs(mapPath) {
				mapPath = filepath.Join(path, mapPath)
			}
		}
	}
	g, err := LoadMap(mapPath)
	if errors.Is(err, fs.ErrNotExist) && st.IsDir() {
		if pl.Map != "" {
			return nil, fileErr(pl.MapPos, "map", "%s", fileProblem(err))
		}
		return nil, fmt.Errorf("world %s: no map: %s has no map key and %s does not exist", path, placesPath, mapPath)
	}
	if err != nil {
		return nil, err
	}
	if err := checkPlaces(pl, g); err != nil {
		return nil, err
	}
	conf.Map, conf.Places = g, pl
	return NewWorld(conf)
}

// checkPlaces reports the first place that is off the map or on an
// occupied cell.
func checkPlaces(p *Places, g *Grid) error {
	check := func(field string, at runtime.Pos, pose Pose) error {
		i, j, ok := g.CellOf(pose.X, pose.Y)
		if !ok {
			return fileErr(at, field, "(%.2f, %.2f) is off the map", pose.X, pose.Y)
		}
		if c := g.At(i, j); c == Occupied {
			return fileErr(at, field, "(%.2f, %.2f) is on an occupied cell of the map", pose.X, pose.Y)
		}
		return nil
	}
	for k, s := range p.Spawns {
		if err := check(fmt.Sprintf("spawns[%d].pose", k), s.Pos, s.Pose); err != nil {
			return err
		}
	}
	for k, s := range p.Waypoints {
		if err := check(fmt.Sprintf("waypoints[%d].pose", k), s.Pos, s.Pose); err != nil {
			return err
		}
	}
	for k, d := range p.Docks {
		if err := check(fmt.Sprintf("docks[%d].pose", k), d.Pos, d.Pose); err != nil {
			return err
		}
		if err := check(fmt.Sprintf("docks[%d].approach", k), d.Pos, d.Approach); err != nil {
			return err
		}
	}
	return nil
}

// Map returns the world's static map (without placed obstacles).
func (w *World) Map() *Grid { return w.static }

// Occupancy returns the grid robots move in (the map plus placed obstacles)
// and its revision, which changes whenever obstacles are placed or removed.
// The grid must not be modified.
func (w *World) Occupancy() (*Grid, uint64) { return w.live, w.revision }

// Places returns the world's named places.
func (w *World) Places() *Places { return w.conf.Places }

// Conf returns the world's configuration with defaults filled in.
func (w *World) Conf() WorldConf { return w.conf }

// Now returns the simulation time: the number of physics steps taken times
// PhysicsStep.
func (w *World) Now() time.Duration { return w.now }

// Robots returns the robots in the order they were added.
func (w *World) Robots() []*Robot { return append([]*Robot(nil), w.robots...) }

// Robot returns the robot called name.
func (w *World) Robot(name string) (*Robot, bool) {
	for _, r := range w.robots {
		if r.conf.Name == name {
			return r, true
		}
	}
	return nil, false
}

// Docks returns the world's docking stations.
func (w *World) Docks() []Dock { return append([]Dock(nil), w.docks...) }

// AddDock adds a docking station; its name must be new.
func (w *World) AddDock(d Dock) error {
	if d.Name == "" {
		return fmt.Errorf("add dock: missing name")
	}
	if _, ok := w.dock(d.Name); ok {
		return fmt.Errorf("add dock %q: a dock with that name exists", d.Name)
	}
	w.docks = append(w.docks, d)
	return nil
}

func (w *World) dock(name string) (Dock, bool) {
	for _, d := range w.docks {
		if d.Name == name {
			return d, true
		}
	}
	return Dock{}, false
}

func (w *World) dockNames() string {
	if len(w.docks) == 0 {
		return "no docks"
	}
	names := make([]string, len(w.docks))
	for k, d := range w.docks {
		names[k] = fmt.Sprintf("%q", d.Name)
	}
	return strings.Join(names, ", ")
}

// AddRobot puts a robot on the map at conf.Spawn. The name must be new and
// the spawn pose clear of walls, obstacles and other robots.
func (w *World) AddRobot(conf RobotConf) (*Robot, error) {
	conf, err := conf.withDefaults()
	if err != nil {
		return nil, err
	}
	if _, dup := w.Robot(conf.Name); dup {
		return nil, fmt.Errorf("add robot %q: a robot with that name exists", conf.Name)
	}
	r := &Robot{w: w, conf: conf, pose: conf.Spawn}
	if c, other := w.collides(r, r.pose); c {
		if other != nil {
			return nil, fmt.Errorf("add robot %q: spawn pose %v overlaps robot %s at %v", conf.Name, conf.Spawn, other.conf.Name, other.pose)
		}
		return nil, fmt.Errorf("add robot %q: spawn pose %v is off the map or within %.2f m (its radius) of a wall or obstacle", conf.Name, conf.Spawn, conf.Radius)
	}
	h := fnv.New64a()
	h.Write([]byte(conf.Name))
	r.rng = rand.New(rand.NewPCG(w.conf.Seed, h.Sum64()))
	r.battery = battery{conf: conf.Battery, level: conf.Battery.Initial, status: StatusDischarging}
	r.laserConf = conf.Laser
	r.initLaser()
	r.odom.Stamp = w.now
	r.trail = []Pose{r.pose}
	w.robots = append(w.robots, r)
	return r, nil
}

// Step advances the world by dt of simulated time in fixed physics steps;
// a remainder shorter than a step is carried into the next call, so any
// sequence of Steps adding up to the same time gives the same result.
// Non-positive dt does nothing.
func (w *World) Step(dt time.Duration) {
	if dt <= 0 {
		return
	}
	w.acc += dt
	for w.acc >= w.conf.PhysicsStep {
		w.acc -= w.conf.PhysicsStep
		w.tick()
	}
}

// tick runs one physics step: all robots move (in the order they were
// added), then the sensors that are due sample the new state.
func (w *World) tick() {
	w.ticks++
	w.now = time.Duration(w.ticks) * w.conf.PhysicsStep
	dt := w.conf.PhysicsStep.Seconds()
	for _, r := range w.robots {
		r.physics(dt)
	}
	for _, r := range w.robots {
		r.recordTrail()
		if r.laserConf.Disabled {
			continue
		}
		// Scans fall on the first step at or after each multiple of the
		// scan period from the first scan, so the average rate is exact
		// even when the period is not a whole number of steps.
		if r.scans == 0 {
			r.scanAt = w.now
		}
		if w.now >= r.scanAt+time.Duration(r.scans)*r.laserConf.period() {
			r.scan = w.castScan(r)
			r.scans++
		}
	}
}

// collides reports whether robot r at pose p would overlap a wall, an
// obstacle, the map's edge or another robot (returned when it is one).
func (w *World) collides(r *Robot, p Pose) (bool, *Robot) {
	if w.live.clearance(p.X, p.Y, r.conf.Radius) < r.conf.Radius {
		return true, nil
	}
	for _, o := range w.robots {
		if o == r {
			continue
		}
		if math.Hypot(o.pose.X-p.X, o.pose.Y-p.Y) < o.conf.Radius+r.conf.Radius {
			return true, o
		}
	}
	return false, nil
}

// clearance returns the free distance around robot r's centre at p (to
// walls, obstacles, the map edge or another robot's edge), up to limit.
// Clearance returns the distance (m) from the robot's footprint to the
// nearest obstacle — a wall of the map, a placed obstacle, another robot —
// looking no further than limit metres beyond the footprint: limit when
// nothing is nearer, 0 in contact.
func (w *World) Clearance(r *Robot, limit float64) float64 {
	return max(0, min(limit, w.clearance(r, r.pose, limit+r.conf.Radius)-r.conf.Radius))
}

func (w *World) clearance(r *Robot, p Pose, limit float64) float64 {
	d := w.live.clearance(p.X, p.Y, limit)
	for _, o := range w.robots {
		if o != r {
			d = math.Min(d, math.Hypot(o.pose.X-p.X, o.pose.Y-p.Y)-o.conf.Radius)
		}
	}
	return d
}
