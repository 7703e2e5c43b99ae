package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUIFlagTakesAnOptionalAddress(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{name: "alone", args: []string{"--ui", "--rounds", "1"}, want: []string{"--ui", "--rounds", "1"}},
		{name: "an address after a space", args: []string{"--ui", "0.0.0.0:7070", "--speed", "0"}, want: []string{"--ui=0.0.0.0:7070", "--speed", "0"}},
		{name: "a port alone", args: []string{"-ui", ":7071"}, want: []string{"-ui=:7071"}},
		{name: "joined by =", args: []string{"--ui=127.0.0.1:9000"}, want: []string{"--ui=127.0.0.1:9000"}},
		{name: "last", args: []string{"--headless", "--ui"}, want: []string{"--headless", "--ui"}},
		{name: "before a positional that is no address", args: []string{"--ui", "rec.db3"}, want: []string{"--ui", "rec.db3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, uiArgs(tc.args))
		})
	}
}

func TestStudioFlagsRefuseWhatCannotWork(t *testing.T) {
	rec := writeFile(t, "x.db3", "not a recording")
	for _, tc := range []struct {
		name   string
		args   []string
		saying string
	}{
		{name: "control without a studio (run)", args: []string{"run", "--tree", "t.xml", "--allow-control"}, saying: "--allow-control needs --ui"},
		{name: "control without a studio (replay)", args: []string{"replay", rec, "--allow-control"}, saying: "--allow-control needs --ui"},
		{name: "control without a studio (demo)", args: []string{"demo", "--allow-control"}, saying: "--allow-control needs --ui"},
		{name: "a folder that is not there", args: []string{"studio", "/nonexistent/recordings"}, saying: "no such file or directory"},
		{name: "two folders", args: []string{"studio", "a", "b"}, saying: "Usage: btrobot studio"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tc.saying)
		})
	}
}
