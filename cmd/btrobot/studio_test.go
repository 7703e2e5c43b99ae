package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
