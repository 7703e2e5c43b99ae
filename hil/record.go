package hil

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

// forever is simnode's RealTime until for good.
const forever = simnode.Forever

// recorder watches a run for the expectations: the simulator's state at
// every sample (on the simulator's goroutine, between two physics steps,
// so at the same simulated times on every run), the trees' transitions and
// ticks (on the ticks' goroutines). Everything is kept with its simulated
// time, and judged against each robot's end afterwards.
type recorder struct {
	s      *Scenario
	robots []*robotRecord
	watch  []watched // the places visits expectations name

	// h is what the faults of the controller's world act on.
	h *harness
	// near is how near an obstacle the speed is kept (0: not kept);
	// steady says the process is read every readEvery (simulated time).
	near                   float64
	steady                 bool
	readEvery, nextReading time.Duration

	mu          sync.Mutex
	faultErrors []Verdict       // faults the world refused
	strikes     []strike        // faults applied, in order
	nearDone    []bool          // per fault: a near trigger has fired
	leaving     map[string]bool // controllers struck that have not left the lockstep yet
	markers     []marker        // the robots' debuggers that draw marks (the studio's)
	epoch       time.Time       // the simulator's time zero, on the trees' clock
}

// marker is a debugger that draws events on its run's timeline, as the
// browser studio's does (studio.Server.Debugger): kind is fault, pass or
// fail; at is on the tree's clock.
type marker interface {
	Mark(at time.Time, kind, label, text string)
}

// mark adds a robot's debugger to those the faults and verdicts are
// drawn on.
func (rec *recorder) mark(m marker) {
	rec.mu.Lock()
	rec.markers = append(rec.markers, m)
	rec.mu.Unlock()
}

// markVerdicts draws the verdicts at the time the run was judged, the
// same mark on every robot's run: failed when any verdict failed, its
// text the failed ones, else how many held.
func (rec *recorder) markVerdicts(at time.Time, vs []Verdict) {
	rec.mu.Lock()
	markers := slices.Clone(rec.markers)
	rec.mu.Unlock()
	if len(markers) == 0 {
		return
	}
	var failed []string
	for _, v := range vs {
		if !v.Pass {
			failed = append(failed, v.String())
		}
	}
	kind, label, text := "pass", "✓", fmt.Sprintf("all %d expectations held", len(vs))
	if len(failed) > 0 {
		kind, label, text = "fail", "✗", fmt.Sprintf("%d of %d expectations failed: %s", len(failed), len(vs), strings.Join(failed, "; "))
	}
	for _, m := range markers {
		m.Mark(at, kind, label, text)
	}
}

// harness is what a run's faults of the controller's world act on.
type harness struct {
	node *simnode.Node
	// shutdownNode has the master shut a node down (mission.Simulator's).
	shutdownNode func(name, reason string) error
}

type strike struct {
	at    time.Duration
	text  string
	robot string // "" for the world
	// x, y is where the fault struck: its robot's position (the first
	// robot's for a fault on the world).
	x, y float64
}

// strike applies a fault to the world, on the simulator's goroutine.
func (rec *recorder) strike(f Fault, w *sim.World) {
	var err error
	if f.ctl != nil {
		err = rec.strikeController(f, w)
	} else {
		err = f.apply(w)
	}
	st := strike{at: w.Now(), text: f.Text, robot: f.Robot}
	name := f.Robot
	if name == "" && len(rec.s.Robots) > 0 {
		name = rec.s.Robots[0].Name
	}
	if r, ok := w.Robot(name); ok {
		p := r.Pose()
		st.x, st.y = p.X, p.Y
	}
	rec.mu.Lock()
	rec.strikes = append(rec.strikes, st)
	label := fmt.Sprintf("F%d", len(rec.strikes)) // as the report's pictures number them
	markers, at := slices.Clone(rec.markers), rec.epoch.Add(st.at)
	rec.mu.Unlock()
	for _, m := range markers {
		m.Mark(at, "fault", label, f.Text)
	}
	if err != nil {
		rec.faultError(f, err)
	}
}

// struck returns the faults applied so far, with their simulated times.
func (rec *recorder) struck() []strike {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.strikes)
}

// trigger strikes the near faults whose robot has come close enough, once
// each; on the simulator's goroutine.
func (rec *recorder) trigger(w *sim.World) {
	for i, f := range rec.s.Faults {
		if f.Near == nil || rec.nearDone[i] {
			continue
		}
		r, ok := w.Robot(f.Near.Robot)
		at, known := rec.s.placePose(f.Near.Place)
		if !ok || !known {
			continue
		}
		if p := r.Pose(); math.Hypot(p.X-at.X, p.Y-at.Y) <= f.Near.Within {
			rec.nearDone[i] = true
			rec.strike(f, w)
		}
	}
}

// robotRecord is what was seen of one robot.
type robotRecord struct {
	name  string
	nodes []Expectation // its node expectations

	mu      sync.Mutex
	end     time.Duration   // the simulated time of the mission's last tick
	reached []time.Duration // per node expectation: when first reached (-1: never)
	visits  []visit         // entries into a place's visit radius, in order
	inside  map[string]bool // the places the robot is within the radius of
	whens   []Fault         // faults its tree triggers, not yet struck
	entries []Fault         // faults its blackboard triggers, not yet struck
	stall   atomic.Int64    // a stall to take in the next tick (ns)
	faultAt time.Duration   // when the first fault on it or the world struck
	faulted bool            // ... if one did
	measured
	watchKeys   []string     // the entries period_stable watches
	res         []resources  // readings of the process, for steady
	battery     []level      // the charge at each sample
	moving      []motion     // changes between moving and at rest
	hits        []level      // changes of the collision count
	track       []TrackPoint // the pose at each sample
	nodeChanges []NodeChange // the tree's transitions, up to maxChanges
}

// maxChanges bounds the transitions a run keeps of each robot for its
// report.
const maxChanges = 20000

type watched struct {
	name string
	pose places.Pose
}

type visit struct {
	place string
	at    time.Duration
}

type level struct {
	at time.Duration
	v  float64
}

type motion struct {
	at     time.Duration
	moving bool
}

func newRecorder(s *Scenario) *recorder {
	rec := &recorder{s: s, nearDone: make([]bool, len(s.Faults)), leaving: map[string]bool{}}
	for _, r := range s.Robots {
		rr := &robotRecord{name: r.Name, inside: map[string]bool{}}
		rr.changes, rr.lastVal = map[string][]time.Duration{}, map[string]float64{}
		for _, e := range s.Expect {
			if e.Kind == "period_stable" && (e.Robot == "" || e.Robot == r.Name) && !slices.Contains(rr.watchKeys, e.More.Entry) {
				rr.watchKeys = append(rr.watchKeys, e.More.Entry)
			}
		}
		for _, e := range s.Expect {
			if e.Kind == "node" && (e.Robot == "" || e.Robot == r.Name) {
				rr.nodes = append(rr.nodes, e)
				rr.reached = append(rr.reached, -1)
			}
		}
		triggers := s.Faults
		for i, g := range s.Goals {
			if g.When != nil {
				// A goal's trigger: the faults' own code watches it
				// (runServed's strike sends it instead of striking).
				triggers = append(triggers[:len(triggers):len(triggers)], Fault{Pos: g.Pos, When: g.When, Robot: g.When.Robot, Text: g.String(), goal: i + 1})
			}
		}
		for _, f := range triggers {
			switch {
			case f.When != nil && f.When.Robot == r.Name && f.When.Entry != nil:
				rr.entries = append(rr.entries, f)
			case f.When != nil && f.When.Robot == r.Name:
				rr.whens = append(rr.whens, f)
			}
		}
		rec.robots = append(rec.robots, rr)
	}
	rec.near, rec.steady = rec.nearLimit(), rec.wantsSteady()
	rec.readEvery = max(samplePeriod, (s.TimeLimit+time.Minute)/100)
	for _, e := range s.Expect {
		for _, p := range e.Places {
			if slices.ContainsFunc(rec.watch, func(w watched) bool { return w.name == p }) {
				continue
			}
			if pose, ok := s.placePose(p); ok {
				rec.watch = append(rec.watch, watched{p, pose})
			}
		}
	}
	return rec
}

// robot returns the record of the robot of that name.
func (rec *recorder) robot(name string) *robotRecord {
	for _, rr := range rec.robots {
		if rr.name == name {
			return rr
		}
	}
	return nil
}

// firstStrike returns when the first fault that concerns the robot (its
// own, or one on the world) struck.
func (rec *recorder) firstStrike(robot string) (time.Duration, string, bool) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, st := range rec.strikes {
		if st.robot == "" || st.robot == robot {
			return st.at, st.text, true
		}
	}
	return 0, "", false
}

func (rec *recorder) faultError(f Fault, err error) {
	rec.mu.Lock()
	rec.faultErrors = append(rec.faultErrors, Verdict{
		Expectation: Expectation{Pos: f.Pos, Kind: "fault", Text: f.Text}, Robot: f.Robot,
		Measured: "the simulator refused it: " + err.Error(),
	})
	rec.mu.Unlock()
}

// restWindow is the longest at_rest window after a mission's end.
func (rec *recorder) restWindow() time.Duration {
	var d time.Duration
	for _, e := range rec.s.Expect {
		if e.Kind == "at_rest" {
			d = max(d, e.Within)
		}
	}
	return d
}

// settle is the simulated time the harness must see for every expectation
// to be judged: the missions' ends and the at_rest windows after them.
func (rec *recorder) settle() time.Duration {
	var end time.Duration
	for _, rr := range rec.robots {
		rr.mu.Lock()
		end = max(end, rr.end)
		rr.mu.Unlock()
	}
	t := end + endGrace
	for _, e := range rec.s.Expect {
		if e.Kind == "at_rest" {
			switch e.After {
			case afterEnd:
				t = max(t, end+e.Within+endGrace)
			case afterFault:
				for _, rr := range rec.robots {
					if at, _, ok := rec.firstStrike(rr.name); ok {
						t = max(t, at+e.Within+endGrace)
					}
				}
			default:
				t = max(t, e.After+e.Within+endGrace)
			}
		}
	}
	return t
}

// sample looks at every robot; it runs on the simulator's goroutine with
// the world to itself.
func (rec *recorder) sample(w *sim.World) {
	rec.trigger(w)
	now := w.Now()
	var res *resources
	if rec.steady && now >= rec.nextReading {
		r := readResources(now)
		res = &r
		rec.nextReading = now + rec.readEvery
	}
	for _, rr := range rec.robots {
		r, ok := w.Robot(rr.name)
		if !ok {
			continue
		}
		rr.observe(rec, now, reading{pose: r.Pose(), twist: r.Twist(), battery: r.Battery().Percentage, collisions: r.Collisions()})
		rr.mu.Lock()
		if rec.near > 0 {
			rr.measureNear(w, r, rec.near, now)
		}
		if res != nil {
			rr.res = append(rr.res, *res)
		}
		rr.mu.Unlock()
	}
}

// reading is what the harness sees of a robot at a sample: in the
// simulator, or on an external target's topics.
type reading struct {
	pose       sim.Pose
	twist      sim.Twist
	battery    float64
	collisions int
}

// observe records one sample of the robot at now.
func (rr *robotRecord) observe(rec *recorder, now time.Duration, r reading) {
	pose, tw := r.pose, r.twist
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for _, p := range rec.watch {
		in := math.Hypot(pose.X-p.pose.X, pose.Y-p.pose.Y) <= rec.s.VisitRadius
		if in && !rr.inside[p.name] {
			rr.visits = append(rr.visits, visit{p.name, now})
		}
		rr.inside[p.name] = in
	}
	if !math.IsNaN(r.battery) { // NaN: no reading yet
		rr.battery = append(rr.battery, level{now, r.battery})
	}
	rr.track = append(rr.track, TrackPoint{At: now, X: pose.X, Y: pose.Y, Yaw: pose.Yaw})
	moving := math.Abs(tw.Linear) > restSpeed || math.Abs(tw.Angular) > restSpeed
	if n := len(rr.moving); n == 0 || rr.moving[n-1].moving != moving {
		rr.moving = append(rr.moving, motion{now, moving})
	}
	if c := float64(r.collisions); len(rr.hits) == 0 || rr.hits[len(rr.hits)-1].v != c {
		rr.hits = append(rr.hits, level{now, c})
	}
}

// ticked records a tick of the robot's tree at simulated time now.
func (rr *robotRecord) ticked(now time.Duration) {
	rr.mu.Lock()
	rr.end = max(rr.end, now)
	rr.mu.Unlock()
}

// transition records a node's transition for the node expectations and
// the report.
// transitions notes a batch of transitions (at: since epoch) and returns
// the faults they trigger, each once, in order.
func (rr *robotRecord) transitions(batch []runtime.Transition, epoch time.Time) []Fault {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	var out []Fault
	for i := range batch {
		t := &batch[i]
		path := t.Node.Path()
		rr.transitionLocked(path, t.From, t.To, t.Time.Sub(epoch))
		out = append(out, rr.firedLocked(path, t.To)...)
	}
	return out
}

func (rr *robotRecord) transitionLocked(path string, from, to runtime.Status, at time.Duration) {
	if len(rr.nodeChanges) < maxChanges {
		rr.nodeChanges = append(rr.nodeChanges, NodeChange{At: at, Robot: rr.name, Path: path, From: from, To: to})
	}
	for i, e := range rr.nodes {
		if rr.reached[i] < 0 && to == e.Status && pathEnds(path, e.Node) {
			rr.reached[i] = at
		}
	}
}

// firedLocked returns the faults a node's transition triggers, each once.
func (rr *robotRecord) firedLocked(path string, to runtime.Status) []Fault {
	var out []Fault
	rr.whens = slices.DeleteFunc(rr.whens, func(f Fault) bool {
		if to == f.When.Status && pathEnds(path, f.When.Node) {
			out = append(out, f)
			return true
		}
		return false
	})
	return out
}

// pathEnds reports whether a node's path is end or ends with "/"+end.
func pathEnds(path, end string) bool {
	return path == end || strings.HasSuffix(path, "/"+end)
}

// judge gives each expectation its verdicts, one per robot it is about.
func (rec *recorder) judge(reps []mission.Report) []Verdict {
	var out []Verdict
	rec.mu.Lock()
	out = append(out, rec.faultErrors...)
	rec.mu.Unlock()
	for _, rr := range rec.robots {
		at, _, ok := rec.firstStrike(rr.name)
		rr.mu.Lock()
		rr.faultAt, rr.faulted = at, ok
		rr.mu.Unlock()
	}
	for _, e := range rec.s.Expect {
		for i, rr := range rec.robots {
			if e.Robot != "" && e.Robot != rr.name {
				continue
			}
			pass, measured := rr.judge(e, reps[i])
			out = append(out, Verdict{Expectation: e, Robot: rr.name, Pass: pass, Measured: measured})
		}
	}
	return out
}

// why says why a mission failed or aborted, after a colon, for a verdict
// that reads on one line: the deepest node of its explanation (the leaf
// whose result decided the outcome, with its reason) or the error that
// aborted it. Nothing for a mission that succeeded or was stopped (its
// outcome already says by what), nor for a failure with no explanation.
func why(rep mission.Report) string {
	switch {
	case rep.Outcome == mission.Failed && len(rep.Explanation) > 0:
		return ": " + rep.Explanation[len(rep.Explanation)-1].String()
	case rep.Outcome == mission.Aborted && rep.Err != nil:
		return ": " + rep.Err.Error()
	}
	return ""
}

func (rr *robotRecord) judge(e Expectation, rep mission.Report) (bool, string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	outcome := rep.Outcome.String()
	if rep.Outcome == mission.Stopped {
		outcome += " (" + rep.Why + ")"
	}
	switch e.Kind {
	case "outcome":
		ok := e.Outcome == rep.Outcome.String() || e.Outcome == "done" && rep.OK()
		return ok, fmt.Sprintf("%s at %v", outcome, rr.end) + why(rep)
	case "ends_within":
		if rep.Outcome == mission.Stopped && !rep.Done {
			return false, outcome + ", still running at " + rr.end.String()
		}
		return rr.end <= e.Within, fmt.Sprintf("%s at %v", outcome, rr.end) + why(rep)
	case "visits", "visits_in_order":
		return rr.judgeVisits(e)
	case "collisions_at_most":
		n, at := 0.0, time.Duration(0)
		for _, h := range rr.hits {
			if h.at <= rr.end+endGrace {
				n, at = h.v, h.at
			}
		}
		if n == 0 {
			return e.Count >= 0, "no collision"
		}
		return int(n) <= e.Count, fmt.Sprintf("%d collisions, the last at %v", int(n), at)
	case "battery_never_below":
		low := level{v: math.Inf(1)}
		for _, b := range rr.battery {
			if b.at <= rr.end && b.v < low.v {
				low = b
			}
		}
		if math.IsInf(low.v, 1) {
			return false, "no battery reading"
		}
		return low.v >= e.Level, fmt.Sprintf("lowest %.1f%% at %v", 100*low.v, low.at)
	case "at_rest":
		after := e.After
		switch after {
		case afterEnd:
			after = rr.end
		case afterFault:
			if !rr.faulted {
				return false, "no fault struck " + rr.name + " or the world"
			}
			after = rr.faultAt
		}
		rest := time.Duration(-1)
		for _, m := range rr.moving {
			switch {
			case m.at <= after:
				rest = map[bool]time.Duration{true: -1, false: after}[m.moving]
			case rest < 0 && !m.moving:
				rest = m.at
			}
		}
		if rest < 0 {
			return false, fmt.Sprintf("still moving %v after %v", rr.lastSample()-after, after)
		}
		return rest-after <= e.Within, fmt.Sprintf("at rest %v after %v", rest-after, after)
	case "node":
		for i, n := range rr.nodes {
			if n.Pos != e.Pos {
				continue
			}
			at := rr.reached[i]
			switch {
			case at < 0 && e.Never:
				return true, "never reached " + e.Status.String()
			case at < 0:
				return false, "never reached " + e.Status.String()
			case e.Never:
				return false, fmt.Sprintf("reached %s at %v", e.Status, at)
			default:
				return true, fmt.Sprintf("reached %s at %v", e.Status, at)
			}
		}
	}
	if slices.Contains(measureKinds, e.Kind) {
		return rr.judgeMeasure(e, rep)
	}
	return false, "not judged: unknown expectation " + e.Kind
}

func (rr *robotRecord) lastSample() time.Duration {
	if len(rr.battery) == 0 {
		return 0
	}
	return rr.battery[len(rr.battery)-1].at
}

// judgeVisits: every place visited, or visited first in the order given.
func (rr *robotRecord) judgeVisits(e Expectation) (bool, string) {
	var seen []string
	var words []string
	for _, v := range rr.visits {
		if v.at <= rr.end && !slices.Contains(seen, v.place) {
			seen = append(seen, v.place)
			words = append(words, fmt.Sprintf("%s at %v", v.place, v.at))
		}
	}
	visited := "visited nothing"
	if len(words) > 0 {
		visited = "visited " + strings.Join(words, ", ")
	}
	var missing []string
	for _, p := range e.Places {
		if !slices.Contains(seen, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return false, visited + "; never " + strings.Join(missing, ", ")
	}
	if e.Kind == "visits_in_order" {
		// The order in which the listed places were first reached.
		var order []string
		for _, p := range seen {
			if slices.Contains(e.Places, p) {
				order = append(order, p)
			}
		}
		if !slices.Equal(order, e.Places) {
			return false, visited + "; out of order: " + strings.Join(order, ", ")
		}
	}
	return true, visited
}
