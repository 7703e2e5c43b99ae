//go:build unix

package main

import (
	"os"
	"syscall"
)

// renderSignal is the signal that makes btrobot sim render its pictures.
func renderSignal() os.Signal { return syscall.SIGUSR1 }
