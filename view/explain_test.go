package view

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

func TestExplanation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		chain  []runtime.Cause
		indent string
		want   string
	}{
		{"nothing to explain", nil, "", ""},
		{"nothing to explain, indented", nil, "  ", ""},
		{"a chain to the leaf that decided", []runtime.Cause{
			{Path: "MainTree", Type: "Sequence", Status: runtime.Failure},
			{Path: "MainTree/Patrol", Type: "Fallback", Status: runtime.Failure, Reason: "every child failed"},
			{Path: "MainTree/Patrol/NavigateTo#2", Type: "NavigateTo", Status: runtime.Failure, Reason: "move_base aborted: no path to kitchen"},
		}, "", "MainTree (Sequence) FAILURE\n" +
			"  MainTree/Patrol (Fallback) FAILURE: every child failed\n" +
			"    MainTree/Patrol/NavigateTo#2 (NavigateTo) FAILURE: move_base aborted: no path to kitchen\n"},
		{"a success, no type", []runtime.Cause{{Path: "M", Status: runtime.Success}}, "", "M SUCCESS\n"},
		{"indented, every line", []runtime.Cause{
			{Path: "M", Type: "Sequence", Status: runtime.Failure},
			{Path: "M/c", Type: "ScriptCondition", Status: runtime.Failure, Reason: "n == 1 is false (n = 0)"},
		}, "  ", "  M (Sequence) FAILURE\n    M/c (ScriptCondition) FAILURE: n == 1 is false (n = 0)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			require.NoError(t, Explanation(&b, tc.chain, tc.indent))
			assert.Equal(t, tc.want, b.String())
		})
	}
}

// TestLiveViewShowsReasons: with a Reason hook, a failed node's reason
// stands beside its status, in the plain log and in the frame; without
// one, nothing changes (TestLiveViewPlainLines).
func TestLiveViewShowsReasons(t *testing.T) {
	reason := func(n runtime.Node) string {
		if runtime.NodeOf(n).Name() == "door_open" {
			return "the door is shut"
		}
		return ""
	}
	t.Run("plain lines", func(t *testing.T) {
		fx := newViewFixture(t, patrolXML, LiveConf{Heartbeat: -1, Reason: reason})
		fx.cond["battery_ok"] = true
		fx.view.Start()
		fx.outcome["go_kitchen"] = runtime.Success
		fx.tick()
		fx.view.Close("")
		assert.Contains(t, fx.out.String(), "FAILURE Main/patrol/round/door/door_open: the door is shut\n")
		assert.Contains(t, fx.out.String(), "SUCCESS Main/patrol/battery_ok\n", "a node without a reason keeps its line")
	})
	t.Run("the frame", func(t *testing.T) {
		fx := newViewFixture(t, patrolXML, LiveConf{Terminal: true, Reason: reason})
		fx.cond["battery_ok"] = true
		fx.outcome["go_kitchen"] = runtime.Success
		fx.tick()
		frame := strings.Join(fx.frame(100, 24), "\n")
		assert.Contains(t, frame, "✗ door_open (Check)  the door is shut")
	})
}
