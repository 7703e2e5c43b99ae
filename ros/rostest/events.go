package rostest

import (
	"strings"
	"sync"
	"time"
)

// EventLog keeps the events a simulator node announces, with their
// simulated times, for tests to wait on: give its Add as the node's
// OnEvent (simnode.Conf). The node delivers its events on a goroutine of
// its own, after the step that made them, so a test that looks at once
// may look too early; Await waits. The zero EventLog is empty and ready.
type EventLog struct {
	mu     sync.Mutex
	lines  []string
	times  []time.Duration // each line's simulated time
	change chan struct{}   // closed, and replaced, at each event
}

// Add records an event (the signature of simnode.Conf.OnEvent).
func (l *EventLog) Add(at time.Duration, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	l.times = append(l.times, at)
	if l.change != nil {
		close(l.change)
		l.change = nil
	}
}

// Await returns the first event that contains one of subs and its
// simulated time, waiting up to timeout for it; ok is false when none
// came.
func (l *EventLog) Await(timeout time.Duration, subs ...string) (line string, at time.Duration, ok bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		if i := l.find(subs); i >= 0 {
			line, at = l.lines[i], l.times[i]
			l.mu.Unlock()
			return line, at, true
		}
		if l.change == nil {
			l.change = make(chan struct{})
		}
		change := l.change
		l.mu.Unlock()
		select {
		case <-change:
		case <-deadline.C:
			return "", 0, false
		}
	}
}

// TimeOf returns the simulated time of the first event so far that
// contains substr, without waiting.
func (l *EventLog) TimeOf(substr string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := l.find([]string{substr}); i >= 0 {
		return l.times[i], true
	}
	return 0, false
}

// Lines returns the events so far.
func (l *EventLog) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Clear forgets the events so far.
func (l *EventLog) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines, l.times = nil, nil
}

// find returns the index of the first line containing one of subs, -1 if
// none; under l.mu.
func (l *EventLog) find(subs []string) int {
	for i, line := range l.lines {
		for _, s := range subs {
			if strings.Contains(line, s) {
				return i
			}
		}
	}
	return -1
}
