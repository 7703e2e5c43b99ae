package studio

import "github.com/btrobot/btrobot/mission"

// PumpAsleep reports whether the pump of a live run (a Debugger the
// server made) waits for a page to connect.
func PumpAsleep(d mission.Debugger) bool { return d.(*live).asleep.Load() }
