//go:build !unix

package main

import "os"

// renderSignal is nil where there is no SIGUSR1: the /sim/render service
// remains.
func renderSignal() os.Signal { return nil }
