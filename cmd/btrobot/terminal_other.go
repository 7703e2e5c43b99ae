//go:build !unix

package main

import "io"

// terminalSize reports no terminal: the live view writes plain lines.
func terminalSize(io.Writer) (cols, rows int, ok bool) { return 0, 0, false }
