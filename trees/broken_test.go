package trees

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestBrokenTrees runs the catalogue of broken trees: each
// testdata/broken/NAME.xml must produce exactly the errors in NAME.err,
// one a line, as `btrobot check` prints them (the loader's, then
// runtime.Check's). UPDATE_GOLDEN=1 go test ./trees/ rewrites the .err
// files; review the diff.
func TestBrokenTrees(t *testing.T) {
	files, err := filepath.Glob("testdata/broken/*.xml")
	require.NoError(t, err, "want the catalogue of broken trees, found %d files (%v)", len(files), err)
	require.GreaterOrEqual(t, len(files), 15, "want the catalogue of broken trees, found %d files (%v)", len(files), err)
	reg := runtime.NewRegistry()
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".xml"), func(t *testing.T) {
			err := CheckFile(reg, path)
			require.Error(t, err, "%s checks clean; a broken tree must produce errors", path)
			got := strings.Join(errorTexts(t, err), "\n") + "\n"
			errPath := strings.TrimSuffix(path, ".xml") + ".err"
			if update {
				require.NoError(t, os.WriteFile(errPath, []byte(got), 0o644))
			}
			want, err := os.ReadFile(errPath)
			require.NoError(t, err, "%v (UPDATE_GOLDEN=1 go test ./trees/ writes it)", err)
			assert.Equal(t, string(want), got, "errors of %s\n got:\n%s\nwant:\n%s", path, got, want)
		})
	}
}
