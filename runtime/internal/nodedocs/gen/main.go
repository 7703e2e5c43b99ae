// Command gen writes a package's node_docs.go from its node types' doc
// comments: go run ./internal/nodedocs/gen -pkg runtime -base Base
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/btrobot/btrobot/runtime/internal/nodedocs"
)

func main() {
	pkg := flag.String("pkg", "runtime", "package name")
	base := flag.String("base", "Base", "the embedded node base, e.g. Base or runtime.Base")
	out := flag.String("o", "node_docs.go", "output file")
	flag.Parse()
	src, err := nodedocs.Generate(".", *pkg, "nodeDocs", *base)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nodedocs:", err)
		os.Exit(1)
	}
}
