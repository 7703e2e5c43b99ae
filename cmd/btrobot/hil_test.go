package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHilExitCodes: 0 when every expectation held, 1 when one failed, 2
// for a bad scenario (nothing runs) or bad usage; the table on stdout and
// the JUnit file either way.
func TestHilExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, "bad.scenario.yaml", "world: ../nowhere\ntme_limit: 1m\n")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"passes", []string{"../../scenarios/dead_move_base.scenario.yaml"}, exitOK, "1 of 1 scenarios passed", ""},
		{"fails", []string{"../../hil/testdata/fail_outcome.scenario.yaml", "-j", "2"}, exitFailed, "{outcome: failed}: failed: succeeded at ", ""},
		{"bad scenario", []string{bad}, exitUsage, "", `unknown key "tme_limit"; did you mean time_limit?`},
		{"no such path", []string{filepath.Join(dir, "none")}, exitUsage, "", "no such file"},
		{"no scenario in a directory", []string{dir}, exitUsage, "", "no scenario (*.scenario.yaml) in it"},
		{"no argument", nil, exitUsage, "", "Usage: btrobot hil"},
		{"bad -j", []string{"-j", "0", "x"}, exitUsage, "", "Usage: btrobot hil"},
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
