package trees

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestWriteMermaid: the picture of a tree, node by node, in order, with
// shapes by kind and labels escaped.
func TestWriteMermaid(t *testing.T) {
	const src = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="mission">
      <Inverter>
        <AlwaysFailure name="x &quot;quoted&quot; &amp; &lt;tagged&gt;"/>
      </Inverter>
      <SubTree ID="Visit" _autoremap="true" target="{t}"/>
      <Script code="a := 1" _post="b := 2"/>
      <ScriptCondition code="a == 1"/>
      <Drive speed="1" accel="2" jerk="3" snap="4"/>
      <Sleep msec="1000000000000000000000000000000000000000000000000"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Visit"><AlwaysSuccess/></BehaviorTree>
  <TreeNodesModel><Condition ID="Drive"/></TreeNodesModel>
</root>`
	doc, err := Parse("m.xml", []byte(src))
	require.NoError(t, err)
	cases := []struct {
		name string
		id   string
		reg  *runtime.Registry
		want string
	}{
		{name: "main tree, kinds from the registry and the models", reg: runtime.NewRegistry(), want: `flowchart TD
  n1["mission<br/><b>Sequence</b>"]
  n2{{"<b>Inverter</b>"}}
  n3(["x #quot;quoted#quot; #amp; #lt;tagged#gt;<br/><b>AlwaysFailure</b>"])
  n2 --> n3
  n1 --> n2
  n4[["<b>Visit</b><br/>target={t}"]]
  n1 --> n4
  n5(["<b>Script</b><br/>code=a := 1"])
  n1 --> n5
  n6>"<b>ScriptCondition</b><br/>code=a == 1"]
  n1 --> n6
  n7>"<b>Drive</b><br/>speed=1<br/>accel=2<br/>jerk=3<br/>…"]
  n1 --> n7
  n8(["<b>Sleep</b><br/>msec=1000000000000000000000000000000000…"])
  n1 --> n8
`},
		{name: "another tree by ID", id: "Visit", want: `flowchart TD
  n1(["<b>AlwaysSuccess</b>"])
`},
	}
	for _, tc := range cases {
		var b strings.Builder
		require.NoError(t, WriteMermaid(&b, doc, tc.id, tc.reg), "%s", tc.name)
		assert.Equal(t, tc.want, b.String(), "%s:\n got %s\nwant %s", tc.name, b.String(), tc.want)
	}
	err = WriteMermaid(&strings.Builder{}, doc, "Vist", nil)
	assert.ErrorContains(t, err, `no tree "Vist" (did you mean Visit?)`, "unknown tree: %v", err)
	err = WriteMermaid(&strings.Builder{}, nil, "", nil)
	assert.Error(t, err, "nil document: no error")
}
