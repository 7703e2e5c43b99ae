package sim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/btrobot/btrobot/sim/internal/worldgen"
)

// TestShippedWorldsAreGenerated checks that worlds/ holds exactly what
// sim/internal/worldgen draws; after changing a plan, run go generate ./sim.
func TestShippedWorldsAreGenerated(t *testing.T) {
	for _, w := range worldgen.All() {
		for _, f := range w.Files {
			path := filepath.Join("..", "worlds", w.Name, f.Name)
			got, err := os.ReadFile(path)
			if !assert.NoError(t, err, "%v (run go generate ./sim)", err) {
				continue
			}
			assert.True(t, bytes.Equal(got, f.Data), "%s differs from what worldgen draws (run go generate ./sim)", path)
		}
	}
}
