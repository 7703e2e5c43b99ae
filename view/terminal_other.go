//go:build !unix

package view

import "io"

// TerminalSize reports no terminal: the live view writes plain lines.
func TerminalSize(io.Writer) (cols, rows int, ok bool) { return 0, 0, false }
