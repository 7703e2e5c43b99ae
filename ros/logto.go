package ros

import (
	"fmt"
	"io"
)

// LogTo returns a Conf.OnLog that writes the node's warnings and errors to
// w, one a line (a command's stderr).
func LogTo(w io.Writer) func(LogLevel, string) {
	return func(level LogLevel, msg string) {
		if level >= LogWarn {
			fmt.Fprintln(w, msg)
		}
	}
}
