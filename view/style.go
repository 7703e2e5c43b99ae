package view

import "strings"

// Styles of the terminal view.
type style uint8

const (
	styleNone style = iota
	styleBold
	styleDim
	styleRunning
	styleRunningPath
	styleSuccess
	styleFailure
	styleHalted
)

var styleCodes = [...]string{
	styleNone:        "",
	styleBold:        "\x1b[1m",
	styleDim:         "\x1b[2m",
	styleRunning:     "\x1b[1;33m",
	styleRunningPath: "\x1b[1;7;33m",
	styleSuccess:     "\x1b[32m",
	styleFailure:     "\x1b[1;31m",
	styleHalted:      "\x1b[35m",
}

var markStyles = [...]style{styleDim, styleRunning, styleSuccess, styleFailure, styleHalted}

// seg is a piece of a line in one style.
type seg struct {
	text  string
	style style
}

// styler writes styled segments, cut to a width.
type styler struct{ color bool }

func (s styler) text(t string, st style) string {
	if !s.color || styleCodes[st] == "" || t == "" {
		return t
	}
	return styleCodes[st] + t + "\x1b[0m"
}

// line joins segments, cutting them (by runes) to width columns; a cut
// line ends with "…".
func (s styler) line(width int, segs ...seg) string {
	var b strings.Builder
	left := width
	for i, g := range segs {
		r := []rune(g.text)
		if len(r) > left || len(r) == left && i < len(segs)-1 && hasText(segs[i+1:]) {
			if left > 0 {
				b.WriteString(s.text(string(r[:left-1])+"…", g.style))
			}
			return b.String()
		}
		b.WriteString(s.text(g.text, g.style))
		left -= len(r)
	}
	return b.String()
}

func hasText(segs []seg) bool {
	for _, g := range segs {
		if g.text != "" {
			return true
		}
	}
	return false
}

// visibleLen is the width styler.line gives segs within width.
func visibleLen(segs []seg, width int) int {
	n := 0
	for _, g := range segs {
		n += len([]rune(g.text))
	}
	return min(n, width)
}
