package executor

import "time"

// Status is the server's state, as /diagnostics shows it.
type Status struct {
	// State is "idle", "running" or "paused" (paused with no mission
	// running: the next goal starts paused).
	State string
	// Mission and Goal are the running mission and the goal it answers.
	Mission string
	Goal    uint64
	// Waiting counts the goals accepted that have not started.
	Waiting int
	// Accepted and Rejected count the goals since the server started.
	Accepted, Rejected uint64
	// Missions is the catalog's size.
	Missions int
	// LastResult is the last goal's mission, outcome and first cause.
	LastResult string
	// Reloads counts the reloads taken; LastReloadError is why the last reload was refused; empty once a
	// reload succeeds.
	Reloads         int
	LastReloadError string
	// FirstTick is how long the last goal took to its first tick from its
	// acceptance, or from the end of the mission it waited for (a replace
	// waits for the halt, the robot's stop confirmed; a queued goal for
	// those before it). Switch is the last such wait's halt-to-first-tick.
	FirstTick, Switch time.Duration
}

// Status returns the server's state now.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked()
}

// statusLocked is Status under mu.
func (s *Server) statusLocked() Status {
	st := s.status
	st.State, st.Mission, st.Goal = "idle", "", 0
	if s.paused {
		st.State = "paused"
	}
	if a := s.cur; a != nil {
		if !s.paused {
			st.State = "running"
		}
		st.Mission, st.Goal = a.mission.ID, a.goal.seq
	}
	st.Waiting = s.waiting
	st.Accepted, st.Rejected = s.accepted.Load(), s.rejected.Load()
	st.Missions = len(s.catalog.IDs())
	return st
}

// Settled reports whether every goal the server has taken has found its
// place: none is between its acceptance and its submission, none is about
// to start, and the mission that runs (if one does) has ticked and is not
// being halted. A driver that holds a simulated world while it sends a
// goal (hil's goals:) waits for it, so that the goal acts at the same
// simulated time on every run.
func (s *Server) Settled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) > 0 {
		return false
	}
	if a := s.cur; a != nil {
		return a.ticked && a.ctx.Err() == nil
	}
	return len(s.queue) == 0
}

// Answered counts the goals the server has answered since it started:
// rejected, or placed (started, queued, or handed to the running mission
// as an update). A client that sent n goals knows they have all acted on
// the server once Answered reaches n.
func (s *Server) Answered() uint64 { return s.rejected.Load() + s.submitted.Load() }
