// Package cputime reads the CPU time the process, or the calling thread,
// has used: for benchmarks and tests that state a cost in CPU time rather
// than wall time, so that a machine busy with other work does not make the
// code under test look slow.
package cputime

import "time"

var processStart = time.Now()
