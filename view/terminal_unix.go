//go:build unix

package view

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// TerminalSize returns the columns and rows of the terminal w writes to,
// and false when w is not a terminal (a file, a pipe, /dev/null).
func TerminalSize(w io.Writer) (cols, rows int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile {
		return 0, 0, false
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 || ws.Row == 0 {
		return 0, 0, false
	}
	return int(ws.Col), int(ws.Row), true
}
