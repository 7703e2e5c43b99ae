//go:build unix

package simnode

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the test process has used:
// the simulator's, its subscribers' and goroslib's together.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
