package cli

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSynopsis: a synopsis wraps between its bracketed groups, with
// continuation lines under the first argument.
func TestSynopsis(t *testing.T) {
	for _, tc := range []struct {
		name, args, want string
		width            int
	}{
		{name: "fits", args: "FILE [--ticks N]", width: 80, want: "Usage: btrobot x FILE [--ticks N]"},
		{name: "a group is never split", args: "[--a A] [--bb BB] [--c C]", width: 30,
			want: "Usage: btrobot x [--a A]\n                 [--bb BB]\n                 [--c C]"},
		{name: "nested brackets", args: "[--groot [HOST:]PORT] F", width: 40, want: "Usage: btrobot x [--groot [HOST:]PORT] F"},
		{name: "a group longer than the width stays whole", args: "[--a-very-long-flag VALUE]", width: 20, want: "Usage: btrobot x [--a-very-long-flag VALUE]"},
		{name: "no arguments", args: "", width: 80, want: "Usage: btrobot x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Synopsis("btrobot x", tc.args, tc.width))
		})
	}
}

// TestWrap: summaries read as paragraphs at the given width.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
		width            int
	}{
		{name: "short", text: "one line.", width: 20, want: "one line."},
		{name: "joined and rewrapped", text: "a b c\nd e f", width: 5, want: "a b c\nd e f"},
		{name: "a break mid-sentence goes", text: "aa bb\ncc", width: 20, want: "aa bb cc"},
		{name: "a sentence keeps its line", text: "aa bb.\ncc", width: 20, want: "aa bb.\ncc"},
		{name: "a long word stands alone", text: "a abcdefghij b", width: 5, want: "a\nabcdefghij\nb"},
		{name: "runes, not bytes", text: "ééé ééé", width: 7, want: "ééé ééé"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Wrap(tc.text, tc.width))
		})
	}
}

// TestParseArgs: flags are taken anywhere among the arguments; after --
// everything is positional.
func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		pos   []string
		ticks int
		set   []string
		err   string
	}{
		{name: "flags first", args: []string{"--ticks", "5", "a.xml"}, pos: []string{"a.xml"}, ticks: 5},
		{name: "flags after", args: []string{"a.xml", "--ticks", "5"}, pos: []string{"a.xml"}, ticks: 5},
		{name: "flags between", args: []string{"a", "--set", "x=1", "b", "--set", "y=2"}, pos: []string{"a", "b"}, set: []string{"x=1", "y=2"}},
		{name: "after --", args: []string{"a", "--", "--ticks", "5"}, pos: []string{"a", "--ticks", "5"}},
		{name: "unknown flag", args: []string{"a", "--tick", "5"}, err: "flag provided but not defined: -tick"},
		{name: "help", args: []string{"-h"}, err: flag.ErrHelp.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(new(nopWriter))
			ticks := fs.Int("ticks", 0, "")
			var set Multi
			fs.Var(&set, "set", "")
			pos, err := ParseArgs(fs, tc.args)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.pos, pos)
			assert.Equal(t, tc.ticks, *ticks)
			assert.Equal(t, tc.set, []string(set))
			assert.Equal(t, tc.ticks != 0, Given(fs, "ticks"))
		})
	}
}

type nopWriter struct{}

func (*nopWriter) Write(p []byte) (int, error) { return len(p), nil }
