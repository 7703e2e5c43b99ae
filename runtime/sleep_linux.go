package runtime

import (
	"syscall"
	"time"
)

// sleepPrecisely blocks the calling thread in nanosleep, which the kernel
// ends within its timer slack (50 µs by default) of d.
func sleepPrecisely(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Nanosleep(&ts, nil) //nolint:errcheck // EINTR: the caller sleeps again
}
