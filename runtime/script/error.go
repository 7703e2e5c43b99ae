package script

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// ErrUnknownVariable is the cause of every error about a variable that does
// not exist. An Env's Assign should wrap it (fmt.Errorf("%w ...")) when '='
// or a compound assignment targets a missing variable, so that callers can
// test for it with errors.Is whatever the Env's own wording.
var ErrUnknownVariable = errors.New("unknown variable")

// Error is the error type of Parse and of Eval: it places the problem in the
// script text. Offset is a byte offset into the source (0-based); Line and
// Column are 1-based, Column counting characters, not bytes.
type Error struct {
	Offset int
	Line   int
	Column int
	// Msg says what went wrong, or what was expected at that place.
	Msg string
	// Err is the underlying cause when the problem came from outside the
	// script (an Env refusing a write, for instance); it may be nil.
	Err error
}

// Error formats the error as "line:column: message[: cause]".
func (e *Error) Error() string {
	s := strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column) + ": "
	switch {
	case e.Msg == "" && e.Err != nil:
		return s + e.Err.Error()
	case e.Err != nil:
		return s + e.Msg + ": " + e.Err.Error()
	default:
		return s + e.Msg
	}
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// errorAt builds an Error for byte offset off in src.
func errorAt(src string, off int, msg string, cause error) *Error {
	if off < 0 {
		off = 0
	}
	if off > len(src) {
		off = len(src)
	}
	line, col := 1, 1
	for i := 0; i < off; {
		r, size := utf8.DecodeRuneInString(src[i:])
		i += size
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &Error{Offset: off, Line: line, Column: col, Msg: msg, Err: cause}
}
