package executor

import (
	"errors"
	"fmt"
	"time"

	"github.com/btrobot/btrobot/ros"
)

// What View keeps and shows, bounded whatever the clients send.
const (
	// MaxHistory is how many ended goals View keeps, newest first.
	MaxHistory = 100
	// MaxShownPayload is how much of a goal's payload View keeps (the
	// rest is cut, PayloadBytes says how much there was).
	MaxShownPayload = 2048
	// maxShownLines and maxShownLine bound an explanation kept.
	maxShownLines = 20
	maxShownLine  = 500
)

// OutcomeRejected is the outcome of a goal refused before it was taken.
const OutcomeRejected = "REJECTED"

// View is the server as a person watching it sees it: its state and since
// when, the running goal, the queue and the goals' history. It is
// encoded as JSON as it is (the studio's /api/server).
type View struct {
	// State is "idle", "running" or "paused"; Mission and Goal name what
	// runs (or is held); Since is when the state, mission or goal last
	// changed.
	State   string    `json:"state"`
	Mission string    `json:"mission,omitempty"`
	Goal    uint64    `json:"goal,omitempty"`
	Since   time.Time `json:"since"`
	// Running is the goal the running mission answers.
	Running *Queued `json:"running,omitempty"`
	// Queue is the goals waiting, the next first.
	Queue []Queued `json:"queue"`
	// History is the goals that ended (or were rejected), newest first:
	// the last MaxHistory.
	History []Ended `json:"history"`
	// Preempt is the policy of a goal that names none.
	Preempt Preempt `json:"preempt"`
	// Missions is the catalog's missions.
	Missions []string `json:"missions"`
	// Accepted and Rejected count the goals since the server started.
	Accepted uint64 `json:"accepted"`
	Rejected uint64 `json:"rejected"`
	// Recording says whether every goal is recorded (Conf.RecordDir).
	Recording       bool   `json:"recording"`
	LastReloadError string `json:"last_reload_error,omitempty"`
}

// Queued is a goal taken that has not ended.
type Queued struct {
	Goal    uint64  `json:"goal"`
	Mission string  `json:"mission"`
	Preempt Preempt `json:"preempt"`
	// Payload is the goal's YAML, cut past MaxShownPayload bytes;
	// PayloadBytes is its whole size.
	Payload      string    `json:"payload,omitempty"`
	PayloadBytes int       `json:"payload_bytes,omitempty"`
	Received     time.Time `json:"received"`
}

// Ended is a goal's end: its result, and how long it ran in the robot's
// time (simulated time on a simulator).
type Ended struct {
	Queued
	Outcome     string   `json:"outcome"`
	Explanation []string `json:"explanation,omitempty"`
	ErrorCode   string   `json:"error_code,omitempty"`
	Recording   string   `json:"recording,omitempty"`
	// Duration is from its start (or its taking over the run, an update)
	// to its end, in seconds of the server's clock; 0 for a goal that
	// never ran.
	Duration float64   `json:"duration_s"`
	At       time.Time `json:"at"`
}

// queued describes a goal for View (its fields are set before it is
// shared).
func (g *goal) queued() Queued {
	return Queued{Goal: g.seq, Mission: g.mission.ID, Preempt: g.preempt, Payload: g.payload, PayloadBytes: g.payloadBytes, Received: g.accepted}
}

// shownPayload cuts a payload for View.
func shownPayload(p string) (string, int) {
	if len(p) > MaxShownPayload {
		return p[:MaxShownPayload] + "…", len(p)
	}
	return p, len(p)
}

// shownLines bounds an explanation for View.
func shownLines(lines []string) []string {
	var out []string
	for i, l := range lines {
		if i == maxShownLines {
			out = append(out, fmt.Sprintf("… %d more", len(lines)-i))
			break
		}
		if len(l) > maxShownLine {
			l = l[:maxShownLine] + "…"
		}
		out = append(out, l)
	}
	return out
}

// remember adds an ended goal to the history, dropping the oldest past
// MaxHistory, and tells Conf.Changed.
func (s *Server) remember(e Ended) {
	e.At = time.Now()
	e.Explanation = shownLines(e.Explanation)
	s.hmu.Lock()
	s.history = append(s.history, e)
	if n := len(s.history) - MaxHistory; n > 0 {
		copy(s.history, s.history[n:])
		clear(s.history[MaxHistory:])
		s.history = s.history[:MaxHistory]
	}
	s.hmu.Unlock()
	s.notify()
}

// ended is called once a goal has its result, from goal.finish.
func (s *Server) ended(g *goal, r result) {
	e := Ended{Queued: g.queued(), Outcome: r.res.Outcome, Explanation: r.res.Explanation, ErrorCode: r.res.ErrorCode, Recording: r.res.Recording}
	if !g.started.IsZero() {
		e.Duration = s.conn.Clock().Now().Sub(g.started).Seconds()
	}
	s.remember(e)
}

// rejectedGoal remembers a goal refused by check.
func (s *Server) rejectedGoal(req *ros.ExecuteMissionActionGoal, err error) {
	p, n := shownPayload(req.Payload)
	s.remember(Ended{Queued: Queued{Mission: clip(req.Mission), Preempt: Preempt(clip(req.Preempt)), Payload: p, PayloadBytes: n, Received: time.Now()},
		Outcome: OutcomeRejected, Explanation: []string{err.Error()}})
}

// notify tells Conf.Changed that the view changed. It may be called
// under s.mu: Changed must not block nor call the server.
func (s *Server) notify() {
	if s.conf.Changed != nil {
		s.conf.Changed()
	}
}

// touchState notes when the state (idle, running which goal, paused)
// changed (under mu).
func (s *Server) touchState() {
	st := s.statusLocked()
	key := fmt.Sprintf("%s %s %d", st.State, st.Mission, st.Goal)
	if key != s.stateKey {
		s.stateKey, s.stateSince = key, time.Now()
	}
}

// View returns the server as it is now.
func (s *Server) View() View {
	s.mu.Lock()
	st := s.statusLocked()
	v := View{State: st.State, Mission: st.Mission, Goal: st.Goal, Since: s.stateSince, Preempt: s.conf.Preempt,
		Missions: s.catalog.IDs(), Accepted: st.Accepted, Rejected: st.Rejected, Recording: s.conf.RecordDir != "",
		LastReloadError: st.LastReloadError, Queue: []Queued{}, History: []Ended{}}
	if s.cur != nil {
		q := s.cur.goal.queued()
		v.Running = &q
	}
	for _, g := range s.queue {
		v.Queue = append(v.Queue, g.queued())
	}
	s.mu.Unlock()
	s.hmu.Lock()
	for i := len(s.history) - 1; i >= 0; i-- {
		v.History = append(v.History, s.history[i])
	}
	s.hmu.Unlock()
	return v
}

// Recording returns the recording of a goal of the history ("" when it
// has none): the studio opens a goal's recording by its number, never by
// a path a page names.
func (s *Server) Recording(goal uint64) string {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	for _, e := range s.history {
		if e.Goal == goal && goal != 0 {
			return e.Recording
		}
	}
	return ""
}

// ErrNoSuchGoal is Cancel's error for a goal that neither runs nor waits.
var ErrNoSuchGoal = errors.New("no such goal running or waiting")

// Cancel ends a goal as its client's cancel does: the running one is
// halted (the robot stopped), a waiting one leaves the queue; it ends
// PREEMPTED, "cancelled in the studio".
func (s *Server) Cancel(goal uint64, why string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil && s.cur.goal.seq == goal {
		s.withdraw(s.cur.goal, why)
		return fmt.Sprintf("goal %d (%s) cancelled: it is being halted", goal, s.cur.mission.ID), nil
	}
	for _, g := range s.queue {
		if g.seq == goal {
			s.withdraw(g, why)
			return fmt.Sprintf("goal %d (%s) cancelled before it started", goal, g.mission.ID), nil
		}
	}
	return "", fmt.Errorf("goal %d: %w", goal, ErrNoSuchGoal)
}
