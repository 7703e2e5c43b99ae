package hil

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// xmllint validates doc against testdata/junit.xsd with Debian's xmllint
// and returns what it said.
func xmllint(t *testing.T, doc []byte) (string, error) {
	t.Helper()
	path, err := exec.LookPath("xmllint")
	require.NoError(t, err, "Debian's xmllint is needed (apt-get install libxml2-utils)")
	f := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, os.WriteFile(f, doc, 0o644))
	out, err := exec.Command(path, "--noout", "--schema", "testdata/junit.xsd", f).CombinedOutput()
	return string(out), err
}

// TestJUnitMatchesSchema: the JUnit XML of campaigns of every shape
// (passed, failed, could not run, a matrix's runs, texts with markup in
// them) is valid against the JUnit schema CI tools read; and the schema
// refuses what is not that shape, so the check can fail.
func TestJUnitMatchesSchema(t *testing.T) {
	s := &Scenario{File: "a.scenario.yaml", Name: "a <b> & \"c\" [seed=2 x=1]", Seed: 2, Params: []Param{{"seed", "2"}, {"x", "1"}}}
	e := Expectation{Pos: runtime.Pos{File: "a.scenario.yaml", Line: 9, Col: 5}, Kind: "battery_never_below", Text: "{battery_never_below: 0.5}"}
	held := Verdict{Expectation: e, Robot: "robot1", Pass: true, Measured: "lowest 60%"}
	failed := Verdict{Expectation: e, Robot: "robot2", Measured: "lowest 11% at 2m0.4s <low>"}
	for _, tc := range []struct {
		name  string
		cases []Case
	}{
		{"empty campaign", nil},
		{"all held", []Case{{File: s.File, Result: Result{Scenario: s, Verdicts: []Verdict{held}, SimTime: time.Minute, Wall: time.Second}}}},
		{"one failed", []Case{{File: s.File, Result: Result{Scenario: s, Verdicts: []Verdict{held, failed}, Events: []string{"1s fault ]]> {battery: 0.1}"}}}}},
		{"could not run", []Case{{File: "b.scenario.yaml", Err: errors.New("start the ROS master: no port\nsecond line")}}},
		{"mixed", []Case{
			{File: s.File, Result: Result{Scenario: s, Verdicts: []Verdict{held}}},
			{File: s.File, Result: Result{Scenario: s, Verdicts: []Verdict{failed}}},
			{File: "c.scenario.yaml", Err: errors.New("x")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, WriteJUnit(&out, tc.cases))
			said, err := xmllint(t, out.Bytes())
			assert.NoError(t, err, "%s\n%s", said, out.String())
			assert.Contains(t, said, "validates")
		})
	}
	for _, tc := range []struct{ name, doc, said string }{
		{"a count that is not a number", `<testsuites><testsuite name="a" tests="x" failures="0" errors="0"/></testsuites>`, "'x' is not a valid value"},
		{"a suite without a name", `<testsuites><testsuite tests="0" failures="0" errors="0"/></testsuites>`, "The attribute 'name' is required"},
		{"two failures in a case", `<testsuites><testsuite name="a" tests="1" failures="2" errors="0"><testcase name="x" classname="a"><failure/><failure/></testcase></testsuite></testsuites>`, "This element is not expected"},
		{"a wrong root", `<results/>`, "No matching global declaration"},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			said, err := xmllint(t, []byte(tc.doc))
			assert.Error(t, err)
			assert.True(t, strings.Contains(said, tc.said), said)
		})
	}
}
