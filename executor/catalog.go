package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// maxFiles bounds the tree files of a missions directory.
const maxFiles = 1000

// CatalogConf says where a server's missions come from.
type CatalogConf struct {
	// Dir holds the mission trees: every *.xml file directly in it (the
	// files they include may lie anywhere).
	Dir string
	// Profile is the robot profile; Places the places.yaml (or a world's
	// directory); both may be empty.
	Profile string
	Places  string
}

// Catalog is the missions of a directory, loaded and validated together:
// every tree a file of the directory declares (not those its includes
// bring in) is a mission by its ID, and a file is a mission by its name,
// running its main tree.
type Catalog struct {
	Conf     CatalogConf
	missions map[string]*Mission // by tree ID
	files    map[string]string   // file name (with and without .xml) -> tree ID
	ids      []string            // sorted
	// read is the files the catalog was read from as they were looked at
	// before they were read (the directory's tree files, the profile,
	// the places; a file one includes, found while reading, right after):
	// what a watch started later compares with, so that a file changed
	// while the catalog was read, or before the watch began, is seen.
	read files
}

// Mission is one mission of a catalog.
type Mission struct {
	ID string
	// File is the file that declares the tree, relative to the directory.
	File string
	// Mission is the tree with its profile and places, Main set to ID.
	Mission *mission.Mission
	// Ports are the root blackboard entries a payload may set, by name.
	Ports []Port
}

// Port is an entry of a mission's root blackboard that a goal's payload
// may set: fed by a port of the tree (Type is the port's) or declared by
// the main tree's model (<SubTree ID> in TreeNodesModel, with a default).
type Port struct {
	Name        string
	Type        reflect.Type // nil: any
	Default     string
	HasDefault  bool
	Description string
}

// LoadCatalog reads every tree file of the directory and validates it
// against the palette, the profile and the places. Every problem of every
// file is found in one pass; the error is a *mission.LoadError listing
// them, each with its file:line:col.
func LoadCatalog(c CatalogConf) (*Catalog, error) {
	before := look(c.Dir, c.settings())
	problems := &mission.LoadError{}
	fail := func(err error) {
		var le *mission.LoadError
		if errors.As(err, &le) {
			problems.Problems = append(problems.Problems, le.Problems...)
			return
		}
		problems.Problems = append(problems.Problems, err)
	}
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return nil, &mission.LoadError{Problems: []error{fmt.Errorf("missions: %w", err)}}
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".xml") {
			files = append(files, e.Name())
		}
	}
	switch {
	case len(files) == 0:
		return nil, &mission.LoadError{Problems: []error{fmt.Errorf("missions: %s holds no tree file (*.xml)", c.Dir)}}
	case len(files) > maxFiles:
		return nil, &mission.LoadError{Problems: []error{fmt.Errorf("missions: %s holds %d tree files, more than %d", c.Dir, len(files), maxFiles)}}
	}
	cat := &Catalog{Conf: c, missions: map[string]*Mission{}, files: map[string]string{}}
	declared := map[string]runtime.Pos{}
	for _, f := range files {
		m, err := mission.Load(mission.LoadConf{Tree: filepath.Join(c.Dir, f), Profile: c.Profile, Places: c.Places})
		if err != nil {
			fail(err)
			continue
		}
		if m.Doc.Main != "" {
			cat.files[f] = m.Doc.Main
			cat.files[strings.TrimSuffix(f, ".xml")] = m.Doc.Main
		}
		for _, t := range m.Doc.Trees {
			if t.Include != nil {
				continue // another file's tree, brought in by an include
			}
			if at, dup := declared[t.ID]; dup {
				fail(fmt.Errorf("%s: tree %q is declared twice in %s: first at %s; a goal names a mission by its tree ID", t.Pos, t.ID, c.Dir, at))
				continue
			}
			declared[t.ID] = t.Pos
			if t.ID != mainTree(m.Doc) {
				// Each tree is a mission, its own root: what mission.Load
				// checked for the file's main tree, for this one.
				if errs := checkInputWrites(m, t.ID); len(errs) > 0 {
					problems.Problems = append(problems.Problems, errs...)
					continue
				}
			}
			mm := *m
			mm.Main = t.ID
			ports, err := portsOf(&mm)
			if err != nil {
				fail(err)
				continue
			}
			cat.missions[t.ID] = &Mission{ID: t.ID, File: f, Mission: &mm, Ports: ports}
		}
		if len(m.Doc.Trees) == 1 && m.Doc.Main == "" {
			cat.files[f] = m.Doc.Trees[0].ID
			cat.files[strings.TrimSuffix(f, ".xml")] = m.Doc.Trees[0].ID
		}
	}
	if len(problems.Problems) > 0 {
		return nil, problems
	}
	for id := range cat.missions {
		cat.ids = append(cat.ids, id)
	}
	sort.Strings(cat.ids)
	cat.read = readStamps(c.Dir, before, look(c.Dir, cat.watched()))
	return cat, nil
}

// unknown is the stamp of a file whose read content is not known: no look
// sees it, so the watch takes it for changed.
var unknown = stamp{size: -1}

// readStamps returns the stamps of the files a catalog was read from,
// given a look taken before the reading and one after it: a file looked
// at before keeps that look's stamp (a change written during the reading
// is a change); a tree file of dir that the first look did not see was
// written during the reading, loaded or not, and is unknown; a file seen
// only once read (an included one) keeps its stamp from after.
func readStamps(dir string, before, after files) files {
	out := files{}
	for p, st := range after {
		b, seen := before[p]
		switch {
		case seen:
			out[p] = b
		case filepath.Dir(p) == filepath.Clean(dir) && strings.HasSuffix(p, ".xml"):
			out[p] = unknown
		default:
			out[p] = st
		}
	}
	return out
}

// portsOf builds the mission's tree with no robot attached and reads the
// entries of its root blackboard that its ports declared, with their types,
// beside the ports of the main tree's model (its defaults and
// descriptions).
func portsOf(m *mission.Mission) ([]Port, error) {
	reg, err := mission.Palette(mission.Deps{Profile: m.Profile, Places: m.Places})
	if err != nil {
		return nil, err
	}
	for _, t := range m.Nodes {
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	tree, err := runtime.Build(reg, m.Doc, runtime.BuildConf{Main: m.Main, Seed: 1})
	if err != nil {
		return nil, err
	}
	byName := map[string]*Port{}
	bb := tree.Blackboard()
	for _, k := range bb.Keys() {
		if strings.HasPrefix(k, "_") {
			continue // private: the tree's own
		}
		byName[k] = &Port{Name: k, Type: bb.Entry(k).Type()}
	}
	if model := m.Doc.Model(m.Main); model != nil {
		for _, ps := range model.Ports {
			p := byName[ps.Name]
			if p == nil {
				p = &Port{Name: ps.Name, Type: ps.Type}
				byName[ps.Name] = p
			}
			if p.Type == nil {
				p.Type = ps.Type
			}
			p.Default, p.HasDefault, p.Description = ps.Default, ps.HasDefault, ps.Description
		}
	}
	ports := make([]Port, 0, len(byName))
	for _, p := range byName {
		ports = append(ports, *p)
	}
	sort.Slice(ports, func(i, j int) bool { return ports[i].Name < ports[j].Name })
	return ports, nil
}

// prepare makes every mission ready to run on conn: each tree is built
// once on the connection, as a goal's run builds it, so that what a build
// sets up on the connection once and keeps (the action clients of its
// skills, their topics and publishers, each a talk with the master) is
// there before the first goal, and a goal's build costs only the tree
// itself (docs/serving.md, BENCHMARKS.md). The trees are dropped: a run
// builds its own, fresh, so that no state of one goal's run leaks into
// the next. Every mission's problem is returned.
func (c *Catalog) prepare(conn *ros.Conn) error {
	problems := &mission.LoadError{}
	for _, id := range c.ids {
		m := c.missions[id].Mission
		reg, err := mission.Palette(mission.Deps{Conn: conn, Profile: m.Profile, Places: m.Places})
		if err == nil {
			for _, t := range m.Nodes {
				if err = reg.Register(t); err != nil {
					break
				}
			}
		}
		if err == nil {
			_, err = runtime.Build(reg, m.Doc, runtime.BuildConf{Main: id, Clock: conn.Clock(), Seed: 1,
				Substitutions: m.Substitutions, Semaphores: runtime.NewSemaphores()})
		}
		if err != nil {
			problems.Problems = append(problems.Problems, fmt.Errorf("mission %s: %w", id, err))
		}
	}
	if len(problems.Problems) > 0 {
		return problems
	}
	return nil
}

// IDs returns the missions' tree IDs, sorted.
func (c *Catalog) IDs() []string { return c.ids }

// Lookup finds a mission by tree ID or by file name (with or without
// .xml); the error lists the known missions with the nearest names first.
func (c *Catalog) Lookup(name string) (*Mission, error) {
	if m := c.missions[name]; m != nil {
		return m, nil
	}
	if id, ok := c.files[name]; ok {
		return c.missions[id], nil
	}
	if name == "" {
		return nil, fmt.Errorf("no mission named: the missions are %s", strings.Join(c.ids, ", "))
	}
	names := append([]string{}, c.ids...)
	for f := range c.files {
		names = append(names, f)
	}
	near := runtime.NearestNames(name, names, 3)
	hint := ""
	if len(near) > 0 {
		hint = " (did you mean " + strings.Join(near, " or ") + "?)"
	}
	return nil, fmt.Errorf("unknown mission %q%s: the missions are %s", name, hint, strings.Join(c.ids, ", "))
}

// Info is the catalog as ~list gives it.
func (c *Catalog) Info() []ros.Mission {
	out := make([]ros.Mission, 0, len(c.ids))
	for _, id := range c.ids {
		m := c.missions[id]
		info := ros.Mission{Id: id, File: m.File}
		for _, p := range m.Ports {
			info.Ports = append(info.Ports, ros.MissionPort{
				Name: p.Name, Type: runtime.TypeName(p.Type), Default: p.Default, HasDefault: p.HasDefault, Description: p.Description,
			})
		}
		out = append(out, info)
	}
	return out
}

// mainTree is the tree mission.Load checked as the file's root.
func mainTree(doc *runtime.Document) string {
	if doc.Main == "" && len(doc.Trees) == 1 {
		return doc.Trees[0].ID
	}
	return doc.Main
}

// checkInputWrites finds the writes of tree id to the profile's inputs.
func checkInputWrites(m *mission.Mission, id string) []error {
	if m.Profile == nil {
		return nil
	}
	reg, err := mission.Palette(mission.Deps{Profile: m.Profile, Places: m.Places})
	if err != nil {
		return []error{err}
	}
	return mission.CheckInputWrites(reg, m.Doc, id, m.Profile)
}
