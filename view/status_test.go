package view

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestStatusLineInPlainLines: written to a file or a pipe, the progress
// comes as plain lines, at most one per period, and the log ends with
// where the work ended; lines of their own pass through.
func TestStatusLineInPlainLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration
		do    func(s *StatusLine)
		want  string
	}{
		{"the first at once, the rest held back", time.Hour, func(s *StatusLine) {
			s.Update("1/3")
			s.Update("2/3")
		}, "1/3\n"},
		{"done prints the newest held back", time.Hour, func(s *StatusLine) {
			s.Update("1/3")
			s.Update("2/3")
			s.Update("3/3")
			s.Done("")
		}, "1/3\n3/3\n"},
		{"done with nothing held back", time.Hour, func(s *StatusLine) {
			s.Update("1/1")
			s.Done("finished")
		}, "1/1\nfinished\n"},
		{"every update when the period is zero", 0, func(s *StatusLine) {
			s.Update("1/2")
			s.Update("2/2")
			s.Done("")
		}, "1/2\n2/2\n"},
		{"a line of its own", time.Hour, func(s *StatusLine) {
			s.Update("1/2")
			s.Println("robot1: warning")
		}, "1/2\nrobot1: warning\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			s := NewStatusLine(&b, tc.every)
			tc.do(s)
			assert.Equal(t, tc.want, b.String())
		})
	}
}
