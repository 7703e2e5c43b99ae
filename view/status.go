package view

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// StatusLine shows the progress of long work: on a terminal, one line
// rewritten in place; otherwise (a file, a pipe, CI=true) plain lines, at
// most one per Every, so that a log stays readable.
type StatusLine struct {
	w     io.Writer
	term  bool
	cols  int
	every time.Duration

	mu      sync.Mutex
	last    time.Time
	shown   bool   // a line is on the terminal, not yet ended
	text    string // the line shown
	pending string // plain: the newest text, not printed (too soon)
}

// NewStatusLine returns a status line on w. Plain lines come at most once
// per every.
func NewStatusLine(w io.Writer, every time.Duration) *StatusLine {
	cols, _, term := TerminalSize(w)
	if os.Getenv("CI") == "true" {
		term = false
	}
	return &StatusLine{w: w, term: term, cols: cols, every: every}
}

// Update shows text as the current progress.
func (s *StatusLine) Update(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.term {
		if s.cols > 1 && len([]rune(text)) > s.cols-1 {
			text = string([]rune(text)[:s.cols-1])
		}
		fmt.Fprintf(s.w, "\r\x1b[K%s", text)
		s.shown, s.text = true, text
		return
	}
	now := time.Now()
	if !s.last.IsZero() && now.Sub(s.last) < s.every {
		s.pending = text
		return
	}
	s.last, s.pending = now, ""
	fmt.Fprintln(s.w, text)
}

// Done ends the status line with text (nothing when empty): on a
// terminal the line is replaced, so that what is written next starts on a
// clean line; in plain lines, the newest progress not yet printed comes
// first, so that a log ends with where the work ended.
func (s *StatusLine) Done(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.term && s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
	if s.pending != "" {
		fmt.Fprintln(s.w, s.pending)
		s.pending = ""
	}
	if text != "" {
		fmt.Fprintln(s.w, text)
	}
}

// Println writes a line of its own above the status line, which stays.
func (s *StatusLine) Println(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.term && s.shown {
		fmt.Fprintf(s.w, "\r\x1b[K%s\n%s", line, s.text)
		return
	}
	fmt.Fprintln(s.w, line)
}
