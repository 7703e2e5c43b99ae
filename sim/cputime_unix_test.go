//go:build unix

package sim_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the test process has used.
// Speed is measured in CPU time so that a machine busy with other work does
// not make the simulator look slow: the promise is about one core's worth.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
