package runtime

import (
	"os"
	"testing"

	"github.com/btrobot/btrobot/runtime/internal/nodedocs"
)

// The contract of every node is written once, in its doc comment;
// node_docs.go carries it to the registry and must be current.
func TestNodeDocsAreCurrent(t *testing.T) {
	want, err := nodedocs.Generate(".", "runtime", "nodeDocs", "Base")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("node_docs.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("runtime/node_docs.go is out of date with the node comments: run `go generate ./runtime/`")
	}
}

func TestEveryBuiltinIsDocumented(t *testing.T) {
	for _, typ := range NewRegistry().Types() {
		if typ.Summary == "" {
			t.Errorf("%s has no Summary", typ.ID)
		}
		if typ.Doc == "" {
			t.Errorf("%s has no Doc: give its Go type a doc comment and run go generate ./runtime/", typ.ID)
		}
	}
}
