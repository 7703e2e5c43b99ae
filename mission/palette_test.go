package mission_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/trees"
)

// TestPaletteHasTheRobotNodes: the one palette has the built-in nodes, the
// generic ROS nodes and the skills, and the shipped missions check clean
// against it.
func TestPaletteHasTheRobotNodes(t *testing.T) {
	reg := mission.Nodes()
	for _, id := range []string{"Sequence", "ReactiveFallback", "Publish", "RunAction", "TopicCondition", "NavigateTo", "Dock", "BatteryAbove", "PopPlace"} {
		_, ok := reg.Lookup(id)
		assert.True(t, ok, "the palette lacks %s", id)
	}
	files, err := filepath.Glob("../trees/missions/*.xml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 5)
	for _, f := range files {
		assert.NoError(t, trees.CheckFile(reg, f), f)
	}
}

// docs/nodes.md is the reference of the whole palette (built-in nodes, ROS
// nodes, skills), generated from the registry, never written by hand.
func TestNodeReferenceIsCurrent(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, trees.WriteMarkdown(&out, mission.Nodes()))
	const path = "../docs/nodes.md"
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	}
	have, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(have, out.Bytes()), "docs/nodes.md is out of date with the palette; regenerate it with\n"+
		"\tgo run ./cmd/btrobot nodes --format markdown > docs/nodes.md")
}
