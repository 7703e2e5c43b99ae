package main

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/internal/cli"
)

// TestHelp: btrobot's help reads like a Unix tool's. `btrobot help` lists
// every command on one aligned line, on stdout; `btrobot help COMMAND`
// gives the details, wrapped; an unknown command is a usage error on
// stderr (exit 2) that says what it may have meant.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string // each must appear
		stderr []string
		quiet  bool // nothing on stdout
	}{
		{name: "help", args: []string{"help"}, code: exitOK, stdout: []string{"Usage: btrobot COMMAND", "  run     run a mission", "btrobot help COMMAND"}},
		{name: "--help", args: []string{"--help"}, code: exitOK, stdout: []string{"Usage: btrobot COMMAND"}},
		{name: "-h", args: []string{"-h"}, code: exitOK, stdout: []string{"Usage: btrobot COMMAND"}},
		{name: "help help", args: []string{"help", "help"}, code: exitOK, stdout: []string{"Usage: btrobot COMMAND"}},
		{name: "no command", args: nil, code: exitUsage, stderr: []string{"Usage: btrobot COMMAND"}, quiet: true},
		{name: "help COMMAND", args: []string{"help", "tick"}, code: exitOK, stdout: []string{"Usage: btrobot tick FILE", "Example:", "Flags:"}},
		{name: "help COMMAND, the details wrapped", args: []string{"help", "check"}, code: exitOK, stdout: []string{"Validate trees", "Example:"}},
		{name: "help an unknown command", args: []string{"help", "nosuch"}, code: exitUsage, stderr: []string{`unknown command "nosuch"`, "btrobot help"}, quiet: true},
		{name: "help a misspelt command", args: []string{"help", "chek"}, code: exitUsage, stderr: []string{`unknown command "chek"; did you mean "check"?`}, quiet: true},
		{name: "help two commands", args: []string{"help", "run", "tick"}, code: exitUsage, stderr: []string{"one command at a time", "Usage: btrobot help [COMMAND]"}, quiet: true},
		{name: "an unknown command", args: []string{"nosuch"}, code: exitUsage, stderr: []string{`unknown command "nosuch"`, "btrobot help"}, quiet: true},
		{name: "a misspelt command", args: []string{"rn"}, code: exitUsage, stderr: []string{`unknown command "rn"; did you mean "run"?`}, quiet: true},
		{name: "a misspelt command, letters swapped", args: []string{"smi"}, code: exitUsage, stderr: []string{`did you mean "sim"?`}, quiet: true},
		{name: "a misspelt help", args: []string{"hepl"}, code: exitUsage, stderr: []string{`did you mean "help"?`}, quiet: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tc.args...)
			assert.Equal(t, tc.code, code, "exit code; stderr:\n%s", stderr)
			for _, s := range tc.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			if tc.quiet {
				assert.Empty(t, stdout)
			}
			if tc.code == exitOK {
				assert.Empty(t, stderr, "help asked for goes to stdout")
			}
			if strings.Contains(stderr, "unknown command") {
				assert.NotContains(t, stderr, "Commands:", "an unknown command gets a pointer to the list, not the list")
			}
		})
	}
}

// TestHelpListsEveryCommandOnOneLine: `btrobot help` has one line per
// command, its description starting in one column, every line within 80
// columns, and no continuation line.
func TestHelpListsEveryCommandOnOneLine(t *testing.T) {
	code, stdout, _ := runCLI("help")
	require.Equal(t, exitOK, code)
	listed := regexp.MustCompile(`(?m)^  ([a-z]+)( +)(\S.*)$`).FindAllStringSubmatchIndex(stdout, -1)
	var names []string
	column := -1
	for _, m := range listed {
		names = append(names, stdout[m[2]:m[3]])
		lineStart := strings.LastIndex(stdout[:m[0]+1], "\n") + 1
		if column < 0 {
			column = m[6] - lineStart
		}
		assert.Equal(t, column, m[6]-lineStart, "the description of %s starts in the column of the others", stdout[m[2]:m[3]])
	}
	var want []string
	for _, c := range commands() {
		want = append(want, c.Name)
		assert.NotEmpty(t, lines[c.Name], "command %s has a line in `btrobot help`", c.Name)
	}
	assert.Equal(t, want, names, "every command listed once, in order")
	all := &cli.Program{Commands: commands()}
	for name := range lines {
		assert.NotNil(t, all.Find(name), "lines names a command that does not exist: %s", name)
	}
	for _, l := range strings.Split(stdout, "\n") {
		assert.LessOrEqual(t, utf8.RuneCountInString(l), 80, "line too long: %q", l)
		if l != "" && !strings.HasPrefix(l, " ") {
			assert.Regexp(t, `^(btrobot —|Usage:|Commands:|Run |Exit codes:)`, l, "no continuation line at column 0")
		}
	}
}

// TestHelpCommandWrapsTheSummary: each command's details, between its
// synopsis and its example, are laid out within 80 columns.
func TestHelpCommandWrapsTheSummary(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.Name, func(t *testing.T) {
			code, stdout, _ := runCLI("help", c.Name)
			require.Equal(t, exitOK, code)
			syn, rest, ok := strings.Cut(stdout, "\n\n")
			require.True(t, ok, "a blank line after the synopsis:\n%s", stdout)
			for _, l := range strings.Split(syn, "\n") {
				assert.LessOrEqual(t, utf8.RuneCountInString(l), cli.HelpWidth, "synopsis line too long: %q", l)
			}
			assert.Equal(t, strings.Join(strings.Fields("Usage: btrobot "+c.Name+" "+c.Args), " "), strings.Join(strings.Fields(syn), " "), "wrapping keeps every word of the synopsis")
			details, _, _ := strings.Cut(rest, "\n\n")
			require.NotEmpty(t, details)
			for _, l := range strings.Split(details, "\n") {
				assert.LessOrEqual(t, utf8.RuneCountInString(l), cli.HelpWidth, "line too long: %q", l)
			}
			assert.Equal(t, strings.Join(strings.Fields(c.Summary), " "), strings.Join(strings.Fields(details), " "), "wrapping keeps every word")
		})
	}
}
