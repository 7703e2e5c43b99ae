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
