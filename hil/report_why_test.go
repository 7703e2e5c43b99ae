package hil

import (
	"bytes"
	"testing"

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
