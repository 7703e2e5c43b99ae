package mission_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// TestOwnNodes: a program that embeds btrobot adds its own node types to
// a mission (LoadConf.Nodes); Load checks the tree against them beside
// the palette's, and refuses one named like a palette node. Run building
// them is examples.Example_embedRun.
func TestOwnNodes(t *testing.T) {
	photograph := runtime.ActionType("Photograph", []runtime.PortSpec{
		runtime.InputPort[string]("place", "where the robot is"),
	}, func(*runtime.Leaf) (runtime.Status, error) { return runtime.Success, nil })
	tree := func(node string) string {
		return writeFile(t, "t.xml", `<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
  <NavigateTo goal="kitchen"/>
  `+node+`
</Sequence></BehaviorTree></root>`)
	}
	for _, tc := range []struct {
		name  string
		node  string
		nodes []runtime.NodeType
		err   string // "" loads
	}{
		{name: "a node of your own", node: `<Photograph place="kitchen"/>`, nodes: []runtime.NodeType{photograph}},
		{name: "not given", node: `<Photograph place="kitchen"/>`, err: `unknown node type "Photograph"`},
		{name: "checked against its ports", node: `<Photograph room="kitchen"/>`, nodes: []runtime.NodeType{photograph}, err: `"room"`},
		{name: "named like a palette node", node: `<Photograph place="kitchen"/>`,
			nodes: []runtime.NodeType{photograph, runtime.ActionType("NavigateTo", nil, func(*runtime.Leaf) (runtime.Status, error) { return runtime.Success, nil })},
			err:   "register NavigateTo: a node type with this ID is already registered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mission.Load(mission.LoadConf{Tree: tree(tc.node), Profile: simProfile, Places: officeWorld, Nodes: tc.nodes})
			if tc.err == "" {
				require.NoError(t, err)
				assert.Len(t, m.Nodes, len(tc.nodes))
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}
