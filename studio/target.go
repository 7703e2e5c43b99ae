package studio

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/robots"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/worlds"
)

// What the editor checks a tree against, and what Run runs it on: a robot
// profile and a world, each shipped with btrobot (in the binary:
// robots.FS, worlds.FS) or a file of the editor's folder. With neither the
// tree is checked against the palette wired to no robot, as `btrobot
// check` does; with a profile against that profile's actions and services,
// with a world against its places, as mission.Load does for a run.

// shippedPrefix marks a choice shipped with btrobot ("btrobot:robots/sim.yaml"),
// apart from the folder's own files, named by their path in it.
const shippedPrefix = "btrobot:"

// target is the profile and the world an editor request names ("" for
// none): a choice's ID.
type target struct {
	Profile string `json:"profile"`
	World   string `json:"world"`
}

// targetOf is the target a GET request names in its query.
func targetOf(r *http.Request) target {
	q := r.URL.Query()
	return target{Profile: q.Get("profile"), World: q.Get("world")}
}

// choice is a robot profile or a world the page offers.
type choice struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Shipped bool   `json:"shipped"`
}

// shippedProfiles and shippedWorlds list what the binary carries, by
// their paths in a checkout (robots/sim.yaml, worlds/office).
func shippedProfiles() []string {
	names, _ := fs.Glob(robots.FS, "*.yaml")
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "robots/" + n
	}
	return out
}

func shippedWorlds() []string {
	var out []string
	ents, _ := fs.ReadDir(worlds.FS, ".")
	for _, e := range ents {
		if _, err := fs.Stat(worlds.FS, e.Name()+"/places.yaml"); e.IsDir() && err == nil {
			out = append(out, "worlds/"+e.Name())
		}
	}
	return out
}

// shipped gives the shipped files on disk (mission.ShippedFiles: the
// checkout the studio runs in, else the binary's copies written out once,
// removed at Close), so that checks and runs read them as `btrobot check`
// and `btrobot demo` do.
type shipped struct {
	once    sync.Once
	root    string
	cleanup func()
	err     error
}

var errStudioClosed = errors.New("the studio is closed")

func (s *shipped) path(rel string) (string, error) {
	s.once.Do(func() {
		var need []string
		need = append(need, shippedProfiles()...)
		for _, w := range shippedWorlds() {
			need = append(need, w+"/places.yaml")
		}
		s.root, s.cleanup, s.err = mission.ShippedFiles(need...)
	})
	if s.err != nil {
		return "", fmt.Errorf("the shipped files: %w", s.err)
	}
	return filepath.Join(s.root, filepath.FromSlash(rel)), nil
}

func (s *shipped) close() {
	s.once.Do(func() { s.err = errStudioClosed }) // none made after Close
	if s.cleanup != nil {
		s.cleanup()
	}
}

// choices lists the profiles and worlds the page offers: the shipped ones,
// then the folder's profile files (the .yaml files that parse as robot
// profiles) and world folders (those holding a places.yaml; "." for the
// folder itself).
func (e *editor) choices() (profiles, worlds []choice) {
	for _, p := range shippedProfiles() {
		profiles = append(profiles, choice{ID: shippedPrefix + p, Name: p, Shipped: true})
	}
	for _, w := range shippedWorlds() {
		worlds = append(worlds, choice{ID: shippedPrefix + w, Name: w, Shipped: true})
	}
	var mine, theirs []choice
	e.walk(func(p string, d fs.DirEntry) {
		if d.IsDir() {
			if _, err := e.resolve(e.abs(path.Join(p, "places.yaml"))); err == nil {
				theirs = append(theirs, choice{ID: p, Name: p})
			}
			return
		}
		if ext := strings.ToLower(path.Ext(p)); ext != ".yaml" && ext != ".yml" || d.Name() == "places.yaml" {
			return
		}
		if _, err := e.profile(p); err == nil {
			mine = append(mine, choice{ID: p, Name: p})
		}
	})
	sort.Slice(mine, func(i, j int) bool { return mine[i].ID < mine[j].ID })
	sort.Slice(theirs, func(i, j int) bool { return theirs[i].ID < theirs[j].ID })
	return append(profiles, mine...), append(worlds, theirs...)
}

// profile reads a profile of the folder (p relative to it) or a shipped
// one (an ID with shippedPrefix).
func (e *editor) profile(id string) (*bridge.Profile, error) {
	if rel, ok := strings.CutPrefix(id, shippedPrefix); ok {
		if !slices.Contains(shippedProfiles(), rel) {
			return nil, fmt.Errorf("robot profile %q: btrobot ships %s", id, strings.Join(shippedProfiles(), ", "))
		}
		p, err := e.shipped.path(rel)
		if err != nil {
			return nil, err
		}
		return bridge.LoadProfile(p)
	}
	rel, err := e.inFolder(id)
	if err != nil {
		return nil, fmt.Errorf("robot profile %w", err)
	}
	data, err := e.readIn(rel, input.Profile)
	if err != nil {
		return nil, fmt.Errorf("robot profile %q: %w", id, err)
	}
	return bridge.ParseProfile(data, e.abs(rel), nil)
}

// world resolves a world's ID to its folder on disk and reads its places.
func (e *editor) world(id string) (string, *places.Places, error) {
	if rel, ok := strings.CutPrefix(id, shippedPrefix); ok {
		if !slices.Contains(shippedWorlds(), rel) {
			return "", nil, fmt.Errorf("world %q: btrobot ships %s", id, strings.Join(shippedWorlds(), ", "))
		}
		dir, err := e.shipped.path(rel)
		if err != nil {
			return "", nil, err
		}
		pl, err := mission.LoadPlaces(dir)
		return dir, pl, err
	}
	rel, err := e.inFolder(id)
	if err != nil {
		return "", nil, fmt.Errorf("world %w", err)
	}
	file := path.Join(rel, "places.yaml")
	data, err := e.readIn(file, input.Places)
	if err != nil {
		return "", nil, fmt.Errorf("world %q: %w", id, err)
	}
	dir := e.abs(rel)
	pl, err := places.Parse(filepath.Join(dir, "places.yaml"), data)
	if err == nil {
		// The map and its image are read by path (sim.LoadWorld): they
		// must be the folder's.
		if err := e.checkWorldFiles(dir, pl.Map); err != nil {
			return "", nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return dir, pl, err
}

// registry is the palette wired to t's profile and places, and the
// problems of reading them (file:line:col each): the tree is then checked
// against what could be read, as mission.Load does.
func (e *editor) registry(t target) (*runtime.Registry, []error) {
	if t == (target{}) {
		return e.reg, nil
	}
	var deps mission.Deps
	var errs []error
	if t.Profile != "" {
		p, err := e.profile(t.Profile)
		if err != nil {
			errs = append(errs, flatten(err)...)
		}
		deps.Profile = p
	}
	if t.World != "" {
		_, pl, err := e.world(t.World)
		if err != nil {
			errs = append(errs, flatten(err)...)
		}
		deps.Places = pl
	}
	reg, err := mission.Palette(deps)
	if err != nil {
		// Places with two places of one name: checked against no places.
		errs = append(errs, err)
		deps.Places = nil
		if reg, err = mission.Palette(deps); err != nil {
			return e.reg, append(errs, err)
		}
	}
	return reg, errs
}

// flatten gives the problems of a profile's or places' list one by one.
func flatten(err error) []error {
	var list runtime.ErrorList
	if errors.As(err, &list) {
		out := make([]error, len(list))
		for i, e := range list {
			out[i] = e
		}
		return out
	}
	return []error{err}
}
