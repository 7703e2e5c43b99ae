//go:build !linux

package runtime

import "time"

// sleepPrecisely sleeps on a Go timer where nanosleep is not at hand.
func sleepPrecisely(d time.Duration) { time.Sleep(d) }
