package studio

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// TestTheTreeSaysWhatWasSubstituted: a node that a substitution rule
// built something else in place of carries what, for the page to mark;
// the others carry nothing.
func TestTheTreeSaysWhatWasSubstituted(t *testing.T) {
	doc, err := trees.Parse("t.xml", []byte(`<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
	  <ScriptCondition name="battery_ok" code="true"/><AlwaysFailure name="dock"/><Script name="log" code="n := 1"/>
	</Sequence></BehaviorTree></root>`))
	require.NoError(t, err)
	subs, err := runtime.ParseSubstitutions("rules.json", []byte(`{"TestNodeConfigs": {"flat": {"return_status": "FAILURE"}},
	  "SubstitutionRules": {"battery_ok": "flat", "dock": "AlwaysSuccess"}}`))
	require.NoError(t, err)
	tree, err := runtime.Build(mission.Nodes(), doc, runtime.BuildConf{Substitutions: subs})
	require.NoError(t, err)
	got := map[string]string{}
	for _, n := range describe(tree) {
		got[n.Name] = n.Substitute
	}
	assert.Equal(t, map[string]string{"Sequence": "", "battery_ok": "a test node (flat)", "dock": "AlwaysSuccess", "log": ""}, got)
}
