package hil

import (
	"fmt"
	"math"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// More kinds of expectation (beside expect.go's), each measured on the
// simulator or on the controller:
//
//	speed_near_obstacles: {max: 0.5, within: 0.4}
//	                     never faster than 0.5 m/s while the robot's footprint was
//	                     within 0.4 m of an obstacle (a wall, a placed obstacle,
//	                     another robot), on the 100 ms samples
//	blackboard: {visits: 3, mode: "idle"}
//	                     the root blackboard's entries at the end, with its types
//	                     (3 matches a number, "3" only text; null: no entry)
//	no_errors: true      the controller logged no error: nothing at level error
//	                     or fatal on its ROS log (/rosout), no Log node at level
//	                     error, and the run did not end on an error (aborted)
//	steady: {goroutines: 20, heap: 16MB, after: 10m}
//	                     the process's goroutines and live heap (after a GC) grew
//	                     by at most that much from simulated time after to the end
//	period_stable: {entry: charges, tolerance: 0.1}
//	                     the intervals between changes of a numeric blackboard
//	                     entry (a cycle counter) all lie within 10% of their median

// measureKinds are this file's expectation keys.
var measureKinds = []string{"speed_near_obstacles", "blackboard", "no_errors", "steady", "period_stable"}

// measures are the parameters of this file's kinds.
type measures struct {
	MaxSpeed, Near float64      // speed_near_obstacles: m/s, m
	Entries        []EntryValue // blackboard
	Goroutines     int          // steady: the most goroutines it may grow by (-1: not judged)
	Heap           int64        // steady: the most bytes the heap may grow by (-1: not judged)
	SteadyAfter    time.Duration
	Entry          string  // period_stable
	Tolerance      float64 // period_stable
}

// EntryValue is a blackboard entry expected at the end.
type EntryValue struct {
	Key   string
	Value Scalar
}

// measured is what a robot's record keeps for this file's kinds, under
// its lock.
type measured struct {
	near    []nearSample               // samples within the largest "within" of an obstacle
	errors  []logged                   // errors the controller logged
	changes map[string][]time.Duration // period_stable: when each watched entry changed
	lastVal map[string]float64
}

type nearSample struct {
	at          time.Duration
	speed, gap  float64
	pose        sim.Pose
	hasObstacle bool
}

type logged struct {
	at   time.Duration // the last tick's time when it was logged
	text string
}

// resources is one reading of the process, for steady.
type resources struct {
	at         time.Duration
	goroutines int
	heap       uint64
}

func (d *decoder) measure(field string, v *yaml.Node, e *Expectation, s *Scenario) bool {
	m := &e.More
	switch e.Kind {
	case "speed_near_obstacles":
		okMax, okNear := false, false
		if !d.fields(field, v, []string{"max", "within"}, func(k string, c *yaml.Node) {
			f := join(field, k)
			n, ok := d.number(f, c)
			switch {
			case !ok:
			case k == "max" && (n <= 0 || n > 10):
				d.add(c, f, "want a speed in (0, 10] m/s, got %s", c.Value)
			case k == "within" && (n <= 0 || n > 10):
				d.add(c, f, "want metres in (0, 10], got %s", c.Value)
			case k == "max":
				m.MaxSpeed, okMax = n, true
			default:
				m.Near, okNear = n, true
			}
		}) {
			return false
		}
		if !hasKey(v, "max") || !hasKey(v, "within") {
			d.add(v, field, "want max: the fastest allowed (m/s) and within: how near an obstacle (m)")
			return false
		}
		return okMax && okNear
	case "blackboard":
		if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
			d.add(v, field, "want a mapping of entries and their values at the end ({visits: 3}), got %s", input.Describe(v))
			return false
		}
		ok := true
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, c := v.Content[i], v.Content[i+1]
			f := join(field, k.Value)
			if slices.ContainsFunc(m.Entries, func(ev EntryValue) bool { return ev.Key == k.Value }) {
				d.add(k, f, "given twice")
				ok = false
				continue
			}
			val, good := d.scalar(f, c)
			ok = ok && good
			m.Entries = append(m.Entries, EntryValue{k.Value, val})
		}
		return ok
	case "no_errors":
		if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" && v.Value == "true" {
			return true
		}
		d.add(v, field, "want true (the controller logged no error), got %s", input.Describe(v))
	case "steady":
		m.Goroutines, m.Heap = -1, -1
		ok := true
		if !d.fields(field, v, []string{"goroutines", "heap", "after"}, func(k string, c *yaml.Node) {
			f := join(field, k)
			switch k {
			case "goroutines":
				n, good := d.number(f, c)
				if good && (n < 0 || n != math.Trunc(n) || n > 1e6) {
					d.add(c, f, "want a whole number ≥ 0, got %s", c.Value)
					good = false
				}
				ok = ok && good
				m.Goroutines = int(n)
			case "heap":
				b, err := parseBytes(c)
				if err != nil {
					d.add(c, f, "%v", err)
					ok = false
				}
				m.Heap = b
			case "after":
				var good bool
				m.SteadyAfter, good = d.duration(f, c, true)
				ok = ok && good
			}
		}) {
			return false
		}
		if !hasKey(v, "goroutines") && !hasKey(v, "heap") {
			d.add(v, field, "want goroutines: how many more there may be at the end, and/or heap: how much more live memory (16MB)")
			return false
		}
		return ok
	case "period_stable":
		m.Tolerance = 0.1
		ok := true
		if !d.fields(field, v, []string{"entry", "tolerance"}, func(k string, c *yaml.Node) {
			f := join(field, k)
			switch k {
			case "entry":
				var good bool
				m.Entry, good = d.str(f, c)
				ok = ok && good
			case "tolerance":
				var good bool
				m.Tolerance, good = d.fraction(f, c, 0, true)
				ok = ok && good
			}
		}) {
			return false
		}
		if !hasKey(v, "entry") {
			d.add(v, field, "want entry: a blackboard entry counting cycles (charges), and tolerance: a fraction [0.1]")
			return false
		}
		return ok
	}
	return false
}

// parseBytes reads a size: 16MB, 512KiB, 1GB, or a number of bytes.
func parseBytes(n *yaml.Node) (int64, error) {
	bad := fmt.Errorf("want a size such as 16MB, 512KiB or 1GB, got %s", input.Describe(n))
	if n.Kind != yaml.ScalarNode {
		return 0, bad
	}
	s := strings.TrimSpace(n.Value)
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}, {"", 1}}
	for _, u := range units {
		if !strings.HasSuffix(s, u.suffix) {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*u.mult > 1<<50 {
			return 0, bad
		}
		return int64(f * u.mult), nil
	}
	return 0, bad
}

// nearLimit is the largest "within" of the speed_near_obstacles
// expectations: the samples nearer than that are kept.
func (rec *recorder) nearLimit() float64 {
	var d float64
	for _, e := range rec.s.Expect {
		if e.Kind == "speed_near_obstacles" {
			d = max(d, e.More.Near)
		}
	}
	return d
}

// wantsSteady reports whether a steady expectation needs readings of the
// process.
func (rec *recorder) wantsSteady() bool {
	return slices.ContainsFunc(rec.s.Expect, func(e Expectation) bool { return e.Kind == "steady" })
}

// measureNear keeps the robot's speed when it is near an obstacle; on the
// simulator's goroutine, under rr.mu.
func (rr *robotRecord) measureNear(w *sim.World, r *sim.Robot, limit float64, now time.Duration) {
	if gap := w.Clearance(r, limit); gap < limit {
		rr.near = append(rr.near, nearSample{at: now, speed: math.Abs(r.Twist().Linear), gap: gap, pose: r.Pose()})
	}
}

// readResources reads the process's goroutines and live heap (after a
// collection), for steady.
func readResources(now time.Duration) resources {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return resources{at: now, goroutines: goruntime.NumGoroutine(), heap: ms.HeapAlloc}
}

// logError keeps an error the controller logged; from any goroutine.
func (rr *robotRecord) logError(text string) {
	rr.mu.Lock()
	rr.errors = append(rr.errors, logged{rr.end, text})
	rr.mu.Unlock()
}

// entryFired returns the faults the robot's blackboard now triggers, each
// once; on the tick's goroutine, after a tick.
func (rr *robotRecord) entryFired(bb *runtime.Blackboard) []Fault {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if len(rr.entries) == 0 {
		return nil
	}
	var out []Fault
	rr.entries = slices.DeleteFunc(rr.entries, func(f Fault) bool {
		c := f.When.Entry
		v, ok := bb.Get(c.Entry)
		if c.holds(v, ok) {
			out = append(out, f)
			return true
		}
		return false
	})
	return out
}

// watchEntries notes when the entries period_stable watches change; on the
// tick's goroutine, after a tick.
func (rr *robotRecord) watchEntries(bb *runtime.Blackboard, now time.Duration) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for _, key := range rr.watchKeys {
		v, ok := bb.Get(key)
		f, isNum := number(v)
		if !ok || !isNum {
			continue
		}
		if last, seen := rr.lastVal[key]; seen && last != f {
			rr.changes[key] = append(rr.changes[key], now)
		}
		rr.lastVal[key] = f
	}
}

// judgeMeasure judges this file's kinds; under rr.mu.
func (rr *robotRecord) judgeMeasure(e Expectation, rep mission.Report) (bool, string) {
	m := e.More
	switch e.Kind {
	case "speed_near_obstacles":
		var worst *nearSample
		for i, n := range rr.near {
			if n.at <= rr.end && n.gap <= m.Near && (worst == nil || n.speed > worst.speed) {
				worst = &rr.near[i]
			}
		}
		if worst == nil {
			return true, fmt.Sprintf("never within %g m of an obstacle", m.Near)
		}
		return worst.speed <= m.MaxSpeed, fmt.Sprintf("fastest %.2f m/s at %v, %.2f m from an obstacle, at (%.2f, %.2f)",
			worst.speed, worst.at, worst.gap, worst.pose.X, worst.pose.Y)
	case "blackboard":
		if rep.Tree == nil {
			return false, "no tree: the mission did not run"
		}
		bb := rep.Tree.Blackboard()
		pass := true
		var words []string
		for _, ev := range m.Entries {
			v, ok := bb.Get(ev.Key)
			w := ev.Key + " = " + describeValue(v, ok)
			if !ev.Value.matches(v, ok) {
				pass = false
				w += ", want " + ev.Value.String()
			}
			words = append(words, w)
		}
		return pass, strings.Join(words, "; ")
	case "no_errors":
		n := len(rr.errors)
		first := ""
		if n > 0 {
			first = fmt.Sprintf(", the first after %v: %s", rr.errors[0].at, rr.errors[0].text)
		}
		if rep.Err != nil {
			n++
			if first == "" {
				first = ": the run ended on an error: " + rep.Err.Error()
			}
		}
		if n == 0 {
			return true, "no error logged"
		}
		return false, fmt.Sprintf("%d error%s%s", n, map[bool]string{true: "", false: "s"}[n == 1], first)
	case "steady":
		return rr.judgeSteady(m)
	case "period_stable":
		return judgePeriods(rr.changes[m.Entry], m)
	}
	return false, "not judged: unknown expectation " + e.Kind
}

func (rr *robotRecord) judgeSteady(m measures) (bool, string) {
	var in []resources
	for _, r := range rr.res {
		if r.at >= m.SteadyAfter {
			in = append(in, r)
		}
	}
	if len(in) < 2 {
		return false, fmt.Sprintf("%d readings after %v: the run was too short to judge", len(in), m.SteadyAfter)
	}
	a, b := in[0], in[len(in)-1]
	dg, dh := b.goroutines-a.goroutines, int64(b.heap)-int64(a.heap)
	pass := (m.Goroutines < 0 || dg <= m.Goroutines) && (m.Heap < 0 || dh <= m.Heap)
	return pass, fmt.Sprintf("goroutines %d at %v, %d at %v (%+d); heap %.1f MB, %.1f MB (%+.1f MB); %d readings",
		a.goroutines, a.at, b.goroutines, b.at, dg, float64(a.heap)/1e6, float64(b.heap)/1e6, float64(dh)/1e6, len(in))
}

func judgePeriods(changes []time.Duration, m measures) (bool, string) {
	if len(changes) < 3 {
		return false, fmt.Sprintf("%s changed %d times: want at least 3 to compare 2 periods", m.Entry, len(changes))
	}
	var periods []time.Duration
	for i := 1; i < len(changes); i++ {
		periods = append(periods, changes[i]-changes[i-1])
	}
	sorted := slices.Clone(periods)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	worst := 0.0
	for _, p := range periods {
		worst = max(worst, math.Abs(float64(p-median))/float64(median))
	}
	return worst <= m.Tolerance, fmt.Sprintf("%d periods of %s, median %v, from %v to %v: %.1f%% off at most",
		len(periods), m.Entry, median.Round(time.Second), sorted[0].Round(time.Second), sorted[len(sorted)-1].Round(time.Second), 100*worst)
}
