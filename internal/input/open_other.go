//go:build !unix

package input

import "os"

// openNonBlocking opens path for reading; elsewhere than on Unix, the Stat
// before it is the only guard against special files.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
