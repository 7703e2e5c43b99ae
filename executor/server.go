package executor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/diagnostic_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Preempt is what a goal does to the mission that runs when it comes.
type Preempt string

// The preemption policies.
const (
	// Replace halts the running mission (its goal ends PREEMPTED, "preempted
	// by <mission>") and starts the new one.
	Replace Preempt = "replace"
	// Update writes a goal's payload into the running mission's blackboard
	// without halting it when both name the same mission (Nav2's
	// semantics: the older goal ends PREEMPTED, the newer one carries the
	// run on); a goal for another mission replaces it.
	Update Preempt = "update"
	// Queue runs the goal after those before it; at most MaxQueue wait.
	Queue Preempt = "queue"
	// Reject refuses a goal while a mission runs.
	Reject Preempt = "reject"
)

// MaxQueue bounds the goals waiting to run; a goal beyond is rejected.
const MaxQueue = 16

// ParsePreempt reads a policy's name; "" is def.
func ParsePreempt(s string, def Preempt) (Preempt, error) {
	switch p := Preempt(strings.ToLower(strings.TrimSpace(s))); p {
	case "":
		return def, nil
	case Replace, Update, Queue, Reject:
		return p, nil
	}
	if len(s) > 32 {
		s = s[:32] + "…"
	}
	return "", fmt.Errorf("unknown preempt %q: want replace, update, queue or reject", s)
}

// The outcomes a result gives.
const (
	OutcomeSuccess   = "SUCCESS"
	OutcomeFailure   = "FAILURE"
	OutcomePreempted = "PREEMPTED"
	OutcomeAborted   = "ABORTED"
)

// Conf configures New. Zero fields take the defaults in brackets.
type Conf struct {
	// Conn is the server's connection; its private names (~execute, ~list,
	// ~reload, ~pause, ~resume) are the server's interfaces. Required.
	Conn *ros.Conn
	// Catalog is the missions, loaded (LoadCatalog). Required.
	Catalog *Catalog
	// Preempt is the policy of a goal that names none [Replace].
	Preempt Preempt
	// Rate is the tick rate [the profile's].
	Rate float64
	// RecordDir, when set, is where every goal's run is recorded (.db3).
	RecordDir string
	// Run, when set, adjusts each run's configuration before it starts
	// (observers, a display, lockstep).
	Run func(*mission.RunConf)
	// Log receives what the server has to say, from any goroutine.
	Log func(line string)
	// FeedbackEvery is the longest time between feedbacks [1 s].
	FeedbackEvery time.Duration
	// Watch reloads the catalog when a file it was read from changes
	// (a tree file of the directory added, changed or removed, an
	// included file, the profile, the places): the files are looked at
	// every WatchEvery [250 ms], and reloaded once they have stayed
	// unchanged for WatchSettle [500 ms].
	Watch                   bool
	WatchEvery, WatchSettle time.Duration
	// Groot, when not 0, is the port Groot2 connects to (REP; PUB on the
	// next), on GrootHost [loopback]: it stays attached across goals,
	// shown each goal's tree while it runs (a new tree UUID: Groot2
	// reloads) and a tree "Idle" naming the last result between goals; a
	// breakpoint it sets holds the running tree and the robot still.
	Groot     int
	GrootHost string
	// Show, when set, gives each goal's run a debugger beside the
	// server's pause (the studio's, studio.Server.Debugger), the run named
	// by its mission and goal ("Patrol · goal 2"); its pause and
	// breakpoints hold the running goal's tree and the robot.
	Show func(name string) func(mission.Shown) mission.Debugger
	// Changed, when set, is called when View changes: a goal taken,
	// queued, started, ended or rejected, a pause, a resume, a reload. It
	// may be called with the server's lock held, from any goroutine: it
	// must not block nor call the server (the studio's pokes its pump).
	Changed func()
	// watchReloaded, in tests, runs right after the watch's reload.
	watchReloaded func()
}

// Server is a mission server: goals of the ExecuteMission action run the
// catalog's missions on the robot, one at a time.
type Server struct {
	conf   Conf
	conn   *ros.Conn
	action *ros.ActionServer
	svcs   []*ros.ServiceServer
	// standing keeps the profile's inputs subscribed between goals (the
	// next run's first tick sees them) and stops the robot when no run
	// does.
	standing *bridge.Bridge

	mu      sync.Mutex
	catalog *Catalog
	cur     *active
	queue   []*goal
	waiting int // goals accepted that are not running yet
	// pending are the goals check accepted, until their execute starts.
	pending map[*ros.ExecuteMissionActionGoal]*goal
	paused  bool
	seq     uint64
	wake    chan struct{}
	closed  bool
	status  Status    // what /diagnostics and Status tell (under mu)
	halted  time.Time // when the last run returned
	// changed is poked when the state changes: /diagnostics goes out.
	changed  chan struct{}
	diagDone chan struct{}
	// watchDone is closed when the watch ends (nil without one).
	watchDone chan struct{}
	// groot is Groot2's view (Conf.Groot), nil without one.
	groot *grootView
	// stateKey and stateSince are the state View shows and since when
	// (under mu).
	stateKey   string
	stateSince time.Time
	// hmu guards history: the goals ended, oldest first (View).
	hmu     sync.Mutex
	history []Ended

	accepted, rejected atomic.Uint64 // goals, since the start
	submitted          atomic.Uint64 // goals that took their place (Answered)
	pauses             atomic.Uint64 // pauses taken in (Pauses)

	loopDone chan struct{}
	cancel   context.CancelFunc
}

// goal is an accepted goal, from Check to its result.
type goal struct {
	seq      uint64
	mission  *Mission
	values   []value
	preempt  Preempt
	feedback func(any)
	result   chan result // buffered: the one result
	once     sync.Once
	// accepted is when check took the goal: its first tick is measured
	// from it (Status.FirstTick).
	accepted time.Time
	// payload (cut for View) and its size; started is when it began to
	// drive a run, on the server's clock (under mu); srv is told its end.
	payload      string
	payloadBytes int
	started      time.Time
	srv          *Server
}

type result struct {
	res ros.ExecuteMissionActionResult
	err error
}

// finish gives the goal its result, once; the history has it before
// the client does.
func (g *goal) finish(r result) {
	g.once.Do(func() {
		if g.srv != nil {
			g.srv.ended(g, r)
		}
		g.result <- r
	})
}

// active is the mission that runs.
type active struct {
	start   *goal // the goal that started the run
	goal    *goal // the goal the run answers (under mu): an update hands it on
	mission *Mission
	stop    context.CancelCauseFunc
	ctx     context.Context // the run's: done once it is being halted
	hold    *holder
	updates []value
	ticked  bool // the run has ticked once (under mu)
}

// preemption is the cause of a run halted for another goal.
type preemption struct{ why string }

func (p *preemption) Error() string { return p.why }

// New advertises the server's action and services on the connection and
// starts its loop; Close ends them.
func New(c Conf) (*Server, error) {
	if c.Conn == nil || c.Catalog == nil {
		return nil, errors.New("mission server: no connection or no catalog")
	}
	if c.Preempt == "" {
		c.Preempt = Replace
	}
	if c.FeedbackEvery <= 0 {
		c.FeedbackEvery = time.Second
	}
	s := &Server{conf: c, conn: c.Conn, catalog: c.Catalog, wake: make(chan struct{}, 1), loopDone: make(chan struct{}),
		changed: make(chan struct{}, 1), diagDone: make(chan struct{}),
		pending: map[*ros.ExecuteMissionActionGoal]*goal{}, stateKey: "idle  0", stateSince: time.Now()}
	if err := c.Catalog.prepare(c.Conn); err != nil {
		return nil, err
	}
	if err := s.openStanding(c.Catalog); err != nil {
		return nil, err
	}
	if c.Groot != 0 {
		var err error
		if s.groot, err = newGrootView(c.GrootHost, c.Groot, c.Conn.Clock()); err != nil {
			s.closeStanding()
			return nil, err
		}
	}
	var err error
	s.action, err = ros.NewActionServer(ros.ActionServerConf{
		Conn: c.Conn, Name: "~execute", Action: &ros.ExecuteMissionAction{},
		Check: s.check, Execute: s.execute,
	})
	if err != nil {
		s.closeStanding()
		return nil, err
	}
	if err := s.openServices(); err != nil {
		s.action.Close()
		s.closeStanding()
		return nil, err
	}
	diag, err := ros.NewPublisher(ros.PublisherConf{Conn: c.Conn, Topic: "/diagnostics", Msg: &diagnostic_msgs.DiagnosticArray{}})
	if err != nil {
		for _, sv := range s.svcs {
			sv.Close()
		}
		s.action.Close()
		s.closeStanding()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go s.loop(ctx)
	go func() { defer close(s.diagDone); s.diagnostics(ctx, diag) }()
	if c.Watch {
		if c.WatchEvery <= 0 {
			c.WatchEvery = defaultWatchEvery
		}
		if c.WatchSettle <= 0 {
			c.WatchSettle = defaultWatchSettle
		}
		s.watchDone = make(chan struct{})
		go func() { defer close(s.watchDone); s.watch(ctx, c.WatchEvery, c.WatchSettle) }()
	}
	return s, nil
}

// Close halts the running mission (the robot stopped), ends every goal and
// unadvertises the server's interfaces.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.cur != nil {
		s.cur.stop(&preemption{"the server is shutting down"})
	}
	s.mu.Unlock()
	s.cancel()
	<-s.loopDone
	<-s.diagDone
	if s.watchDone != nil {
		<-s.watchDone
	}
	s.action.Close() // the goals' Execute return: their results go out
	for _, sv := range s.svcs {
		sv.Close()
	}
	s.closeStanding()
}

func (s *Server) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	s.conn.Logf(ros.LogInfo, "%s", line)
	if s.conf.Log != nil {
		s.conf.Log(line)
	}
}

// openStanding starts the bridge that stands between goals.
func (s *Server) openStanding(cat *Catalog) error {
	var prof *bridge.Profile
	for _, id := range cat.IDs() {
		if p := cat.missions[id].Mission.Profile; p != nil {
			prof = p
			break
		}
	}
	if prof == nil {
		return nil
	}
	reg := runtime.NewRegistry()
	doc := &runtime.Document{Trees: []*runtime.TreeSpec{{ID: "Idle", Root: runtime.N("AlwaysSuccess", nil)}}}
	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Clock: s.conn.Clock()})
	if err != nil {
		return err
	}
	s.standing, err = bridge.NewBridge(bridge.BridgeConf{Conn: s.conn, Profile: prof, Tree: tree})
	return err
}

// closeStanding closes the standing bridge and Groot2's view, the
// server's last parts.
func (s *Server) closeStanding() {
	if s.standing != nil {
		s.standing.Close()
	}
	if s.groot != nil {
		s.groot.close()
	}
}

// stopRobot sends the zero velocity with its delivery checked, when no run
// holds the robot.
func (s *Server) stopRobot() bridge.StopReport {
	if s.standing == nil {
		return bridge.StopReport{}
	}
	return s.standing.Stop()
}

// check decides whether a goal is taken: the mission exists, the payload
// fits its ports, the policy is known and allows it now.
func (s *Server) check(g any) (any, error) {
	req := g.(*ros.ExecuteMissionActionGoal)
	reject := func(err error) (any, error) {
		s.rejected.Add(1)
		s.logf("goal for %q rejected: %v", clip(req.Mission), err)
		s.rejectedGoal(req, err)
		return &ros.ExecuteMissionActionResult{Outcome: "REJECTED", Explanation: []string{err.Error()}}, err
	}
	if len(req.Mission) > maxMissionName {
		return reject(fmt.Errorf("mission name of %d bytes, more than %d", len(req.Mission), maxMissionName))
	}
	pol, err := ParsePreempt(req.Preempt, s.conf.Preempt)
	if err != nil {
		return reject(err)
	}
	s.mu.Lock()
	cat := s.catalog
	s.mu.Unlock()
	m, err := cat.Lookup(req.Mission)
	if err != nil {
		return reject(err)
	}
	vals, err := parsePayload(m, req.Payload)
	if err != nil {
		return reject(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	busy := s.cur != nil || s.waiting > 0
	switch {
	case s.closed:
		return reject(errors.New("the server is shutting down"))
	case pol == Reject && busy:
		return reject(fmt.Errorf("busy with %s (preempt: reject)", s.busyWith()))
	case s.waiting >= MaxQueue:
		return reject(fmt.Errorf("%d goals wait already, the most the queue holds", s.waiting))
	}
	s.waiting++
	s.accepted.Add(1)
	s.seq++
	taken := &goal{seq: s.seq, mission: m, values: vals, preempt: pol, result: make(chan result, 1), accepted: time.Now(), srv: s}
	taken.payload, taken.payloadBytes = shownPayload(req.Payload)
	s.pending[req] = taken
	return nil, nil
}

// busyWith says what runs (under mu).
func (s *Server) busyWith() string {
	if s.cur != nil {
		return s.cur.mission.ID
	}
	return fmt.Sprintf("%d goals waiting", s.waiting)
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// execute is a goal's life after check took it: it is submitted, and its
// result awaited; a cancel by the client halts it (or takes it out of the
// queue).
func (s *Server) execute(ctx context.Context, msg any, feedback func(any)) (any, error) {
	s.mu.Lock()
	g := s.pending[msg.(*ros.ExecuteMissionActionGoal)]
	delete(s.pending, msg.(*ros.ExecuteMissionActionGoal))
	if g == nil {
		s.mu.Unlock()
		return nil, errors.New("a goal the server did not check")
	}
	g.feedback = feedback
	s.submit(g)
	s.submitted.Add(1)
	s.mu.Unlock()
	select {
	case r := <-g.result:
		return &r.res, r.err
	case <-ctx.Done():
	}
	s.mu.Lock()
	s.withdraw(g, "cancelled by its client")
	s.mu.Unlock()
	r := <-g.result
	return &r.res, r.err
}

// preempted is the result of a goal another took the place of.
func preempted(why string) result {
	return result{res: ros.ExecuteMissionActionResult{Outcome: OutcomePreempted, Explanation: []string{why}}, err: fmt.Errorf("%w: %s", ros.ErrPreempted, why)}
}

// submit puts an accepted goal where its policy says (under mu).
func (s *Server) submit(g *goal) {
	defer s.notify()
	defer s.poke()
	cur := s.cur
	if cur == nil {
		s.queue = append(s.queue, g)
		return
	}
	switch g.preempt {
	case Update:
		if cur.mission.ID == g.mission.ID {
			cur.updates = append(cur.updates, g.values...)
			old := cur.goal
			cur.goal = g
			g.started = s.conn.Clock().Now()
			s.touchState()
			s.waiting--
			s.logf("goal %d updates %s (goal %d): its payload is written into the running blackboard", g.seq, cur.mission.ID, old.seq)
			old.finish(preempted(fmt.Sprintf("updated by goal %d for the same mission", g.seq)))
			return
		}
		fallthrough
	case Replace:
		// It takes the place of the running mission and of the goals
		// waiting to replace it; queued goals keep theirs.
		keep := s.queue[:0]
		var dropped []*goal
		for _, q := range s.queue {
			if q.preempt == Queue {
				keep = append(keep, q)
			} else {
				dropped = append(dropped, q)
			}
		}
		s.queue = append([]*goal{g}, keep...)
		for _, q := range dropped {
			s.waiting--
			q.finish(preempted("preempted by " + g.mission.ID + " before it started"))
		}
		cur.stop(&preemption{"preempted by " + g.mission.ID})
	default:
		s.queue = append(s.queue, g)
	}
}

// withdraw ends a goal its client cancelled (under mu): the run it drives
// is halted, or it leaves the queue.
func (s *Server) withdraw(g *goal, why string) {
	if s.cur != nil && s.cur.goal == g {
		s.cur.stop(&preemption{why})
		return
	}
	for i, q := range s.queue {
		if q == g {
			s.queue = append(s.queue[:i:i], s.queue[i+1:]...)
			s.waiting--
			g.finish(preempted(why + " before it started"))
			return
		}
	}
}

// stateChanged sends /diagnostics now.
func (s *Server) stateChanged() {
	s.notify()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *Server) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// loop runs the queued goals one after another until ctx ends.
func (s *Server) loop(ctx context.Context) {
	defer close(s.loopDone)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && ctx.Err() == nil {
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-ctx.Done():
			}
			s.mu.Lock()
		}
		if ctx.Err() != nil {
			for _, g := range s.queue {
				g.finish(preempted("the server is shutting down"))
			}
			s.queue, s.waiting = nil, 0
			s.mu.Unlock()
			return
		}
		g := s.queue[0]
		s.queue = s.queue[1:]
		s.waiting--
		runCtx, stop := context.WithCancelCause(ctx)
		a := &active{start: g, goal: g, mission: g.mission, stop: stop, ctx: runCtx, hold: newHolder(s.paused)}
		s.cur = a
		g.started = s.conn.Clock().Now()
		s.touchState()
		s.mu.Unlock()
		s.stateChanged()
		res := s.run(runCtx, a)
		s.mu.Lock()
		s.cur = nil
		s.touchState()
		g = a.goal
		// The run has returned: the tree is halted and the robot's stop
		// confirmed (or reported unconfirmed). The next mission's first
		// tick is measured from here when it was waiting meanwhile.
		s.halted = time.Now()
		s.status.LastResult = fmt.Sprintf("%s (goal %d): %s", a.mission.ID, g.seq, res.res.Outcome)
		if len(res.res.Explanation) > 0 {
			s.status.LastResult += ": " + res.res.Explanation[0]
		}
		last := s.status.LastResult
		s.mu.Unlock()
		stop(nil)
		if s.groot != nil {
			if err := s.groot.idle(last); err != nil {
				s.logf("groot2: %v", err)
			}
		}
		s.logf("goal %d (%s) ended %s", g.seq, a.mission.ID, res.res.Outcome)
		g.finish(res)
		s.stateChanged()
	}
}

// run runs one mission for its goal (and the goals that update it).
func (s *Server) run(ctx context.Context, a *active) result {
	m := a.mission
	bb := runtime.NewBlackboard(s.conn.Clock().Now)
	if err := apply(bb, a.start.values); err != nil {
		return result{res: ros.ExecuteMissionActionResult{Outcome: OutcomeAborted, Explanation: []string{err.Error()}}, err: err}
	}
	fb := &feedbacks{s: s, a: a, mission: m.ID, every: s.conf.FeedbackEvery}
	rc := mission.RunConf{
		Mission: m.Mission, Conn: s.conn, Rate: s.conf.Rate, Blackboard: bb, Log: s.conf.Log,
		Debugger: func(sh mission.Shown) mission.Debugger {
			ds := &debuggers{list: []mission.Debugger{a.hold}}
			if s.groot != nil {
				if err := s.groot.show(sh); err != nil {
					s.logf("groot2: %s not shown: %v", m.ID, err)
				} else {
					ds.list = append(ds.list, grootHold{s.groot.srv})
				}
			}
			if s.conf.Show != nil {
				if show := s.conf.Show(fmt.Sprintf("%s · goal %d", m.ID, a.start.seq)); show != nil {
					ds.list = append(ds.list, show(sh))
				}
			}
			return ds.debugger()
		},
		OnTick: func(tree *runtime.Tree, t runtime.TickReport) (string, bool) {
			s.mu.Lock()
			up := a.updates
			a.updates = nil
			if !a.ticked {
				a.ticked = true
				s.firstTick(a)
			}
			s.mu.Unlock()
			if err := apply(tree.Blackboard(), up); err != nil {
				s.logf("update of %s: %v", m.ID, err)
			}
			fb.onTick(tree, t)
			return "", false
		},
	}
	if s.conf.RecordDir != "" {
		rc.Record = filepath.Join(s.conf.RecordDir, fmt.Sprintf("%s-%04d-%s.db3", time.Now().Format("20060102-150405"), a.start.seq, m.ID))
	}
	if s.conf.Run != nil {
		s.conf.Run(&rc)
	}
	fbDone := make(chan struct{})
	fbQuit := make(chan struct{})
	go func() { defer close(fbDone); fb.keepAlive(fbQuit) }()
	s.logf("goal %d: %s starts", a.start.seq, m.ID)
	rep, err := mission.Run(ctx, rc)
	close(fbQuit)
	<-fbDone
	return resultOf(rep, err, ctx, rc.Record)
}

// resultOf makes a goal's result from how its run ended.
func resultOf(rep mission.Report, err error, ctx context.Context, record string) result {
	var r ros.ExecuteMissionActionResult
	if err != nil {
		r.Outcome = OutcomeAborted
		r.Explanation = strings.Split(err.Error(), "\n")
		return result{res: r, err: fmt.Errorf("not started: %w", err)}
	}
	for _, c := range rep.Explanation {
		r.Explanation = append(r.Explanation, c.String())
	}
	if rep.Tree != nil {
		r.ErrorCode = errorCode(rep.Tree.Blackboard())
	}
	if record != "" {
		r.Recording = record
	}
	var p *preemption
	switch cause := context.Cause(ctx); {
	case errors.As(cause, &p):
		r.Outcome = OutcomePreempted
		r.Explanation = append([]string{p.why + "; " + rep.Stop}, r.Explanation...)
		return result{res: r, err: fmt.Errorf("%w: %s", ros.ErrPreempted, p.why)}
	}
	switch rep.Outcome {
	case mission.Succeeded:
		r.Outcome = OutcomeSuccess
		return result{res: r}
	case mission.Failed:
		r.Outcome = OutcomeFailure
		return result{res: r, err: errors.New("the mission failed")}
	}
	r.Outcome = OutcomeAborted
	why := rep.Summary()
	r.Explanation = append([]string{why}, r.Explanation...)
	return result{res: r, err: errors.New(why)}
}

// errorCode is Nav2's rule: of the root blackboard's entries named
// *error_code, the lowest that is set (numbers by value, texts by key).
func errorCode(bb *runtime.Blackboard) string {
	type code struct {
		key string
		num float64
		isN bool
		txt string
	}
	var codes []code
	for k, v := range bb.Snapshot() {
		if !strings.HasSuffix(k, "error_code") {
			continue
		}
		txt := fmt.Sprint(v)
		if txt == "" || txt == "0" {
			continue
		}
		c := code{key: k, txt: txt}
		if n, err := strconv.ParseFloat(txt, 64); err == nil {
			c.num, c.isN = n, true
		}
		codes = append(codes, c)
	}
	if len(codes) == 0 {
		return ""
	}
	sort.Slice(codes, func(i, j int) bool {
		a, b := codes[i], codes[j]
		if a.isN != b.isN {
			return a.isN
		}
		if a.isN && a.num != b.num {
			return a.num < b.num
		}
		return a.key < b.key
	})
	return codes[0].txt
}

// firstTick notes how soon a run ticked (under mu): from its goal's
// acceptance, and from the halt of the mission it replaced.
func (s *Server) firstTick(a *active) {
	now := time.Now()
	s.status.FirstTick = now.Sub(a.start.accepted)
	if s.halted.After(a.start.accepted) {
		// It waited for a mission to end: its first tick is measured
		// from there.
		s.status.FirstTick = now.Sub(s.halted)
		s.status.Switch = s.status.FirstTick
	}
}
