package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestTreeXMLLookUp: a LookUp is written as the leaf it is in the XML,
// and each of its goals' trees as an instance of its own under
// LookUp/TreeID, with its nodes' UIDs, as Groot2 shows a SubTree's.
func TestTreeXMLLookUp(t *testing.T) {
	cases := []struct {
		name string
		want string
	}{
		{
			name: "two goals, one tree each",
			want: `<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4">
  <BehaviorTree ID="Main" _fullpath="">
    <LookUp name="pursue" _uid="1" goal="{goal}" table="charge=Charge; deliver=Deliver"/>
  </BehaviorTree>
  <BehaviorTree ID="Charge" _fullpath="Main/pursue/Charge">
    <AlwaysSuccess name="AlwaysSuccess" _uid="2"/>
  </BehaviorTree>
  <BehaviorTree ID="Deliver" _fullpath="Main/pursue/Deliver">
    <AlwaysFailure name="AlwaysFailure" _uid="3"/>
  </BehaviorTree>
  <TreeNodesModel/>
</root>
`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := &runtime.Document{Main: "Main", Trees: []*runtime.TreeSpec{
				{ID: "Main", Root: runtime.N("LookUp", runtime.A("name", "pursue", "goal", "{goal}", "table", "charge=Charge; deliver=Deliver"))},
				{ID: "Charge", Root: runtime.N("AlwaysSuccess", nil)},
				{ID: "Deliver", Root: runtime.N("AlwaysFailure", nil)},
			}}
			tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Seed: 1})
			require.NoError(t, err)
			got, err := TreeXML(tree, doc, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
