package runtime

import "testing"

func TestAlways(t *testing.T) {
	runNodeCases(t, []nodeCase{
		{name: "AlwaysSuccess", tree: N("AlwaysSuccess", nil), steps: ticks(Success, "", Success, "")},
		{name: "AlwaysFailure", tree: N("AlwaysFailure", nil), steps: ticks(Failure, "", Failure, "")},
		{name: "in a Sequence", tree: N("Sequence", nil, N("AlwaysSuccess", nil), S("A", "S"), N("AlwaysFailure", nil), S("B", "S")),
			steps: ticks(Failure, "A")},
	})
	runBuildErrors(t, []buildErrorCase{
		{name: "no ports", tree: N("AlwaysSuccess", A("value", "1")), want: `MainTree/AlwaysSuccess: AlwaysSuccess has no port "value" (it has no ports)`},
	})
}
