package cputime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// spin works until used (what the clock says was used since it started)
// reaches want, or 30 s of wall time pass: on a loaded machine the work
// takes longer, not less CPU time.
func spin(used func() time.Duration, want time.Duration) time.Duration {
	x := 0
	for start := time.Now(); used() < want && time.Since(start) < 30*time.Second; {
		x++
	}
	return used()
}

// TestProcessCountsWork: the process's CPU time grows with its work.
func TestProcessCountsWork(t *testing.T) {
	before := Process()
	used := spin(func() time.Duration { return Process() - before }, 20*time.Millisecond)
	assert.GreaterOrEqual(t, used, 20*time.Millisecond, "CPU time of a busy loop within 30 s")
}
