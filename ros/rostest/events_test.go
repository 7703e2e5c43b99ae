package rostest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestEventLog: Await finds an event already there or one that comes
// while it waits, by any of several substrings, and gives up after its
// timeout; TimeOf does not wait.
func TestEventLog(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before []string // added before the wait
		later  string   // added while it waits ("" none)
		subs   []string
		line   string // "" when none is found
		at     time.Duration
	}{
		{"already there", []string{"a started", "b done"}, "", []string{"done"}, "b done", 2 * time.Second},
		{"the first of several", []string{"a started", "b done"}, "", []string{"done", "started"}, "a started", time.Second},
		{"comes while it waits", []string{"a started"}, "c cancelled", []string{"cancelled"}, "c cancelled", 9 * time.Second},
		{"never comes", []string{"a started"}, "c cancelled", []string{"aborted"}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l EventLog
			for i, line := range tc.before {
				l.Add(time.Duration(i+1)*time.Second, line)
			}
			if tc.later != "" {
				go func() {
					// Added once Await waits (it makes the channel), or
					// before: found either way.
					l.Add(9*time.Second, tc.later)
				}()
			}
			// Long for an event that comes (a loaded machine may run the
			// goroutine late), short for one that never does.
			timeout := 10 * time.Second
			if tc.line == "" {
				timeout = 100 * time.Millisecond
			}
			line, at, ok := l.Await(timeout, tc.subs...)
			assert.Equal(t, tc.line != "", ok)
			assert.Equal(t, tc.line, line)
			assert.Equal(t, tc.at, at)
			if ok {
				got, found := l.TimeOf(tc.line)
				assert.True(t, found)
				assert.Equal(t, tc.at, got)
			}
		})
	}
	var l EventLog
	_, found := l.TimeOf("anything")
	assert.False(t, found, "an empty log")
	l.Add(time.Second, "x")
	l.Clear()
	assert.Empty(t, l.Lines(), "cleared")
}
