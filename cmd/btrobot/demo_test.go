package main

import (
	"bytes"
	"fmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/btrobot/btrobot/internal/english"
)

// TestDemoRunsHeadless is the README's first command as CI runs it: the
// demo runs to the end of its rounds with plain lines, prints its summary
// and draws the trajectory, and exits 0. It runs outside a checkout (where
// `go install` puts the binary): on the world, mission and profile built
// into the binary, leaving nothing behind in its temporary directory.
//
// It runs the btrobot program, as a user does, not run() in the test's
// process: the demo is the one whole mission the tests run under the race
// detector otherwise (11 core-s, 3x the program's), and the race detector
// watches the simulator, the mission and the tick loop it is made of in
// sim, mission and skills.
func TestDemoRunsHeadless(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want map[string]int // summary figures
	}{
		// The defaults but one round (the second round of the default two
		// repeats the first without a charge): a battery at 30% runs low
		// in the first round, so the robot docks and charges once, and
		// never gives up a place.
		{"one round", []string{"--rounds", "1"}, map[string]int{"rounds": 1, "visited": 6, "given up": 0, "charges": 1, "dock visits": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			picture := filepath.Join(t.TempDir(), "trajectory.png")
			// A temporary directory of the test's own: other processes on
			// the machine write to the shared one while the demo runs.
			tmp := t.TempDir()
			args := append([]string{"demo", "--speed", "0", "--headless", "--picture", picture}, tc.args...)
			cmd := exec.Command(buildBinary(t), args...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stdout, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &errOut
			err := cmd.Run()
			out, stderr := stdout.String(), errOut.String()
			require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", out, stderr)
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			for _, e := range left {
				assert.Fail(t, fmt.Sprintf("the demo left %s behind", filepath.Join(tmp, e.Name())))
			}
			assert.Contains(t, stderr, "demo: 0/1 round · ", "no progress on stderr:\n%s", stderr)
			assert.NotContains(t, out, "\x1b[", "--headless output has terminal escapes")
			for _, w := range []string{
				"btrobot demo · office · patrol with charging",
				"RUNNING PatrolWithCharging/mission",
				"NavigateTo  goal=reception",
				"sim: robot1: dock goal succeeded",
				strconv.Itoa(tc.want["rounds"]) + english.Plural(tc.want["rounds"], " round", " rounds") + " done",
				"tree halted; zero velocity sent on /robot1/cmd_vel",
				"picture     " + picture,
			} {
				assert.Contains(t, out, w, "output lacks %q", w)
			}
			got := summaryFigures(out)
			for k, v := range tc.want {
				assert.Equal(t, v, got[k], "summary %s = %d, want %d", k, got[k], v)
			}
			assert.GreaterOrEqual(t, got["distance"], 50*int(got["rounds"]), "summary distance %d m for %d rounds: a round of the office is over 50 m", got["distance"], got["rounds"])
			f, err := os.Open(picture)
			require.NoError(t, err)
			defer f.Close()
			img, err := png.Decode(f)
			require.NoError(t, err, "the picture is not a PNG: %v", err)
			b := img.Bounds()
			assert.GreaterOrEqual(t, b.Dx(), 200, "picture of %v", b)
			assert.GreaterOrEqual(t, b.Dy(), 100, "picture of %v", b)
			if t.Failed() {
				t.Logf("output:\n%s", tail(out, 30))
			}
		})
	}
}

// summaryFigures reads the numbers of the demo's summary.
func summaryFigures(out string) map[string]int {
	got := map[string]int{}
	for _, p := range []struct{ key, re string }{
		{"rounds", `(?m)^rounds +(\d+) `},
		{"visited", `(\d+) places visited`},
		{"given up", `(\d+) given up`},
		{"distance", `(?m)^distance +(\d+)`},
		{"charges", `(?m)^docking +(\d+) charge`},
		{"dock visits", `(\d+) dock visits?\b`},
		{"recovered", `(?m)^recovered +(\d+)`},
	} {
		if m := regexp.MustCompile(p.re).FindStringSubmatch(out); m != nil {
			got[p.key], _ = strconv.Atoi(m[1])
		} else {
			got[p.key] = -1
		}
	}
	return got
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func TestDemoRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--rounds", "0"},
		{"--speed", "-1"},
		{"--battery", "0"},
		{"--picture", "out.gif"},
		{"stray"},
	} {
		code, _, stderr := runCLI(append([]string{"demo"}, args...)...)
		assert.Equal(t, exitUsage, code, "demo %v: exit %d, want 2 with a reason:\n%s", args, code, stderr)
		assert.Contains(t, stderr, "btrobot demo:", "demo %v: exit %d, want 2 with a reason:\n%s", args, code, stderr)
	}
}
