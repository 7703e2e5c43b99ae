package mission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadRefusesWritesToProfileInputs: with a robot profile, a tree that
// writes an entry the scan cycle fills from a topic is refused at load,
// where the write is; it ran before and aborted at the tick that wrote
// (the shipped Hello did, with sim.yaml's battery).
func TestLoadRefusesWritesToProfileInputs(t *testing.T) {
	tree := func(body string) string {
		return `<root BTCPP_format="4" main_tree_to_execute="M">
<BehaviorTree ID="M">
  <Sequence>
    ` + body + `
  </Sequence>
</BehaviorTree>
<BehaviorTree ID="Inner"><Script code="battery := 2.0"/></BehaviorTree>
</root>`
	}
	for _, tc := range []struct {
		name, body string
		want       []string // empty: loads
	}{
		{name: "the old Hello: a script assigns the whole message's key",
			body: `<Script name="start" code="laps := 0; battery := 1.0"/>`,
			want: []string{"m.xml:4:", `Script start assigns "battery", an input of the robot profile`, "battery_state (sensor_msgs/BatteryState)"}},
		{name: "a field's key",
			body: `<Script code="battery_pct -= 0.25"/>`,
			want: []string{`assigns "battery_pct"`, "field percentage of"}},
		{name: "a post-condition",
			body: `<AlwaysSuccess _onSuccess="battery_pct := 1.0"/>`,
			want: []string{`AlwaysSuccess assigns "battery_pct"`}},
		{name: "an output port",
			body: `<SetBlackboard value="1" output_key="battery_pct"/>`,
			want: []string{`SetBlackboard writes its output output_key to "battery_pct"`}},
		{name: "a port naming an input it reads",
			body: `<TopicFresh key="scan" max_age="1"/>`},
		{name: "a post-condition on a decorator",
			body: `<Sequence><AlwaysSuccess/></Sequence><RetryUntilSuccessful num_attempts="2" _post="scan := 0"><AlwaysSuccess/></RetryUntilSuccessful>`,
			want: []string{`RetryUntilSuccessful assigns "scan"`}},
		{name: "reading an input is what it is for",
			body: `<ScriptCondition code="battery_pct &gt; 0.2"/>`},
		{name: "the tree's own names",
			body: `<Script code="charge := 1.0; charge -= 0.25"/>`},
		{name: "a subtree's own scope is not the root blackboard",
			body: `<SubTree ID="Inner"/>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "m.xml")
			require.NoError(t, os.WriteFile(f, []byte(tree(tc.body)), 0o644))
			_, err := Load(LoadConf{Tree: f, Profile: "../robots/sim.yaml"})
			if len(tc.want) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			_, err = Load(LoadConf{Tree: f})
			assert.NoError(t, err, "without a profile the same tree loads")
		})
	}
}

// TestShippedMissionsLoadWithTheSimProfile: every shipped mission loads
// against the simulator's profile (Hello wrote sim.yaml's battery).
func TestShippedMissionsLoadWithTheSimProfile(t *testing.T) {
	files, err := filepath.Glob("../trees/missions/*.xml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if filepath.Base(f) == "models.xml" {
			continue // node models only, included by the others
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(LoadConf{Tree: f, Profile: "../robots/sim.yaml", Places: "../worlds/office"})
			assert.NoError(t, err)
		})
	}
}
