package hil

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// TestHTMLReportShowsEveryFailedAlternative: the page's "why" section
// prints the chain as the run's report does — each alternative a Fallback
// tried before the one the chain follows, indented under it, with its own
// reason — not the main chain alone.
func TestHTMLReportShowsEveryFailedAlternative(t *testing.T) {
	chain := []runtime.Cause{
		{Path: "MainTree/get_power", Type: "Fallback", Status: runtime.Failure},
		{Path: "MainTree/get_power/dock_west", Type: "Dock", Status: runtime.Failure, Reason: "dock_west is occupied"},
	}
	chain[0].Alternatives = [][]runtime.Cause{{
		{Path: "MainTree/get_power/enough", Type: "ScriptCondition", Status: runtime.Failure, Reason: "level >= needed is false (level = 7, needed = 12)"},
	}}
	var page bytes.Buffer
	require.NoError(t, WriteHTML(&page, Case{File: "x.scenario.yaml", Result: Result{
		Reports: []mission.Report{{Robot: "robot1", Status: runtime.Failure, Explanation: chain}},
	}}, t.TempDir()))
	html := page.String()
	for _, want := range []string{
		"MainTree/get_power (Fallback) FAILURE\n",
		"  MainTree/get_power/enough (ScriptCondition) FAILURE: level &gt;= needed is false (level = 7, needed = 12)\n",
		"  MainTree/get_power/dock_west (Dock) FAILURE: dock_west is occupied\n",
	} {
		assert.Contains(t, html, want)
	}
}

// TestOutcomeVerdictSaysWhy: the verdict on a mission's outcome says when
// it ended and, for a failed or aborted one, why — the leaf of its
// explanation or the error — so that a failing scenario reads from the
// console or the JUnit message without opening its report.
func TestOutcomeVerdictSaysWhy(t *testing.T) {
	chain := []runtime.Cause{
		{Path: "MainTree/errand", Type: "Sequence", Status: runtime.Failure},
		{Path: "MainTree/errand/go", Type: "NavigateTo", Status: runtime.Failure, Reason: "move_base did not acknowledge the goal within 2s"},
	}
	failed := mission.Report{Outcome: mission.Failed, Status: runtime.Failure, Explanation: chain}
	outcome := func(want string) Expectation { return Expectation{Kind: "outcome", Outcome: want} }
	within := Expectation{Kind: "ends_within", Within: time.Minute}
	for _, tc := range []struct {
		name     string
		expect   Expectation
		report   mission.Report
		pass     bool
		measured string
	}{
		{"failed, done wanted", outcome("done"), failed, false,
			"failed at 10.5s: MainTree/errand/go (NavigateTo) FAILURE: move_base did not acknowledge the goal within 2s"},
		{"failed, failure wanted", outcome("failed"), failed, true,
			"failed at 10.5s: MainTree/errand/go (NavigateTo) FAILURE: move_base did not acknowledge the goal within 2s"},
		{"failed with no explanation", outcome("done"), mission.Report{Outcome: mission.Failed}, false, "failed at 10.5s"},
		{"aborted", outcome("done"), mission.Report{Outcome: mission.Aborted, Err: errors.New("lost the master")}, false,
			"aborted at 10.5s: lost the master"},
		{"succeeded", outcome("done"), mission.Report{Outcome: mission.Succeeded, Explanation: chain[:1]}, true, "succeeded at 10.5s"},
		{"stopped", outcome("done"), mission.Report{Outcome: mission.Stopped, Why: "interrupted by SIGINT"}, false,
			"stopped (interrupted by SIGINT) at 10.5s"},
		{"ends within, failed", within, failed, true,
			"failed at 10.5s: MainTree/errand/go (NavigateTo) FAILURE: move_base did not acknowledge the goal within 2s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr := &robotRecord{name: "robot1", end: 10500 * time.Millisecond}
			pass, measured := rr.judge(tc.expect, tc.report)
			assert.Equal(t, tc.pass, pass, measured)
			assert.Equal(t, tc.measured, measured)
		})
	}
}
