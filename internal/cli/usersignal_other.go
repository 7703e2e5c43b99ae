//go:build !unix

package cli

import "os"

// UserSignal is nil where there is no SIGUSR1: a command offers what it
// would do on it some other way (btrobot sim's /sim/render service).
func UserSignal() os.Signal { return nil }
