package mission

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/btrobot/btrobot/robots"
	"github.com/btrobot/btrobot/trees/missions"
	"github.com/btrobot/btrobot/worlds"
)

// ShippedFiles finds the shipped worlds, missions and robot profiles (the
// demo's, the scenarios'): in the checkout of btrobot the working directory
// is in (the working directory or the nearest of its parents that holds
// every file of need, paths relative to the checkout's root), else the
// copies built into the binary, written out to a temporary directory that
// cleanup removes. The returned root is that checkout or directory.
func ShippedFiles(need ...string) (root string, cleanup func(), err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", nil, err
	}
	for {
		if hasAll(dir, need) {
			return dir, func() {}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	tmp, err := os.MkdirTemp("", "btrobot-demo-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	for _, d := range []struct {
		fsys fs.FS
		dir  string
	}{{worlds.FS, "worlds"}, {missions.FS, "trees/missions"}, {robots.FS, "robots"}} {
		if err := copyFS(filepath.Join(tmp, d.dir), d.fsys); err != nil {
			cleanup()
			return "", nil, fmt.Errorf("writing out the shipped %s: %w", d.dir, err)
		}
	}
	return tmp, cleanup, nil
}

// copyFS writes the files of fsys under dir.
func copyFS(dir string, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// hasAll reports whether every path of need exists under dir.
func hasAll(dir string, need []string) bool {
	for _, p := range need {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			return false
		}
	}
	return true
}
