package hil

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// A served scenario (serve: and goals:) runs the robot's missions from a
// mission server — btrobot serve's, executor.Server — and sends it goals
// over its ExecuteMission action, at simulated times or each after the
// one before has its result, as a fleet manager would.
//
// A run repeats because the harness holds the simulated world while a
// goal acts. It takes part in the simulator's lockstep as a peer of its
// own beside the server's runs: it lets time run to the next goal's time
// while no mission runs, follows the running mission tick by tick while
// one does (so that the world stops a tick after a mission ends, not
// wherever the wall clock finds it), and holds time where it stands from
// the moment a goal is sent until the server has taken it in — the old
// mission halted and the new one ticked once (executor.Server.Settled).
// A goal due while a mission runs is sent from that mission's first tick
// at or after its time, before the tick lets the simulator go on, so the
// old mission never ticks past it.

// ServeConf is a served scenario's mission server, on its one robot.
type ServeConf struct {
	Pos runtime.Pos
	// Missions is the directory of mission trees (btrobot serve
	// --missions); Profile the robot profile; Places the named places
	// [the world's].
	Missions, Profile, Places string
	// Preempt is the policy of a goal that names none [replace].
	Preempt executor.Preempt
}

// Goal is one goal a served scenario sends.
type Goal struct {
	Pos runtime.Pos
	// Mission, Payload (YAML) and Preempt are the ExecuteMission goal's.
	Mission, Payload, Preempt string
	// At is the simulated time the goal is sent at (while a mission runs:
	// its first tick at or after At); with AfterPrevious, the goal is sent
	// once the goal before it has its result.
	At            time.Duration
	AfterPrevious bool
	// When, instead, is a trigger, as a fault's (fault.go): the goal is
	// sent from the first tick of a mission, once the trigger has fired
	// and the goals before it are sent (a node's transition or a
	// blackboard entry of the server's running mission; looked at from
	// the server's first goal on).
	When *When
	// Call, when set, makes the entry a call on the server instead of a
	// goal (Mission, Payload and Preempt are then empty): CallPause and
	// CallResume are its ~pause and ~resume services, CallCancel cancels
	// the goal that runs, as its client's cancel does.
	Call string
	// Expect, when set, is what the goal's result must be.
	Expect *GoalExpect
}

// String names the goal as a report does.
func (g Goal) String() string {
	when := "at " + g.At.String()
	switch {
	case g.AfterPrevious:
		when = "after the previous"
	case g.When != nil && g.When.Entry != nil:
		when = "when " + g.When.Entry.String()
	case g.When != nil:
		when = fmt.Sprintf("when %s reaches %s", g.When.Node, g.When.Status)
	}
	what := g.Mission
	if g.Call != "" {
		what = g.Call
	}
	return fmt.Sprintf("%s %s", what, when)
}

// GoalExpect is what a goal's result must be: each set field holds.
type GoalExpect struct {
	Pos runtime.Pos
	// Text is the expectation as written.
	Text string
	// Outcome is SUCCESS, FAILURE, PREEMPTED, ABORTED or REJECTED.
	Outcome string
	// Contains are texts the explanation (its lines joined) must contain.
	Contains []string
	// ErrorCode, when set, is the result's error_code ("" for none).
	ErrorCode *string
	// RestWithin, for a pause or a cancel, is how soon after it the robot
	// must be at rest (the simulator's own velocity, on the samples), to
	// stay so until the next entry of goals: is sent (or the run's end).
	RestWithin *time.Duration
}

// GoalResult is how a sent goal ended.
type GoalResult struct {
	Goal Goal
	// Sent tells whether the goal went out (not when the time limit came
	// first); At is the simulated time it was sent at.
	Sent bool
	At   time.Duration
	// Outcome is the result's (REJECTED for a goal the server refused);
	// Explanation and ErrorCode too.
	Outcome     string
	Explanation []string
	ErrorCode   string
	// Answer is a call's (Goal.Call): what the server said to it.
	Answer string
}

// String reads as a report's line.
func (r GoalResult) String() string {
	if !r.Sent && r.Goal.When != nil {
		return "not sent: its trigger did not fire while a mission ran"
	}
	if !r.Sent {
		return "not sent: the time limit came first"
	}
	if r.Goal.Call != "" {
		return fmt.Sprintf("sent at %v: %s", r.At.Round(time.Millisecond), r.Answer)
	}
	s := fmt.Sprintf("sent at %v: %s", r.At.Round(time.Millisecond), r.Outcome)
	if len(r.Explanation) > 0 {
		s += ": " + strings.Join(r.Explanation, "; ")
	}
	if r.ErrorCode != "" {
		s += " (error_code " + r.ErrorCode + ")"
	}
	return s
}

// judge tells whether the result is what e expects, and what was measured.
func (r GoalResult) judge(e *GoalExpect) (bool, string) {
	measured := r.String()
	if !r.Sent {
		return false, measured
	}
	if e.Outcome != "" && r.Outcome != e.Outcome {
		return false, measured
	}
	all := strings.Join(r.Explanation, "\n")
	for _, c := range e.Contains {
		if !strings.Contains(all, c) {
			return false, fmt.Sprintf("%s — no %q in the explanation", measured, c)
		}
	}
	if e.ErrorCode != nil && r.ErrorCode != *e.ErrorCode {
		return false, measured
	}
	return true, measured
}

// goalVerdicts judges each goal's expectation; rr is the served robot's
// record (a pause's or a cancel's at_rest_within, until the next entry
// or, after the last, the simulated time the run is judged at).
func goalVerdicts(s *Scenario, results []GoalResult, rr *robotRecord, judgedAt time.Duration) []Verdict {
	var out []Verdict
	for i, g := range s.Goals {
		if g.Expect == nil {
			continue
		}
		r := GoalResult{Goal: g}
		if i < len(results) {
			r = results[i]
		}
		pass, measured := r.judge(g.Expect)
		if g.Call != "" {
			pass, measured = r.Sent, r.String()
			if w := g.Expect.RestWithin; pass && w != nil && rr != nil {
				to := judgedAt
				for _, next := range results[i+1:] {
					if next.Sent {
						to = next.At
						break
					}
				}
				pass, measured = rr.restBetween(r.At, to, *w)
				measured = fmt.Sprintf("%s after the %s", measured, g.Call)
			}
		}
		out = append(out, Verdict{
			Expectation: Expectation{Pos: g.Expect.Pos, Kind: "goal", Text: fmt.Sprintf("goals[%d] %s: %s", i, g, g.Expect.Text)},
			Robot:       s.Robots[0].Name, Pass: pass, Measured: measured,
		})
	}
	return out
}

// servedReport is the robot's report for the expectations about the whole
// run: its last goal's run.
func servedReport(results []GoalResult) mission.Report {
	var rep mission.Report
	for _, r := range results {
		if !r.Sent || r.Outcome == "REJECTED" || r.Goal.Call != "" {
			continue
		}
		switch r.Outcome {
		case executor.OutcomeSuccess:
			rep.Outcome = mission.Succeeded
		case executor.OutcomeFailure:
			rep.Outcome = mission.Failed
		case executor.OutcomePreempted:
			rep.Outcome, rep.Why = mission.Stopped, strings.Join(r.Explanation, "; ")
		default:
			rep.Outcome, rep.Why = mission.Aborted, strings.Join(r.Explanation, "; ")
		}
	}
	return rep
}

// goalPatience bounds each wait of the driver on the server or the
// simulator, in wall time: a server that never answers must not hang the
// run.
const goalPatience = 30 * time.Second

// goalDriver sends a served scenario's goals and holds the simulated
// world while each acts (see the top of the file).
type goalDriver struct {
	goals  []Goal
	srv    *executor.Server
	client *ros.ActionClient
	peer   *bridge.LockstepPeer
	// srvClock is the server's connection's clock; step the physics
	// step (stepTo).
	srvClock runtime.Clock
	step     time.Duration
	epoch    time.Time // simulated time zero
	limit    time.Time // the scenario's time limit
	// release is where the harness stops looking: the peer lets time run
	// to it once every goal has its result.
	release time.Time

	// joins counts the server's runs the simulator has taken in as
	// lockstep peers (simnode.Node.Joins); started the runs that ticked
	// (each joins after its first tick).
	joins   func() int
	started int
	// pauseSvc and resumeSvc are the server's ~pause and ~resume; excuse
	// lets the world go on without the server's held run until a time
	// (simnode.Node.Excuse); driving tells whether the robot's servers
	// still drive its base (simnode.Node.Driving).
	pauseSvc, resumeSvc *ros.ServiceClient
	excuse              func(until time.Time)
	driving             func() bool

	mu       sync.Mutex
	follow   bool      // the peer follows the running mission's ticks
	nextTick time.Time // when the running mission ticks next
	until    time.Time // what the peer said last
	next     int       // the next goal to send
	answered uint64    // the server's Answered the goals sent so far make
	results  []GoalResult
	done     []chan struct{} // closed when goal i has its result
	rejected bool            // the goal sent last was rejected
	// held is set once a pause's reply says the running mission's tree
	// is held; a resume (or the run's end) clears it.
	held bool
	// triggered are the goals whose trigger (Goal.When) has fired.
	triggered []bool
	failure   error // why driving stopped early
	// fromTick is told when a tick sent a goal (and stopped following).
	fromTick chan struct{}
	sends    sync.WaitGroup
	ctx      context.Context
}

// onTick is the running mission's tick (on its goroutine, before the
// tick lets the simulator go on): a due goal is sent from here, else the
// peer lets the simulator run to the mission's next tick, next (when the
// mission's lockstep lets it run to: not a period after this tick's
// start, which is the first physics step at or after its due time).
func (d *goalDriver) onTick(t runtime.TickReport, next time.Time) {
	// The run ends after this tick, and a queued goal starts as soon as
	// it has: the world stays at this tick's time for that goal's first
	// tick, rather than run on to next while the goal starts (its first
	// tick, at whatever time the clock then said, made runs differ).
	queuedNext := t.Status.Completed() && d.srv.Status().Waiting > 0
	d.mu.Lock()
	d.nextTick = next
	if !d.follow {
		d.mu.Unlock()
		return
	}
	if d.joins() < d.started {
		// The first tick of a run the simulator has not taken in yet (a
		// goal that replaced or followed the one before, while the peer
		// followed that one): letting the world go on from here would run
		// it a tick without the new run (a preempting Charge's join at
		// 30.06 s, not 30 s, one run in a few): followRun holds it until
		// the join.
		d.follow = false
		d.mu.Unlock()
		d.fromTick <- struct{}{}
		return
	}
	if d.next < len(d.goals) {
		g := d.goals[d.next]
		due := !g.AfterPrevious && !t.Start.Before(d.epoch.Add(g.At))
		if g.When != nil {
			due = d.triggered[d.next]
		}
		if due {
			d.follow = false // the peer holds at this tick: it said until = its time
			d.mu.Unlock()
			d.send(t.Start)
			d.fromTick <- struct{}{}
			return
		}
	}
	if queuedNext {
		d.mu.Unlock()
		return
	}
	d.until = next
	if started := d.started; d.joins() < started {
		// A run's first tick while the driver follows (a queued goal
		// that starts as the one before ends): the run joins the
		// lockstep after this tick, and until the simulator has taken
		// it in, the driver's peer is the only one holding the world.
		d.sends.Add(1)
		d.mu.Unlock()
		go func() {
			defer d.sends.Done()
			if d.wait(func() bool { return d.joins() >= started }) {
				d.ready(next)
			}
		}()
		return
	}
	d.mu.Unlock()
	d.ready(next)
}

func (d *goalDriver) ready(until time.Time) {
	if err := d.peer.Ready(until); err != nil {
		d.fail(err)
	}
}

func (d *goalDriver) fail(err error) {
	d.mu.Lock()
	if d.failure == nil {
		d.failure = err
	}
	d.mu.Unlock()
}

// send sends the next goal at simulated time at and returns once the
// server has answered it (rejected, or placed).
func (d *goalDriver) send(at time.Time) {
	d.mu.Lock()
	i := d.next
	if call := d.goals[i].Call; call != "" {
		d.next++
		d.results[i].Sent, d.results[i].At = true, at.Sub(d.epoch)
		d.rejected = false
		d.mu.Unlock()
		d.call(i, call)
		return
	}
	d.next++
	d.answered++
	want := d.answered
	g := d.goals[i]
	d.results[i].Sent, d.results[i].At = true, at.Sub(d.epoch)
	d.mu.Unlock()
	rejectedBefore := d.srv.Status().Rejected
	d.sends.Add(1)
	go func() {
		defer d.sends.Done()
		defer close(d.done[i])
		out, err := d.client.Run(d.ctx, &ros.ExecuteMissionActionGoal{Mission: g.Mission, Payload: g.Payload, Preempt: g.Preempt}, ros.GoalConf{})
		d.mu.Lock()
		defer d.mu.Unlock()
		r := &d.results[i]
		if res, ok := out.Result.(*ros.ExecuteMissionActionResult); ok && res.Outcome != "" {
			r.Outcome, r.Explanation, r.ErrorCode = res.Outcome, res.Explanation, res.ErrorCode
			return
		}
		r.Outcome = strings.ToUpper(out.State.String())
		if err != nil {
			r.Explanation = []string{err.Error()}
		}
	}()
	ok := d.wait(func() bool { return d.srv.Answered() >= want })
	d.mu.Lock()
	d.rejected = ok && d.srv.Status().Rejected > rejectedBefore
	d.mu.Unlock()
	if !ok {
		d.fail(fmt.Errorf("%s: goal %d (%s) was not answered within %v", g.Pos, i, g, goalPatience))
	}
}

// call makes goals[i]'s call on the server (send). A pause made from a
// tick returns once the server has taken it in, so that the next tick is
// held on every run; its reply comes once that tick is held.
func (d *goalDriver) call(i int, call string) {
	g := d.goals[i]
	answer := func(s string) {
		d.mu.Lock()
		d.results[i].Answer = s
		d.mu.Unlock()
	}
	switch call {
	case CallCancel:
		defer close(d.done[i])
		st := d.srv.Status()
		if st.Mission == "" {
			answer("nothing to cancel: no goal runs")
			return
		}
		// The server's own cancel, as its client's: the goal's Run then
		// gets the result (a client's cancel would leave it unread).
		msg, err := d.srv.Cancel(st.Goal, fmt.Sprintf("cancelled by goals[%d]", i))
		if err != nil {
			msg = err.Error()
		}
		answer(msg)
	case CallResume:
		defer close(d.done[i])
		answer(triggered(d.resumeSvc.Call(d.ctx, &std_srvs.TriggerReq{})))
		d.mu.Lock()
		d.held = false
		d.mu.Unlock()
	case CallPause:
		want := d.srv.Pauses() + 1
		running := d.running()
		d.sends.Add(1)
		go func() {
			defer d.sends.Done()
			defer close(d.done[i])
			res, err := d.pauseSvc.Call(d.ctx, &std_srvs.TriggerReq{})
			ok := err == nil && res.(*std_srvs.TriggerRes).Success
			d.mu.Lock()
			defer d.mu.Unlock()
			d.results[i].Answer = triggered(res, err)
			d.held = ok && running
		}()
		if !d.wait(func() bool { return d.srv.Pauses() >= want }) {
			d.fail(fmt.Errorf("%s: goals[%d] (%s) was not taken in within %v", g.Pos, i, g, goalPatience))
		}
	}
}

// triggered words a std_srvs/Trigger reply.
func triggered(res any, err error) string {
	if err != nil {
		return "failed: " + err.Error()
	}
	r := res.(*std_srvs.TriggerRes)
	if !r.Success {
		return "refused: " + r.Message
	}
	return r.Message
}

// trigger notes that goals[i]'s trigger has fired: on the tick's
// goroutine, before the tick's onTick, which then sends it if it is next.
func (d *goalDriver) trigger(i int) {
	d.mu.Lock()
	d.triggered[i] = true
	d.mu.Unlock()
}

// heldByPause reports whether the running mission is held by a pause.
func (d *goalDriver) heldByPause() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.held
}

// wait polls cond until it holds, ctx ends or goalPatience passes.
func (d *goalDriver) wait(cond func() bool) bool {
	deadline := time.Now().Add(goalPatience)
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-t.C:
		case <-d.ctx.Done():
			return false
		}
	}
	return true
}

// reach waits until clock has reached at.
func (d *goalDriver) reach(clock runtime.Clock, at time.Time) bool {
	reached, stop := clock.Timer(at)
	defer stop()
	select {
	case <-reached:
		return true
	case <-d.ctx.Done():
	case <-time.After(goalPatience):
		d.fail(fmt.Errorf("the simulated clock did not reach %v within %v", at.Sub(d.epoch), goalPatience))
	}
	return false
}

func (d *goalDriver) running() bool { return d.srv.Status().Mission != "" }

// drive sends every goal, then waits for their results; the peer then
// leaves the lockstep.
func (d *goalDriver) drive() error {
	defer func() {
		// The peer lets time run to where the harness stops looking
		// rather than leave: a leave is an event the simulator logs when
		// it takes it in, which may be after the harness has read the
		// events.
		if d.peer.Ready(d.release) != nil {
			leave, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			d.peer.Leave(leave)
		}
	}()
	for d.ctx.Err() == nil {
		if err := d.failed(); err != nil {
			return err
		}
		if !d.wait(d.srv.Settled) {
			return d.orFailed(errors.New("the mission server did not settle"))
		}
		d.mu.Lock()
		n, rejected := d.next, d.rejected
		d.mu.Unlock()
		running := d.running()
		paused := running && d.heldByPause()
		if !running {
			d.mu.Lock()
			d.held = false // the paused run ended (a cancel)
			d.mu.Unlock()
		}
		if n == len(d.goals) && !running {
			break
		}
		if n < len(d.goals) && d.goals[n].AfterPrevious && rejected {
			// Its goal before was refused: it goes now, where the world
			// stands held.
			d.send(d.srvClock.Now())
			continue
		}
		if running && !paused {
			d.followRun()
			continue
		}
		// No mission runs, or the one that runs is held by a pause: the
		// world stands (or runs on to) where the peer said last.
		d.mu.Lock()
		hold := d.until
		d.mu.Unlock()
		if paused {
			// The pause cancelled the robot's goals: the world goes on
			// once the simulator has them (the robot stopped at the
			// pause's time on every run), without the held run.
			if !d.wait(func() bool { return !d.driving() }) {
				return d.orFailed(fmt.Errorf("the robot's servers still drive it %v after the pause", goalPatience))
			}
			if n == len(d.goals) {
				// Nothing resumes it: the world runs on to the time limit.
				d.excuse(d.limit)
				if !d.stepTo(hold, d.limit) {
					return d.orFailed(d.ctx.Err())
				}
				break
			}
		}
		g := d.goals[n]
		if g.When != nil {
			// Only a mission's ticks fire a trigger: one that has fired
			// goes now, where the world stands; one that has not never
			// will (not sent).
			d.mu.Lock()
			fired := d.triggered[n]
			d.mu.Unlock()
			if !fired {
				break
			}
			if !d.reach(d.srvClock, hold) {
				return d.orFailed(d.ctx.Err())
			}
			d.send(d.srvClock.Now())
			continue
		}
		if g.AfterPrevious {
			select {
			case <-d.done[n-1]:
			case <-d.ctx.Done():
				return d.ctx.Err()
			case <-time.After(goalPatience):
				return fmt.Errorf("%s: goal %d (%s) had no result within %v", d.goals[n-1].Pos, n-1, d.goals[n-1], goalPatience)
			}
		} else if hold.IsZero() && g.At == 0 {
			// A goal at time zero: time starts once both the driver and
			// the goal's run have joined (simPeers), so the run's first
			// tick sees the world of time zero, as a scenario's mission
			// does. The driver lets the simulator take one step.
			d.mu.Lock()
			d.until = d.epoch.Add(time.Nanosecond)
			d.mu.Unlock()
			d.ready(d.epoch.Add(time.Nanosecond))
			d.send(d.epoch)
			continue
		} else if at := d.epoch.Add(g.At); at.After(hold) {
			if paused {
				d.excuse(at)
			}
			if !d.stepTo(hold, at) {
				return d.orFailed(d.ctx.Err())
			}
			hold = at
		}
		if !hold.Before(d.limit) {
			break // the time limit came first: the goals left are not sent
		}
		if !d.reach(d.srvClock, hold) {
			return d.orFailed(d.ctx.Err())
		}
		d.send(d.srvClock.Now())
	}
	d.sends.Wait()
	return d.failed()
}

// stepTo lets the world run from where it is held (from) to at, while no
// mission runs, a physics step at a time, each once the server's
// connection has seen the simulated clock reach the step before: a world
// let run free outruns the connection's /clock, and the next mission's
// lockstep, which dates a sensor message without a header by that clock
// (a bumper, a docked flag), takes the newest for stale and waits a
// second for another (the run repeats, slowly, warning that it may not).
func (d *goalDriver) stepTo(from, at time.Time) bool {
	for t := from; t.Before(at); {
		if t = t.Add(d.step); t.After(at) {
			t = at
		}
		if from.IsZero() || !t.After(d.epoch) {
			t = d.epoch.Add(time.Nanosecond) // the world's first step
		}
		d.mu.Lock()
		d.until = t
		d.mu.Unlock()
		d.ready(t)
		if !d.reach(d.srvClock, t) {
			return false
		}
		from = t
	}
	return true
}

// followRun lets the simulator run with the running mission, tick by
// tick, until a tick sends a goal or no mission runs (the peer then holds
// the world a tick after the mission's last).
func (d *goalDriver) followRun() bool {
	// A run joins the lockstep after its first tick: until the simulator
	// has taken it in, the driver's peer is the only one holding the world
	// and must not let it go (a run that joined late saw the world run on
	// a tick without it: its join logged at 30.06 s, not 30 s, one run in
	// four).
	// A run that has just started may not have ticked yet: until it has,
	// the next tick the driver knows of is the last run's (or none), not
	// after where the world is held.
	fresh := func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.nextTick.After(d.until)
	}
	d.wait(func() bool { return fresh() || !d.running() })
	d.mu.Lock()
	started := d.started
	d.mu.Unlock()
	d.wait(func() bool { return d.joins() >= started || !d.running() })
	d.mu.Lock()
	d.follow = true
	until := d.nextTick
	move := until.After(d.until)
	if move {
		d.until = until
	}
	d.mu.Unlock()
	if move {
		d.ready(until)
	}
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-d.fromTick:
			return true
		case <-d.ctx.Done():
			return true
		case <-t.C:
		}
		if d.heldByPause() {
			// The mission's tree is held: no tick comes until a resume,
			// which the drive loop sends.
			d.mu.Lock()
			d.follow = false
			d.mu.Unlock()
			return true
		}
		if d.running() || !d.srv.Settled() {
			continue // the mission runs on (or the next one starts)
		}
		d.mu.Lock()
		following := d.follow
		d.follow = false
		d.mu.Unlock()
		if !following {
			<-d.fromTick // a tick is sending a goal: it says so when done
		}
		return true
	}
}

func (d *goalDriver) failed() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failure
}

func (d *goalDriver) orFailed(err error) error {
	if f := d.failed(); f != nil {
		return f
	}
	return err
}

// runServed runs a served scenario's robot: the mission server on its
// namespace, each goal's run configured as a scenario's mission is (in
// lockstep, watched by the recorder, stopped at the time limit), and the
// goals sent by a driver beside it.
func runServed(ctx context.Context, c RunConf, s *Scenario, simr *mission.Simulator, epoch time.Time, horizon time.Duration,
	strikeWhen func(Fault), rr *robotRecord, ticked func(runtime.TickReport)) ([]GoalResult, error) {
	r := s.Robots[0]
	base, err := simr.RunConf(nil, r.Name)
	if err != nil {
		return nil, err
	}
	// A goal's trigger fires as a fault's does (the recorder watches
	// both); it makes its goal due instead of striking. d is set before
	// the server's first run ticks.
	var d *goalDriver
	strike := func(f Fault) {
		if f.goal > 0 {
			d.trigger(f.goal - 1)
			return
		}
		strikeWhen(f)
	}
	tmpl, err := runConf(s, r, base, epoch, strike, rr, c.Log)
	if err != nil {
		return nil, err
	}
	cat, err := executor.LoadCatalog(executor.CatalogConf{Dir: s.Serve.Missions, Profile: s.Serve.Profile, Places: s.Serve.Places})
	if err != nil {
		return nil, fmt.Errorf("%s: the server's missions:\n%w", s.Serve.Pos, err)
	}
	conn, err := ros.Connect(tmpl.ROS)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	cconf := base.ROS
	cconf.Name = "hil_goals"
	cconn, err := ros.Connect(cconf)
	if err != nil {
		return nil, err
	}
	defer cconn.Close()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	step := 20 * time.Millisecond
	if secs, err := conn.ParamFloat64(path.Join(path.Dir(bridge.LockstepTopic), bridge.PhysicsStepParam)); err == nil && secs > 0 {
		step = time.Duration(math.Round(secs * float64(time.Second)))
	}
	node, runName := simr.Node, controllerName(r.Name)
	d = &goalDriver{goals: s.Goals, triggered: make([]bool, len(s.Goals)),
		joins:   func() int { return node.Joins(runName) },
		excuse:  func(until time.Time) { node.Excuse(runName, until.Sub(epoch)) },
		driving: func() bool { return node.Driving(r.Name) }, srvClock: conn.Clock(), step: step, epoch: epoch, limit: epoch.Add(s.TimeLimit), release: epoch.Add(horizon),
		results: make([]GoalResult, len(s.Goals)), done: make([]chan struct{}, len(s.Goals)),
		fromTick: make(chan struct{}), ctx: runCtx}
	for i, g := range s.Goals {
		d.results[i].Goal = g
		d.done[i] = make(chan struct{})
	}
	semaphores := runtime.NewSemaphores() // the goals' runs share them; no other process does
	srv, err := executor.New(executor.Conf{
		Conn: conn, Catalog: cat, Preempt: s.Serve.Preempt, Log: tmpl.Log,
		Run: func(rc *mission.RunConf) {
			rc.Lockstep, rc.OdomOrigin, rc.Seed, rc.Semaphores = base.Lockstep, base.OdomOrigin, s.Seed, semaphores
			if base.Lockstep != nil {
				// A pause holds the robot still while the world goes on
				// (the driver excuses the held run): the tree's action
				// leaves are suspended, as on a robot.
				ls := *base.Lockstep
				ls.Suspend = true
				rc.Lockstep = &ls
			}
			rc.Observers = append(rc.Observers, tmpl.Observers...)
			rate := rc.Rate
			if rate <= 0 && rc.Mission.Profile != nil {
				rate = rc.Mission.Profile.Rate
			}
			if rate <= 0 {
				rate = mission.DefaultRate
			}
			period := time.Duration(float64(time.Second) / rate)
			// The run's ticks are due a period apart from its first (its
			// lockstep's schedule); each starts at the first physics step
			// at or after its due time.
			var due time.Time
			serverTick := rc.OnTick
			rc.OnTick = func(tree *runtime.Tree, t runtime.TickReport) (string, bool) {
				ticked(t)
				if due.IsZero() {
					// Counted before the server's hook, which makes the
					// server Settled: a driver that saw it settled with
					// the run not yet counted let the world run a step
					// before the run joined (a preempting Charge's join at
					// 30.02 s, not 30 s, about one run in twenty).
					due = t.Start
					d.mu.Lock()
					d.started++
					d.mu.Unlock()
				}
				why, done := serverTick(tree, t)
				if why == "" {
					why, done = tmpl.OnTick(tree, t)
				}
				// Time may have gone on while the tick was held (a
				// pause): the next is due after where it stands, as
				// the run's lockstep has it.
				from := t.Start
				if now := conn.Clock().Now(); now.After(from) {
					from = now
				}
				for !due.After(from) {
					due = due.Add(period)
				}
				d.onTick(t, due)
				return why, done
			}
		},
	})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	d.srv = srv
	d.client, err = ros.NewActionClient(ros.ActionClientConf{Conn: cconn, Name: "/" + r.Name + "/btrobot/execute", Action: &ros.ExecuteMissionAction{}})
	if err != nil {
		return nil, err
	}
	for _, sc := range []struct {
		to   **ros.ServiceClient
		name string
	}{{&d.pauseSvc, "pause"}, {&d.resumeSvc, "resume"}} {
		if *sc.to, err = ros.NewServiceClient(ros.ServiceClientConf{Conn: cconn, Name: "/" + r.Name + "/btrobot/" + sc.name, Srv: &std_srvs.Trigger{}}); err != nil {
			return nil, err
		}
	}
	wctx, wcancel := context.WithTimeout(runCtx, goalPatience)
	err = d.client.WaitForServer(wctx, nil, 0)
	wcancel()
	if err != nil {
		return nil, fmt.Errorf("the mission server's action: %w", err)
	}
	// The peer has a connection of its own: a lockstep peer counts the
	// action goals its connection sends as commands to the simulator, and
	// the client's goals go to the server, not to the simulator (which
	// then waited a second at each goal for one that never came).
	pconf := base.ROS
	pconf.Name = "hil_goals_lockstep"
	pconn, err := ros.Connect(pconf)
	if err != nil {
		return nil, err
	}
	defer pconn.Close()
	if d.peer, err = bridge.NewLockstepPeer(pconn, ""); err != nil {
		return nil, err
	}
	err = d.drive()
	cancel()
	d.sends.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.results, err
}

// checkServedMissions loads the server's missions and looks each goal's
// up, as the server will.
func checkServedMissions(s *Scenario) error {
	cat, err := executor.LoadCatalog(executor.CatalogConf{Dir: s.Serve.Missions, Profile: s.Serve.Profile, Places: s.Serve.Places})
	if err != nil {
		return fmt.Errorf("%s: the server's missions:\n%w", s.Serve.Pos, err)
	}
	var errs runtime.ErrorList
	for i, g := range s.Goals {
		if g.Call != "" {
			continue
		}
		if _, err := cat.Lookup(g.Mission); err != nil && g.Expect != nil && g.Expect.Outcome != "REJECTED" {
			errs = append(errs, &runtime.BuildError{Pos: g.Pos, Path: fmt.Sprintf("goals[%d].mission", i), Msg: err.Error()})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// simPeers is how many lockstep peers the simulator waits for before time
// starts: a served scenario whose first goal is at time zero waits for
// the driver and the goal's run; one whose first goal comes later starts
// with the driver alone (0: the simulator's default).
func simPeers(s *Scenario) int {
	if s.Serve == nil || len(s.Goals) == 0 {
		return 0
	}
	if s.Goals[0].At == 0 {
		return 2
	}
	return 1
}

// restBetween judges a pause's or a cancel's at_rest_within: the robot at
// rest (restSpeed, on the samples) within `within` of from, and still from
// then until to (-1: the last sample).
func (rr *robotRecord) restBetween(from, to, within time.Duration) (bool, string) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if to < 0 {
		to = rr.lastSample()
	}
	rest := time.Duration(-1)
	for _, m := range rr.moving {
		if m.at <= from {
			rest = from
			if m.moving {
				rest = -1
			}
			continue
		}
		if m.at > to {
			break
		}
		switch {
		case rest < 0 && !m.moving:
			rest = m.at
		case rest >= 0 && m.moving:
			return false, fmt.Sprintf("at rest %v after %v, moving again at %v (before %v)", rest-from, from, m.at, to)
		}
	}
	if rest < 0 {
		return false, fmt.Sprintf("still moving %v after %v", to-from, from)
	}
	return rest-from <= within, fmt.Sprintf("at rest %v after %v and still until %v", rest-from, from, to)
}
