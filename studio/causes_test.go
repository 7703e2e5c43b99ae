package studio

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/btrobot/btrobot/runtime"
)

// TestCausesFlattensAlternatives: the explanation panel gets every line
// runtime.FormatExplanation prints, in its order and at its depth, the
// alternatives a Fallback tried included.
func TestCausesFlattensAlternatives(t *testing.T) {
	cases := []struct {
		name  string
		chain []runtime.Cause
		want  []causeInfo
	}{
		{name: "nothing", chain: nil, want: []causeInfo{}},
		{
			name: "a chain with a Fallback's alternatives",
			chain: []runtime.Cause{
				{Path: "M", Type: "Sequence", Status: runtime.Failure},
				{Path: "M/F", Type: "Fallback", Status: runtime.Failure, Alternatives: [][]runtime.Cause{
					{{Path: "M/F/a", Status: runtime.Failure, Reason: "level >= needed is false"}},
				}},
				{Path: "M/F/b", Status: runtime.Failure},
			},
			want: []causeInfo{
				{Path: "M", Type: "Sequence", Status: "FAILURE", Depth: 0},
				{Path: "M/F", Type: "Fallback", Status: "FAILURE", Depth: 1},
				{Path: "M/F/a", Status: "FAILURE", Reason: "level >= needed is false", Depth: 2},
				{Path: "M/F/b", Status: "FAILURE", Depth: 2},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, causes(tc.chain))
		})
	}
}
