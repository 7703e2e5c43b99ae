package cputime

import "time"

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not
// name.
const rusageThread = 1

// Thread returns the CPU time the calling OS thread has used so far (lock
// the goroutine to its thread to measure one goroutine's work).
func Thread() time.Duration { return rusage(rusageThread) }
