package view

import (
	"fmt"
	"slices"
	"time"
)

// spanText writes how long a node has been in its status: to the
// millisecond under a second, then to the tenth, then to the second.
func spanText(d time.Duration) string {
	switch {
	case d < time.Second:
		return shortDuration(d.Round(time.Millisecond))
	case d < 10*time.Second:
		return shortDuration(d.Round(100 * time.Millisecond))
	}
	return shortDuration(d.Round(time.Second))
}

// agoText writes how long ago something happened.
func agoText(d time.Duration) string { return spanText(d) + " ago" }

// ClockText writes a duration as h:mm:ss.t.
func ClockText(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	h := int(d / time.Hour)
	m := int(d/time.Minute) % 60
	s := (d % time.Minute).Seconds()
	return fmt.Sprintf("%d:%02d:%04.1f", h, m, s)
}

// stallText says how often the controller's process stalled (did not run
// for a while: SIGSTOP, a paused VM) and for how long at most:
// "1 stall (5.02s)", "3 stalls (longest 5.02s)".
func stallText(n uint64, longest time.Duration) string {
	if n == 1 {
		return "1 stall (" + shortDuration(longest) + ")"
	}
	return fmt.Sprintf("%d stalls (longest %s)", n, shortDuration(longest))
}

// shortDuration writes a duration in at most about six characters.
func shortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.3gms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.3gs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// ring keeps the last 256 durations.
type ring struct {
	buf [256]time.Duration
	n   int // total added
}

func (r *ring) add(d time.Duration) { r.buf[r.n%len(r.buf)] = d; r.n++ }
func (r *ring) len() int            { return min(r.n, len(r.buf)) }

// at returns the i-th kept duration, oldest first.
func (r *ring) at(i int) time.Duration {
	if r.n <= len(r.buf) {
		return r.buf[i]
	}
	return r.buf[(r.n+i)%len(r.buf)]
}

func (r *ring) quantile(q float64) time.Duration {
	n := r.len()
	if n == 0 {
		return 0
	}
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = r.at(i)
	}
	slices.Sort(s)
	k := int(q*float64(n)+0.999999) - 1
	return s[min(max(k, 0), n-1)]
}
