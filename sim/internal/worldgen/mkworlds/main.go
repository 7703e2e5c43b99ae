// Command mkworlds writes the shipped worlds (see package worldgen) into a
// directory, one sub-directory per world:
//
//	go run ./sim/internal/worldgen/mkworlds -out worlds
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/btrobot/btrobot/sim/internal/worldgen"
)

func main() {
	out := flag.String("out", "worlds", "directory to write the worlds into")
	flag.Parse()
	for _, w := range worldgen.All() {
		dir := filepath.Join(*out, w.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "mkworlds:", err)
			os.Exit(1)
		}
		for _, f := range w.Files {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "mkworlds:", err)
				os.Exit(1)
			}
			fmt.Println(filepath.Join(dir, f.Name))
		}
	}
}
