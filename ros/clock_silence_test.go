package ros

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestClockSilence: the supervisor's looks at a /clock that stops, or goes
// on while this process stalls. A clock that stops is found within the
// timeout and the looks' lateness, however late the looks come; a process
// that was stopped is never told its clock stopped while the messages that
// queued meanwhile are still to be read.
func TestClockSilence(t *testing.T) {
	const timeout = 250 * time.Millisecond
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	every := func(from, to, step int) []time.Duration {
		var out []time.Duration
		for x := from; x <= to; x += step {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	cat := func(parts ...[]time.Duration) []time.Duration {
		var out []time.Duration
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name  string
		looks []time.Duration // the supervisor's looks, from its first
		heard []time.Duration // when /clock messages were read
		held  time.Duration   // looks before this are held (a pause); 0: none
		// found is the look at which the clock is silent; -1: never.
		found time.Duration
	}{
		{name: "looks on time: found at the timeout",
			looks: every(0, 2000, 50), heard: ms(0), found: 250 * time.Millisecond},
		{name: "one look 100 ms late: found 100 ms later, not a timeout later",
			looks: cat(ms(0, 50, 100, 250), every(300, 2000, 50)), heard: ms(0), found: 350 * time.Millisecond},
		{name: "every look 100 ms late: found all the same",
			looks: every(0, 3000, 150), heard: ms(0), found: 750 * time.Millisecond},
		{name: "looks a little late count in full",
			looks: every(0, 2000, 90), heard: ms(0), found: 270 * time.Millisecond},
		{name: "a clock every 100 ms is never silent",
			looks: every(0, 3000, 50), heard: every(0, 3000, 100), found: -1},
		{name: "a 5 s stall, the queued messages read 90 ms after it: no verdict",
			looks: cat(ms(0, 50, 100), every(5100, 8000, 50)),
			heard: cat(ms(0, 90), every(5190, 8000, 20)), found: -1},
		{name: "a 5 s stall, then the clock does stop: found after the timeout watched",
			looks: cat(ms(0, 50, 100), every(5100, 8000, 50)),
			heard: ms(0, 90), found: 5300 * time.Millisecond},
		{name: "the first look starts the count: a clock heard long before is not silent yet",
			looks: every(1000, 3000, 50), heard: ms(0), found: 1250 * time.Millisecond},
		{name: "a held clock is not silent",
			looks: every(0, 2000, 50), heard: ms(0), held: 1000 * time.Millisecond, found: 1200 * time.Millisecond},
	}
	base := time.Unix(1000, 0)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ClockSilence{Timeout: timeout}
			found := time.Duration(-1)
			h := 0
			for _, at := range tc.looks {
				for h+1 < len(tc.heard) && tc.heard[h+1] <= at {
					h++
				}
				if s.Look(base.Add(at), base.Add(tc.heard[h]), at < tc.held) >= timeout {
					found = at
					break
				}
			}
			assert.Equal(t, tc.found, found)
		})
	}
}
