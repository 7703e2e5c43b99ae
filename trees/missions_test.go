package trees

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestMissionsCheck: every shipped mission loads and passes runtime.Check
// with the built-in palette.
func TestMissionsCheck(t *testing.T) {
	files, _ := filepath.Glob("missions/*.xml")
	require.NotEmpty(t, files, "no missions in trees/missions")
	for _, path := range files {
		err := CheckFile(runtime.NewRegistry(), path)
		assert.NoError(t, err, "%s:\n%v", path, err)
	}
}

// TestHelloMission: the README's first command ticks hello.xml; this is
// what it must show.
func TestHelloMission(t *testing.T) {
	doc, err := Load("missions/hello.xml")
	require.NoError(t, err)
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Seed: 1})
	require.NoError(t, err)
	want := []runtime.Status{runtime.Running, runtime.Running, runtime.Success, runtime.Running}
	for i, w := range want {
		st, err := tree.TickExactlyOnce()
		require.NoError(t, err, "tick %d", i+1)
		assert.Equal(t, w, st, "tick %d: %v, want %v", i+1, st, w)
		if i == 2 {
			got := tree.Blackboard().Snapshot()
			wantBB := map[string]any{"laps": 3, "charge": 0.25, "greeting": "hello, world: 3 laps done"}
			for k, v := range wantBB {
				assert.True(t, got[k] == v, "after tick 3, %s = %#v, want %#v (blackboard %v)", k, got[k], v, got)
			}
		}
	}
}
