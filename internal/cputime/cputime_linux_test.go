package cputime

import (
	goruntime "runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestThreadCountsItsOwnWork: the calling thread's CPU time grows with its
// work, and never past its process's.
func TestThreadCountsItsOwnWork(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	before := Thread()
	used := spin(func() time.Duration { return Thread() - before }, 20*time.Millisecond)
	assert.GreaterOrEqual(t, used, 20*time.Millisecond, "the thread's CPU time of a busy loop within 30 s")
	assert.LessOrEqual(t, Thread(), Process(), "a thread cannot use more than its process")
}
