package hil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanLeavesLongScenariosOutOfFolders: a long scenario (long: true)
// found by walking a folder runs only with Selection.Long; named as a
// file it always runs; a folder of long scenarios alone says so.
func TestPlanLeavesLongScenariosOutOfFolders(t *testing.T) {
	// base with absolute paths (it names them from testdata/), so that
	// the files may live anywhere
	scenario := strings.ReplaceAll(base, "../../", mustAbs(t, "..")+"/")
	dir := t.TempDir()
	write := func(name, extra string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(scenario+extra), 0o644))
		return p
	}
	quick := write("quick.scenario.yaml", "")
	soak := write("soak/day.scenario.yaml", "long: true\n")
	onlyLong := filepath.Join(dir, "soak")

	for _, tc := range []struct {
		name    string
		paths   []string
		long    bool
		runs    []string // files of the runs
		leftOut []string
		err     string
	}{
		{name: "a folder leaves the long one out", paths: []string{dir}, runs: []string{quick}, leftOut: []string{soak}},
		{name: "--long keeps it", paths: []string{dir}, long: true, runs: []string{quick, soak}},
		{name: "named as a file it runs", paths: []string{soak}, runs: []string{soak}},
		{name: "a folder of long ones alone", paths: []string{onlyLong}, err: "every scenario found is long (" + soak + "): --long runs them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Plan(tc.paths, Selection{Long: tc.long})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var files []string
			for _, r := range p.Runs {
				files = append(files, r.File)
			}
			assert.Equal(t, tc.runs, files)
			assert.Equal(t, tc.leftOut, p.LeftOut)
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	require.NoError(t, err)
	return a
}

// TestProgressLine: what a campaign's progress says, as the line shows it.
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Progress
		want string
		left time.Duration
	}{
		{"at the start", Progress{Total: 21}, "0/21 runs · 0s simulated", 0},
		{"under a second of wall time", Progress{Done: 1, Total: 21, Simulated: time.Minute, Wall: 500 * time.Millisecond}, "1/21 runs · 1m0s simulated", 0},
		{"midway", Progress{Done: 7, Total: 21, Simulated: 30 * time.Minute, Ahead: 60 * time.Minute, Wall: 10 * time.Second},
			"7/21 runs · 30m0s simulated · 180× real time · at most 20s left", 20 * time.Second},
		{"all done", Progress{Done: 21, Total: 21, Simulated: 90 * time.Minute, Wall: 30 * time.Second},
			"21/21 runs · 1h30m0s simulated · 180× real time", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.p.String())
			if tc.p.Ahead > 0 {
				assert.Equal(t, tc.left, tc.p.Left())
			}
		})
	}
}
