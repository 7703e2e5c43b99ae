//go:build !linux

package ros

import "time"

// sleepPrecisely sleeps on a Go timer where nanosleep is not at hand.
func sleepPrecisely(d time.Duration) { time.Sleep(d) }
