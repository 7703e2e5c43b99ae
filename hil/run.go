package hil

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

// RunConf configures Run.
type RunConf struct {
	// Scenario is what runs (required).
	Scenario *Scenario
	// Log, when set, receives the missions' warnings and the simulator's
	// events as they happen, from any goroutine.
	Log func(line string)
	// Debugger, when set, gives each robot's mission a debugger (the
	// browser studio's, studio.Server.Debugger): name names the run
	// (scenario · robot), world draws the simulated world as SVG.
	Debugger func(name string, world func(io.Writer) error) func(mission.Shown) mission.Debugger
	// Record, when set, is a directory (made when missing) where each
	// robot's mission is recorded (mission.RunConf.Record), as
	// RunFile(Scenario, robot, ".btlog"): btrobot replay plays it.
	Record string
	// Picture, when set, makes Result.Picture: the world at the end as
	// SVG, with the robots' trails and the faults marked.
	Picture bool
	// Master, when set, is the ROS master of a running simulator or robot
	// to run against instead (see RunExternal): nothing is started.
	Master string
	// Transport is how the missions and the simulator Run starts talk
	// (mission.SimConf.Transport): "inproc" (the default), an in-process
	// graph, or "ros", TCPROS on a ROS master of the run's own.
	Transport string
	// Progress, when set, is told the simulated time the run has reached,
	// every sample period of simulated time, on the simulator's goroutine
	// (it must not block).
	Progress func(simulated time.Duration)
}

// TrackPoint is a robot's pose at a sample, in the map frame.
type TrackPoint struct {
	At        time.Duration
	X, Y, Yaw float64
}

// Track is a robot's trajectory as the harness sampled it (every
// samplePeriod of simulated time, on the simulator's goroutine, so at the
// same simulated times on every run).
type Track struct {
	Robot  string
	Points []TrackPoint
}

// NodeChange is a transition of a node of a robot's tree, at simulated
// time At.
type NodeChange struct {
	At       time.Duration
	Robot    string
	Path     string
	From, To runtime.Status
}

// Strike is a fault as it struck: when, what, and where (its robot's
// position then, the first robot's for a fault on the world).
type Strike struct {
	At   time.Duration
	Text string
	X, Y float64
}

// Result is how a scenario's run went: a verdict for each expectation (one
// per robot for those about each robot), and what the run was.
type Result struct {
	Scenario *Scenario
	Verdicts []Verdict
	// Reports are the missions' reports, in the order of Scenario.Robots.
	Reports []mission.Report
	// SimTime is the simulated time the run was judged at (the missions'
	// end and the at_rest windows after it); Wall the wall-clock
	// time it took, from the master's start to the last verdict.
	SimTime, Wall time.Duration
	// Events are the simulator's events (faults applied, goals ended),
	// each after its simulated time.
	Events []string
	// Strikes are the faults that struck, in order.
	Strikes []Strike
	// Tracks are the robots' sampled trajectories, in the order of
	// Scenario.Robots; Changes their trees' transitions in time order
	// (the first maxChanges of each robot).
	Tracks  []Track
	Changes []NodeChange
	// Recordings are the robots' recordings (RunConf.Record), in the
	// order of Scenario.Robots.
	Recordings []string
	// Picture is the world at the end as SVG (RunConf.Picture).
	Picture []byte
	// Goals are a served scenario's goals as they ended, in the order of
	// Scenario.Goals (goals.go).
	Goals []GoalResult
}

// Passed reports whether every expectation held.
func (r Result) Passed() bool {
	for _, v := range r.Verdicts {
		if !v.Pass {
			return false
		}
	}
	return true
}

// Failed returns the verdicts that did not hold.
func (r Result) Failed() []Verdict {
	var out []Verdict
	for _, v := range r.Verdicts {
		if !v.Pass {
			out = append(out, v)
		}
	}
	return out
}

// Verdict is one expectation judged on one robot.
type Verdict struct {
	Expectation Expectation
	Robot       string
	Pass        bool
	// Measured is what was measured, in words ("lowest 11% at 2m0.4s").
	Measured string
}

// String reads like a compiler's message, at the expectation's line:
//
//	office.scenario.yaml:14:5: robot1: {battery_never_below: 0.2}: failed: lowest 11% at 2m0.4s
func (v Verdict) String() string {
	word := "held"
	if !v.Pass {
		word = "failed"
	}
	who := ""
	if v.Robot != "" {
		who = v.Robot + ": "
	}
	return fmt.Sprintf("%s: %s%s: %s: %s", v.Expectation.Pos, who, v.Expectation.Text, word, v.Measured)
}

// samplePeriod is how often (simulated time) the harness looks at the
// robots; maxSamples bounds how many looks are scheduled in a run (a
// longer run looks less often).
const (
	samplePeriod = 100 * time.Millisecond
	maxSamples   = 6000
)

// restSpeed is the largest speed (m/s, and rad/s) of a robot at rest.
const restSpeed = 0.01

// endGrace is the simulated time the harness keeps looking after the last
// mission's end (beyond the at_rest windows).
const endGrace = time.Second

// Run runs one scenario in this process: its own ROS master on a free
// loopback port, the simulator on it, the robots' missions in lockstep
// with it (mission.Run, mission.RunFleet for a fleet), the faults at their
// simulated times; then each expectation is judged. The same scenario
// with the same seed gives the same run: trajectories, transitions,
// verdicts and events (docs/hil.md says the one known gap). With
// RunConf.Master it is RunExternal instead. The error is for a run that
// could not start (a mission that does not load, a port that cannot be
// had); ctx cancelled stops the missions, and the verdicts say so.
func Run(ctx context.Context, c RunConf) (Result, error) {
	if c.Master != "" {
		return RunExternal(ctx, c)
	}
	s := c.Scenario
	start := time.Now()
	res := Result{Scenario: s}
	missions, err := loadMissions(s)
	if err != nil {
		return res, err
	}
	robots := make([]mission.SimRobot, len(s.Robots))
	for i, r := range s.Robots {
		robots[i] = mission.SimRobot{Name: r.Name, Pose: &r.Spawn, Battery: r.Battery}
	}
	rec := newRecorder(s)
	var evMu sync.Mutex
	type event struct {
		at   time.Duration
		line string
	}
	var events []event
	simr, err := mission.StartSim(mission.SimConf{
		WorldDir: s.World, Seed: s.Seed, Robots: robots, Transport: cmp.Or(c.Transport, mission.TransportInproc), Peers: simPeers(s),
		OnEvent: func(at time.Duration, line string) {
			evMu.Lock()
			events = append(events, event{at, line})
			evMu.Unlock()
			rec.onEvent(line)
			if c.Log != nil {
				c.Log(fmt.Sprintf("%v %s", at.Round(time.Millisecond), line))
			}
		},
	})
	if err != nil {
		return res, fmt.Errorf("%s: %w", s.File, err)
	}
	defer simr.Close()
	node := simr.Node
	epoch := node.Stamp(0) // the simulator's time zero, on the trees' clock
	rec.mu.Lock()
	rec.h, rec.epoch = &harness{node: node, shutdownNode: simr.ShutdownNode}, epoch
	rec.mu.Unlock()
	for _, f := range s.Faults {
		if f.Near == nil && f.When == nil {
			node.At(f.At, func(w *sim.World) { rec.strike(f, w) })
		}
	}
	horizon := s.TimeLimit + rec.restWindow() + endGrace
	var lastTick atomic.Int64 // the missions' latest tick, in simulated time
	period := max(samplePeriod, horizon/maxSamples)
	for t := time.Duration(0); t <= horizon; t += period {
		if c.Progress == nil {
			node.At(t, rec.sample)
			continue
		}
		node.At(t, func(w *sim.World) {
			rec.sample(w)
			// No further than the missions' ticks: after their end the
			// world runs on only to be looked at.
			c.Progress(min(t, time.Duration(lastTick.Load())))
		})
	}

	strikeWhen := func(f Fault) { node.Do(func(w *sim.World) error { rec.strike(f, w); return nil }) }
	ticked := func(t runtime.TickReport) {
		for at := int64(t.Start.Sub(epoch)); ; {
			seen := lastTick.Load()
			if at <= seen || lastTick.CompareAndSwap(seen, at) {
				break
			}
		}
	}
	var reps []mission.Report
	if s.Serve != nil {
		res.Goals, err = runServed(ctx, c, s, simr, epoch, horizon, strikeWhen, rec.robots[0], ticked)
		reps = []mission.Report{servedReport(res.Goals)}
	} else {
		reps, res.Recordings, err = runRobots(ctx, c, s, missions, simr, rec, epoch, strikeWhen, ticked)
	}
	res.Reports = reps
	if err != nil {
		return res, err
	}

	// Look on until the last at_rest window has closed.
	end := rec.settle()
	if end < horizon {
		reached := make(chan struct{})
		node.At(end, func(*sim.World) { close(reached) })
		select {
		case <-reached:
		case <-ctx.Done():
		case <-time.After(time.Minute):
		}
	}
	res.SimTime = min(end, node.Now())
	if c.Picture {
		res.Picture = picture(node, s, rec.struck())
	}
	evMu.Lock()
	for _, st := range rec.struck() {
		events = append(events, event{st.at, "fault " + st.text})
		res.Strikes = append(res.Strikes, Strike{At: st.at, Text: st.text, X: st.x, Y: st.y})
	}
	// In time order; events of one simulated time, which may come from
	// several goroutines, in text order, so that a run repeats exactly.
	sort.SliceStable(events, func(i, j int) bool {
		return events[i].at < events[j].at || events[i].at == events[j].at && events[i].line < events[j].line
	})
	for _, e := range events {
		if e.at <= res.SimTime {
			res.Events = append(res.Events, fmt.Sprintf("%v %s", e.at.Round(time.Millisecond), e.line))
		}
	}
	evMu.Unlock()
	var served *robotRecord
	if s.Serve != nil {
		served = rec.robots[0]
	}
	res.Verdicts = append(rec.judge(reps), goalVerdicts(s, res.Goals, served, res.SimTime)...)
	rec.markVerdicts(epoch.Add(res.SimTime), res.Verdicts)
	for _, rr := range rec.robots {
		rr.mu.Lock()
		tr := Track{Robot: rr.name}
		for _, p := range rr.track {
			if p.At <= res.SimTime {
				tr.Points = append(tr.Points, p)
			}
		}
		res.Tracks = append(res.Tracks, tr)
		for _, ch := range rr.nodeChanges {
			if ch.At <= res.SimTime {
				res.Changes = append(res.Changes, ch)
			}
		}
		rr.mu.Unlock()
	}
	sort.SliceStable(res.Changes, func(i, j int) bool { return res.Changes[i].At < res.Changes[j].At })
	res.Wall = time.Since(start)
	return res, nil
}

// picture draws the world as it is, with the faults marked F1, F2...
func picture(node *simnode.Node, s *Scenario, strikes []strike) []byte {
	var buf bytes.Buffer
	opt := sim.RenderOptions{Scale: 2}
	for i, st := range strikes {
		opt.Marks = append(opt.Marks, sim.Mark{X: st.x, Y: st.y, Label: fmt.Sprintf("F%d", i+1)})
	}
	if err := node.Do(func(w *sim.World) error { return sim.RenderSVG(&buf, w, opt) }); err != nil {
		return nil
	}
	return buf.Bytes()
}

// recordPath is where a robot's recording of a run goes.
func recordPath(dir string, s *Scenario, robot string) string {
	return filepath.Join(dir, RunFile(s, robot, ".btlog"))
}

func mkdir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("recordings: %w", err)
	}
	return nil
}

// RunFile names a file of a run of s: the run's name made safe for a
// file name (letters, digits, '.', '-', '_'), then "." and the robot when
// there is one, then ext.
func RunFile(s *Scenario, robot, ext string) string {
	name := slug(s.Name)
	if robot != "" {
		name += "." + slug(robot)
	}
	return name + ext
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case r == '=':
			b.WriteRune('-')
			dash = false
		case !dash && b.Len() > 0:
			b.WriteRune('_')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "_")
}

// loadMissions loads each robot's mission; robots with the same mission
// files share one.
func loadMissions(s *Scenario) ([]*mission.Mission, error) {
	if s.Serve != nil {
		return nil, checkServedMissions(s)
	}
	out := make([]*mission.Mission, len(s.Robots))
	byConf := map[string]*mission.Mission{}
	var errs []error
	for i, r := range s.Robots {
		mc := r.Mission
		key := strings.Join([]string{mc.Tree, mc.Main, mc.Profile, mc.Places, mc.Substitute}, "\x00")
		if m, ok := byConf[key]; ok {
			out[i] = m
			continue
		}
		m, err := mission.Load(mission.LoadConf{Tree: mc.Tree, Main: mc.Main, Profile: mc.Profile, Places: mc.Places, Substitute: mc.Substitute})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s's mission:\n%w", mc.Pos, r.Name, err))
			continue
		}
		byConf[key], out[i] = m, m
	}
	return out, errors.Join(errs...)
}

// sampler is a robot's observer: it keeps the transitions for the
// expectations and strikes the faults they trigger.
type sampler struct {
	rr     *robotRecord
	epoch  time.Time
	strike func(Fault)
}

// OnTransitions takes a tick's transitions (runtime.Observer).
func (s sampler) OnTransitions(batch []runtime.Transition) {
	for _, f := range s.rr.transitions(batch, s.epoch) {
		// In lockstep the simulator is held at this tick's time: the
		// fault strikes before its next step.
		s.strike(f)
	}
}

// runConf is robot r's mission run: in lockstep, stopped at the time limit
// or when its stop_when holds, watched by the recorder.
func runConf(s *Scenario, r Robot, rc mission.RunConf, epoch time.Time, strikeWhen func(Fault), rr *robotRecord, log func(string)) (mission.RunConf, error) {
	bb, err := mission.Entries(r.Mission.Blackboard)
	if err != nil {
		return mission.RunConf{}, fmt.Errorf("%s: %s's blackboard: %w", r.Mission.Pos, r.Name, err)
	}
	stalls := false
	for _, f := range s.Faults {
		stalls = stalls || f.ctl != nil && f.ctl.kind == "stall" && f.Robot == r.Name
	}
	hooked := false
	rc.Seed, rc.Blackboard = s.Seed, bb
	rc.Observers = []runtime.Observer{sampler{rr: rr, epoch: epoch, strike: strikeWhen}}
	rc.OnTick = func(tree *runtime.Tree, t runtime.TickReport) (string, bool) {
		now := t.Start.Sub(epoch)
		rr.ticked(now)
		if stalls && !hooked {
			tree.Hook(stallHook{rr}) // between two ticks, as Hook wants
			hooked = true
		}
		for _, f := range rr.entryFired(tree.Blackboard()) {
			// As for a node's trigger: the simulator is held at this
			// tick's time, so the fault strikes before its next step.
			strikeWhen(f)
		}
		rr.watchEntries(tree.Blackboard(), now)
		if sw := r.Mission.StopWhen; sw != nil {
			if v, ok := tree.Blackboard().Get(sw.Entry); ok {
				if f, ok := number(v); ok && f >= sw.AtLeast {
					return sw.String(), true
				}
			}
		}
		if now >= s.TimeLimit {
			return fmt.Sprintf("time limit %v reached", s.TimeLimit), false
		}
		return "", false
	}
	rc.ROS.OnLog = func(level ros.LogLevel, msg string) {
		if level >= ros.LogError {
			rr.logError(msg)
		}
		if level >= ros.LogWarn && log != nil {
			log(r.Name + ": " + msg) // the lockstep's "may not repeat exactly" among them
		}
	}
	rc.Log = func(line string) {
		if strings.HasPrefix(line, "error ") {
			rr.logError(line) // a Log node at level error (the ROS log's errors come through OnLog)
		}
		if log != nil {
			log(r.Name + ": " + line)
		}
	}
	return rc, nil
}

// stallHook blocks a tick, inside it (where the watchdog sees it), for the
// stall a fault asked for.
type stallHook struct{ rr *robotRecord }

func (h stallHook) BeforeTick(*runtime.Base) runtime.Status {
	if d := h.rr.stall.Swap(0); d > 0 {
		time.Sleep(time.Duration(d))
	}
	return runtime.Idle
}

func (stallHook) AfterTick(*runtime.Base, runtime.Status) runtime.Status { return runtime.Idle }

// number reads a blackboard value as a number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// runMissions runs the robots' missions: one on its own, several as a
// fleet in this process.
func runMissions(ctx context.Context, confs []mission.RunConf) ([]mission.Report, error) {
	if len(confs) == 1 {
		rep, err := mission.Run(ctx, confs[0])
		return []mission.Report{rep}, err
	}
	return mission.RunFleet(ctx, confs)
}

// runRobots runs each robot's mission (runMissions) in lockstep, watched
// by the recorder; ticked is told of every tick. It returns the
// reports and the recordings (RunConf.Record).
func runRobots(ctx context.Context, c RunConf, s *Scenario, missions []*mission.Mission, simr *mission.Simulator, rec *recorder, epoch time.Time,
	strikeWhen func(Fault), ticked func(runtime.TickReport)) ([]mission.Report, []string, error) {
	node := simr.Node
	var recordings []string
	confs := make([]mission.RunConf, len(s.Robots))
	if c.Record != "" {
		if err := mkdir(c.Record); err != nil {
			return nil, nil, err
		}
	}
	semaphores := runtime.NewSemaphores() // the run's robots share resources; other runs are other worlds
	for i, r := range s.Robots {
		base, err := simr.RunConf(missions[i], r.Name)
		if err != nil {
			return nil, nil, err
		}
		confs[i], err = runConf(s, r, base, epoch, strikeWhen, rec.robots[i], c.Log)
		if err != nil {
			return nil, nil, err
		}
		confs[i].Semaphores = semaphores
		if c.Debugger != nil {
			attach := c.Debugger(s.Name+" · "+r.Name, node.WriteSVG)
			confs[i].Debugger = func(sh mission.Shown) mission.Debugger {
				d := attach(sh)
				if m, ok := d.(marker); ok {
					rec.mark(m)
				}
				return d
			}
		}
		if c.Record != "" {
			confs[i].Record = recordPath(c.Record, s, r.Name)
			recordings = append(recordings, confs[i].Record)
		}
	}
	for i := range confs {
		onTick := confs[i].OnTick
		confs[i].OnTick = func(tree *runtime.Tree, t runtime.TickReport) (string, bool) {
			ticked(t)
			return onTick(tree, t)
		}
	}
	reps, err := runMissions(ctx, confs)
	return reps, recordings, err
}
