package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/btrobot/btrobot/trees"
)

// docs/nodes.md is the reference of the whole palette (built-in nodes, ROS
// nodes, skills), generated from the registry, never written by hand.
func TestNodeReferenceIsCurrent(t *testing.T) {
	var out bytes.Buffer
	if err := trees.WriteMarkdown(&out, palette()); err != nil {
		t.Fatal(err)
	}
	const path = "../../docs/nodes.md"
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, out.Bytes()) {
		t.Errorf("docs/nodes.md is out of date with the palette; regenerate it with\n" +
			"\tgo run ./cmd/btrobot nodes --format markdown > docs/nodes.md")
	}
}
