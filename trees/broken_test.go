package trees

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrobot/btrobot/runtime"
)

// TestBrokenTrees runs the catalogue of broken trees: each
// testdata/broken/NAME.xml must produce exactly the errors in NAME.err,
// one a line, as `btrobot check` prints them (the loader's, then
// runtime.Check's). UPDATE_GOLDEN=1 go test ./trees/ rewrites the .err
// files; review the diff.
func TestBrokenTrees(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*.xml")
	if err != nil || len(files) < 15 {
		t.Fatalf("want the catalogue of broken trees, found %d files (%v)", len(files), err)
	}
	reg := runtime.NewRegistry()
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".xml"), func(t *testing.T) {
			err := CheckFile(reg, path)
			if err == nil {
				t.Fatalf("%s checks clean; a broken tree must produce errors", path)
			}
			got := strings.Join(errorTexts(t, err), "\n") + "\n"
			errPath := strings.TrimSuffix(path, ".xml") + ".err"
			if update {
				if err := os.WriteFile(errPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(errPath)
			if err != nil {
				t.Fatalf("%v (UPDATE_GOLDEN=1 go test ./trees/ writes it)", err)
			}
			if got != string(want) {
				t.Errorf("errors of %s\n got:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}
