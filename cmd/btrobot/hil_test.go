package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestHilExitCodes: 0 when every expectation held, 1 when one failed, 2
// for a bad scenario (nothing runs) or bad usage; the table on stdout and
// the JUnit file either way.
func TestHilExitCodes(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the runs' recordings go to a new directory under it
	dir := t.TempDir()
	bad := writeFile(t, "bad.scenario.yaml", "world: ../nowhere\ntme_limit: 1m\n")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"passes", []string{"../../scenarios/dead_move_base.scenario.yaml"}, exitOK, "1 of 1 scenarios passed", "hil: 1/1 runs · "},
		{"passes over TCPROS", []string{"../../scenarios/dead_move_base.scenario.yaml", "--transport", "ros"}, exitOK, "1 of 1 scenarios passed", "hil: 1/1 runs · "},
		{"bad --transport", []string{"--transport", "tcp", "../../scenarios/patrol.scenario.yaml"}, exitUsage, "", `--transport "tcp": want inproc or ros`},
		{"fails", []string{"../../hil/testdata/fail_outcome.scenario.yaml", "-j", "2"}, exitFailed, "{outcome: failed}: failed: succeeded at ", ""},
		{"bad scenario", []string{bad}, exitUsage, "", `unknown key "tme_limit"; did you mean time_limit?`},
		{"no such path", []string{filepath.Join(dir, "none")}, exitUsage, "", "no such file"},
		{"no scenario in a directory", []string{dir}, exitUsage, "", "no scenario (*.scenario.yaml) in it"},
		{"a folder of long scenarios alone", []string{"../../scenarios/soak"}, exitUsage, "",
			"every scenario found is long (../../scenarios/soak/patrol_with_charging_24h.scenario.yaml): --long runs them"},
		{"no argument", nil, exitUsage, "", "Usage: btrobot hil"},
		{"bad -j", []string{"-j", "0", "x"}, exitUsage, "", "Usage: btrobot hil"},
		{"bad --seeds", []string{"--seeds", "5..1", "../../scenarios/patrol.scenario.yaml"}, exitUsage, "", `seeds "5..1": want A..B with A ≤ B`},
		{"bad --shard", []string{"--shard", "3/2", "../../scenarios/patrol.scenario.yaml"}, exitUsage, "", `shard "3/2": want K/N with 1 ≤ K ≤ N`},
		{"bad --only", []string{"--only", "seed", "../../scenarios/patrol.scenario.yaml"}, exitUsage, "", `want name=value pairs`},
		{"--only matching nothing", []string{"--only", "seed=9", "../../scenarios/patrol.scenario.yaml"}, exitUsage, "", `no run has seed=9`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			junit := filepath.Join(dir, tc.name+".xml")
			code, stdout, stderr := runCLI(append([]string{"hil"}, append(tc.args, "--junit", junit)...)...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assert.Contains(t, stdout, tc.stdout)
			assert.Contains(t, stderr, tc.stderr)
			if tc.code == exitUsage {
				assert.NoFileExists(t, junit)
				return
			}
			data, err := os.ReadFile(junit)
			require.NoError(t, err)
			var suites struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
			}
			require.NoError(t, xml.Unmarshal(data, &suites))
			assert.Positive(t, suites.Tests)
			assert.Equal(t, tc.code == exitFailed, suites.Failures > 0)
		})
	}
}

// TestCheckScenarios: btrobot check reads *.scenario.yaml as scenarios,
// with their missions.
func TestCheckScenarios(t *testing.T) {
	code, stdout, _ := runCLI("check", "../../scenarios/patrol.scenario.yaml", "../../scenarios/fleet_patrol.scenario.yaml")
	assert.Equal(t, exitOK, code, stdout)
	bad := writeFile(t, "x.scenario.yaml", "world: ../nowhere\n")
	code, stdout, _ = runCLI("check", bad)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stdout, "x.scenario.yaml:1:8: world: ../nowhere does not exist")
}

// TestHilCampaignFlags: --seeds makes a run per seed, --only and --shard
// choose among them, --report writes a page per run and an index, and
// every run is recorded (beside the reports, or where --record says).
func TestHilCampaignFlags(t *testing.T) {
	dir := t.TempDir()
	scenario := "../../scenarios/dead_move_base.scenario.yaml"
	for _, tc := range []struct {
		name    string
		args    []string
		runs    []string // rows of the table
		pages   int      // HTML pages beside index.html
		records int
	}{
		{"two seeds", []string{"--seeds", "3..4", "--report", filepath.Join(dir, "a")}, []string{"dead move_base [seed=3]", "dead move_base [seed=4]"}, 2, 2},
		{"one of them", []string{"--seeds", "3..4", "--only", "seed=4", "--report", filepath.Join(dir, "b")}, []string{"dead move_base [seed=4]"}, 1, 1},
		{"shard 2 of 2", []string{"--seeds", "3..5", "--shard", "2/2", "--report", filepath.Join(dir, "c"), "--record", filepath.Join(dir, "c-rec")}, []string{"dead move_base [seed=4]"}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"hil", scenario, "-j", "2"}, tc.args...)...)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, r := range tc.runs {
				assert.Contains(t, stdout, r)
			}
			assert.Contains(t, stdout, fmt.Sprintf("%d of %d scenarios passed", len(tc.runs), len(tc.runs)))
			report := tc.args[len(tc.args)-1]
			if tc.records == 0 {
				report = tc.args[len(tc.args)-3]
			}
			pages, _ := filepath.Glob(filepath.Join(report, "*.html"))
			assert.Len(t, pages, tc.pages+1)
			assert.Contains(t, stdout, "reports: "+filepath.Join(report, "index.html"))
			recs, _ := filepath.Glob(filepath.Join(report, "*.btlog"))
			assert.Len(t, recs, tc.records)
			if tc.records == 0 {
				recs, _ = filepath.Glob(filepath.Join(dir, "c-rec", "*.btlog"))
				assert.Len(t, recs, len(tc.runs))
			}
		})
	}
}

// TestHilUIServesUntilInterrupted: btrobot hil --ui runs its scenarios (in
// seconds), prints the table, and then keeps the studio up with the runs,
// their verdicts marked, until interrupted; it exits with the campaign's
// code. Without --ui it exits at once (TestHilExitCodes).
func TestHilUIServesUntilInterrupted(t *testing.T) {
	bin := buildBinary(t)
	addr := fmt.Sprintf("127.0.0.1:%d", rostest.FreePort(t))
	p := rostest.Start(t, "", bin, "hil", "--ui", addr, "--record", "none", "../../hil/testdata/fail_outcome.scenario.yaml")
	p.WaitLine(t, "0 of 1 scenarios passed", 2*time.Minute)
	var runs struct {
		Runs []struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		} `json:"runs"`
	}
	var err error
	for range 50 { // the table is printed just before the wait begins
		var resp *http.Response
		if resp, err = http.Get("http://" + addr + "/api/runs"); err == nil {
			err = json.NewDecoder(resp.Body).Decode(&runs)
			resp.Body.Close()
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, err, "the studio answers after the runs")
	require.Len(t, runs.Runs, 1)
	assert.Contains(t, runs.Runs[0].Name, "robot1")
	time.Sleep(time.Second)
	resp, err := http.Get("http://" + addr + "/api/runs")
	require.NoError(t, err, "a second later the studio still serves the runs")
	resp.Body.Close()
	p.Interrupt()
	err = p.WaitExit(t, 10*time.Second)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, exitFailed, exit.ExitCode(), "the campaign's code: an expectation failed")
}
