package ros

import "time"

// SuperviseEvery is how often a run's supervisor (bridge.Run) looks at
// /clock and at the inputs' publishers; ClockSilence counts on it.
const SuperviseEvery = 50 * time.Millisecond

// ClockSilence is how long /clock has been silent as Run's supervisor
// watched it: the wall time since the newest /clock message, less the time
// this process did not run.
//
// The supervisor looks every SuperviseEvery, and a look seldom comes more
// than a few milliseconds late. A gap between two looks longer than
// stallGap means this process did not run meanwhile (SIGSTOP, a starved
// machine, a paused VM): the /clock messages that queued then are read by
// the connection's goroutines, which may run after the supervisor, so the
// gap says nothing about the clock and counts as one period. Silence is
// then counted only while the supervisor runs — the supervisor's looks are
// the reference, and a process that is descheduled misses them as it
// misses the messages — so that:
//
//   - a clock that stops is found timeout after its last message when the
//     looks come on time, and a look that comes late costs at most its
//     lateness, never a whole timeout more: looks that are all late still
//     end in a verdict, within timeout/SuperviseEvery of them;
//   - a process that was stopped for any length of time, while the clock
//     went on, gives its goroutines at least timeout − stallGap − the
//     silence before the stop (the /clock period) to read what queued,
//     before the clock could be called silent.
type ClockSilence struct {
	Timeout time.Duration
	last    time.Time // the previous look; zero before the first
	heard   time.Time // the newest /clock message seen then
	watched time.Duration
}

// stallGap is the longest gap between two of the supervisor's looks that
// counts in full as silence watched; a longer one is a stall of the
// process.
const stallGap = 2 * SuperviseEvery

// look notes a look at now, when the newest /clock message came at heard
// (wall time), and returns the silence watched since it. held says that
// the clock is held on purpose (a pause, whose lockstep simulator waits
// for the tick): no silence then.
func (s *ClockSilence) Look(now, heard time.Time, held bool) time.Duration {
	gap := now.Sub(s.last)
	switch {
	case s.last.IsZero():
		gap = 0 // nothing was watched before the first look
	case gap > stallGap:
		gap = SuperviseEvery
	}
	s.last = now
	switch {
	case held:
		s.watched = 0
	case heard.After(s.heard):
		// A message since the previous look: the silence began with it.
		s.watched = max(0, min(now.Sub(heard), gap))
	default:
		s.watched += gap
	}
	s.heard = heard
	return s.watched
}
