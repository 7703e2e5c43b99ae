package studio

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
)

// The editor's folder, and nothing outside it: every file the studio reads
// or writes for the page is named relative to the folder (inFolder), and
// reached through symbolic links only where they stay in it (resolve, and
// os.Root for writes). What a tree includes, a world's map and its image
// are held to the same rule before anything reads them. (A local user who
// swaps a link between the check and the read is not who this guards
// against: the page is.)

// The bounds of paths the page names and of the folder's listing: a page
// cannot make the studio build deep folders or walk without end.
const (
	maxPathLen   = 512   // bytes of a path the page names
	maxPathDepth = 8     // folders above a file the page names
	maxWalkDepth = 12    // folders deep the listing goes
	maxWalk      = 20000 // files and folders the listing visits
)

// errOutside says a path leads out of the folder.
var errOutside = errors.New("leads outside the folder (a symbolic link or an absolute path): the studio reads and writes nothing outside it")

// inFolder checks a path of the folder the page names: relative,
// slash-separated, without . or .. elements (but for a leading ./, and
// "." for the folder itself), no control characters, at most maxPathLen
// bytes and maxPathDepth folders deep.
func (e *editor) inFolder(p string) (string, error) {
	c := strings.TrimPrefix(p, "./")
	if p == "" || filepath.IsAbs(p) || !fs.ValidPath(c) || strings.Contains(p, "\\") {
		return "", fmt.Errorf("%q: want a path inside %s, relative to it, without ..", p, e.dir)
	}
	if len(p) > maxPathLen {
		return "", fmt.Errorf("%.40q…: %d bytes, more than the %d a path may have", p, len(p), maxPathLen)
	}
	if strings.Count(c, "/") > maxPathDepth {
		return "", fmt.Errorf("%q: more than %d folders deep", p, maxPathDepth)
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("%q: a path has no control characters", p)
	}
	return c, nil
}

// resolve is the file or folder abs (a path under the folder, as the
// studio or a tree's <include> names it) with its symbolic links
// followed; one that leads outside the folder is refused.
func (e *editor) resolve(abs string) (string, error) {
	rel, err := filepath.Rel(e.dir, abs)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s %w", abs, errOutside)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(e.real, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s %w", e.rel(abs), errOutside)
	}
	return real, nil
}

// abs is the path on disk of p, a path of the folder (inFolder's).
func (e *editor) abs(p string) string { return filepath.Join(e.dir, filepath.FromSlash(p)) }

// readIn reads the folder's file p (inFolder's) as input.ReadFile reads a
// file of kind k: a regular file, bounded in size, inside the folder.
func (e *editor) readIn(p string, k input.Kind) ([]byte, error) {
	real, err := e.resolve(e.abs(p))
	if err != nil {
		return nil, err
	}
	return input.ReadFile(real, k)
}

// readInclude reads a file a tree of the folder includes (trees gives its
// path as it would open it).
func (e *editor) readInclude(abs string) ([]byte, error) {
	real, err := e.resolve(abs)
	if err != nil {
		return nil, err
	}
	return input.ReadFile(real, input.Tree)
}

// checkWorldFiles refuses a world of the folder (dir, with its places pl)
// whose map or map image lies outside the folder: the simulator reads them
// by path.
func (e *editor) checkWorldFiles(dir, mapFile string) error {
	mapPath := filepath.Join(dir, filepath.Base(dir)+".yaml")
	if mapFile != "" {
		mapPath = mapFile
		if !filepath.IsAbs(mapPath) {
			mapPath = filepath.Join(dir, mapPath)
		}
	}
	real, err := e.resolve(mapPath)
	if errors.Is(err, fs.ErrNotExist) && mapFile == "" {
		return nil // no map: the simulator says so
	}
	if err != nil {
		return fmt.Errorf("map: %w", err)
	}
	data, err := input.ReadFile(real, input.Map)
	if err != nil {
		return err
	}
	var m struct {
		Image string `yaml:"image"`
	}
	if yaml.Unmarshal(data, &m) != nil || m.Image == "" {
		return nil // not a map: the simulator says why
	}
	img := m.Image
	if !filepath.IsAbs(img) {
		img = filepath.Join(filepath.Dir(mapPath), img)
	}
	if _, err := e.resolve(img); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: image: %w", e.rel(mapPath), err)
	} else if err != nil {
		return fmt.Errorf("%s: image %s: %w", e.rel(mapPath), m.Image, fs.ErrNotExist)
	}
	return nil
}

// walk calls f for each file and folder of the editor's folder (itself
// included, as "."), but not in hidden folders (.git and the like), at
// most maxWalkDepth deep and maxWalk entries in all; what cannot be read
// is passed over. It reports whether it saw everything.
func (e *editor) walk(f func(p string, d fs.DirEntry)) (whole bool) {
	seen := 0
	whole = true
	_ = fs.WalkDir(e.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxWalk {
			whole = false
			return fs.SkipAll
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(p, "/") >= maxWalkDepth) {
			whole = whole && strings.HasPrefix(d.Name(), ".")
			return fs.SkipDir
		}
		f(p, d)
		return nil
	})
	return whole
}
