package executor

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The --watch defaults: how often the files are looked at, and how long
// they must stay unchanged before a reload (an editor writes a file in
// several steps, a checkout many files).
const (
	defaultWatchEvery  = 250 * time.Millisecond
	defaultWatchSettle = 500 * time.Millisecond
)

// stamp is what a look at a file sees of it.
type stamp struct {
	size    int64
	modTime time.Time
	missing bool
}

// files is a look at every file a catalog was read from.
type files map[string]stamp

// watched returns the files a catalog depends on: the tree files of its
// directory (so that one added or removed counts), the files they
// include, the profile and the places.
func (c *Catalog) watched() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if entries, err := os.ReadDir(c.Conf.Dir); err == nil {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".xml") {
				add(filepath.Join(c.Conf.Dir, e.Name()))
			}
		}
	}
	for _, m := range c.missions {
		for _, t := range m.Mission.Doc.Trees {
			add(t.Pos.File)
		}
	}
	for _, p := range c.Conf.settings() {
		add(p)
	}
	return out
}

// settings returns the profile's and the places' files, those given.
func (c CatalogConf) settings() []string {
	var out []string
	if c.Profile != "" {
		out = append(out, c.Profile)
	}
	if p := c.Places; p != "" {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			p = filepath.Join(p, "places.yaml")
		}
		out = append(out, p)
	}
	return out
}

// look stats the files, and the directory's tree files besides.
func look(dir string, paths []string) files {
	fs := files{}
	stat := func(p string) {
		fi, err := os.Stat(p)
		if err != nil {
			fs[p] = stamp{missing: true}
			return
		}
		fs[p] = stamp{size: fi.Size(), modTime: fi.ModTime()}
	}
	for _, p := range paths {
		stat(p)
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if p := filepath.Join(dir, e.Name()); strings.HasSuffix(e.Name(), ".xml") {
				if _, done := fs[p]; !done {
					stat(p)
				}
			}
		}
	}
	return fs
}

// watch reloads the catalog when a file it was read from changes, once
// the files have stayed unchanged for settle, until ctx ends. A refused
// reload is logged and shown on /diagnostics as any (Reload).
func (s *Server) watch(ctx context.Context, every, settle time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	current := func() *Catalog {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.catalog
	}
	// The files as the catalog read them, not as they are when this
	// goroutine first runs: one written since (while the server
	// started) is a change.
	cat := current()
	applied := cat.read
	if applied == nil { // a catalog not made by LoadCatalog
		applied = look(cat.Conf.Dir, cat.watched())
	}
	last, lastChange := applied, time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cat = current()
		now := look(cat.Conf.Dir, cat.watched())
		if !maps.Equal(now, last) {
			last, lastChange = now, time.Now()
			continue
		}
		if maps.Equal(now, applied) || time.Since(lastChange) < settle {
			continue
		}
		s.logf("watch: files of %s changed: reloading", cat.Conf.Dir)
		res := s.Reload()
		if s.conf.watchReloaded != nil {
			s.conf.watchReloaded()
		}
		// What the reload read: one that succeeded recorded it, by
		// readStamps' rules (a change written while it read, or after,
		// is a change; so is a tree file that appeared meanwhile); a
		// refused one kept the old catalog, whose files it found as the
		// look that made it did. Looked at again after the reload, a
		// change written right after it passed for read (a tree file
		// changed, one added: TestWatchReloads missed both in full runs).
		applied = now
		if res.Success && current().read != nil {
			applied = current().read
		}
		last = applied
	}
}
