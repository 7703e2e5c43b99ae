package runtime

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime/internal/nodedocs"
)

// The contract of every node is written once, in its doc comment;
// node_docs.go carries it to the registry and must be current.
func TestNodeDocsAreCurrent(t *testing.T) {
	want, err := nodedocs.Generate(".", "runtime", "nodeDocs", "Base")
	require.NoError(t, err)
	got, err := os.ReadFile("node_docs.go")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "runtime/node_docs.go is out of date with the node comments: run `go generate ./runtime/`")
}

func TestEveryBuiltinIsDocumented(t *testing.T) {
	for _, typ := range NewRegistry().Types() {
		assert.NotEmpty(t, typ.Summary, "%s has no Summary", typ.ID)
		assert.NotEmpty(t, typ.Doc, "%s has no Doc: give its Go type a doc comment and run go generate ./runtime/", typ.ID)
	}
}
