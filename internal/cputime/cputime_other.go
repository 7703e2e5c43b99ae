//go:build !unix

package cputime

import "time"

// Process falls back to the wall time since the process started where
// getrusage is missing.
func Process() time.Duration { return time.Since(processStart) }
