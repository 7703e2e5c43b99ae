//go:build unix

package cli

import (
	"os"
	"syscall"
)

// UserSignal is the signal an operator sends to ask a running command for
// something (btrobot sim renders its pictures): SIGUSR1.
func UserSignal() os.Signal { return syscall.SIGUSR1 }
