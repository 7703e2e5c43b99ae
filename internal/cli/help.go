// Package cli is what btrobot's command line is made of beyond its
// commands: a program of commands (`PROG help [COMMAND]`, an unknown
// command's did-you-mean, the exit codes), help laid out as a Unix tool's
// (a synopsis wrapped at the spaces between its bracketed groups,
// summaries wrapped as paragraphs), flags accepted anywhere among the
// arguments, repeated flags, and the handling of SIGINT and SIGTERM that
// never skips the robot's stop. The commands themselves — their flags,
// help text and exit codes — live in cmd/btrobot.
package cli

import (
	"flag"
	"strings"
	"unicode/utf8"
)

// Wrap lays text out in lines of at most width columns (a longer word
// stands alone). A line of text that ends a sentence ends its line;
// the others are joined to the next, so that summaries written with
// breaks anywhere read as paragraphs.
func Wrap(text string, width int) string {
	var out []string
	var para []string
	flush := func() {
		line := ""
		for _, word := range strings.Fields(strings.Join(para, " ")) {
			switch {
			case line == "":
				line = word
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
				out = append(out, line)
				line = word
			default:
				line += " " + word
			}
		}
		if line != "" {
			out = append(out, line)
		}
		para = para[:0]
	}
	for _, l := range strings.Split(text, "\n") {
		para = append(para, l)
		if t := strings.TrimSpace(l); t == "" || strings.HasSuffix(t, ".") || strings.HasSuffix(t, ":") {
			flush()
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// Synopsis is "Usage: PROG ARGS" in lines of at most width columns,
// continuation lines indented under the first argument; a bracketed group
// ([--rate HZ]) is never split.
func Synopsis(prog, args string, width int) string {
	head := "Usage: " + prog
	indent := strings.Repeat(" ", utf8.RuneCountInString(head)+1)
	var lines []string
	line, words := head, 0
	for _, group := range argGroups(args) {
		if words > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(group) > width {
			lines = append(lines, line)
			line, words = indent+group, 1
			continue
		}
		line += " " + group
		words++
	}
	return strings.Join(append(lines, line), "\n")
}

// argGroups splits a synopsis at the spaces outside brackets.
func argGroups(args string) []string {
	var groups []string
	depth, start := 0, -1
	for i, r := range args {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		}
		switch {
		case r == ' ' && depth == 0 && start >= 0:
			groups = append(groups, args[start:i])
			start = -1
		case r != ' ' && start < 0:
			start = i
		}
	}
	if start >= 0 {
		groups = append(groups, args[start:])
	}
	return groups
}

// ParseArgs parses flags wherever they appear among the positional
// arguments (btrobot tick FILE --ticks 5), returning the positionals;
// after "--" everything is positional. A help request returns
// flag.ErrHelp.
func ParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// Given reports whether the command line set the flag name.
func Given(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// Multi collects a repeated flag (--set a=1 --set b=2).
type Multi []string

func (m *Multi) String() string     { return strings.Join(*m, ",") }
func (m *Multi) Set(v string) error { *m = append(*m, v); return nil }
