//go:build unix

package input

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without waiting for a writer,
// should it have become a FIFO since it was checked.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
