package mission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// LoadConf says what a mission is made of: files, as a command line gives
// them.
type LoadConf struct {
	// Tree is the mission's BehaviorTree.CPP v4 XML file (required).
	Tree string
	// Profile is the robot profile (YAML); empty for a tree with no robot
	// attached.
	Profile string
	// Places is a places.yaml, or a world's directory holding one; empty
	// when trees name no places.
	Places string
	// Main is the tree to run [the file's main_tree_to_execute].
	Main string
	// Nodes are your own node types, beside the palette's (a program that
	// embeds btrobot adds its robot's leaves here): the tree is checked
	// against them, and Run builds them. A type named like one of the
	// palette's is an error.
	Nodes []runtime.NodeType
	// Substitute, when set, is a BehaviorTree.CPP substitution rules file
	// (JSON): the nodes its rules match are built as test nodes or other
	// node types (runtime.Substitutions), to run a mission without parts
	// of its robot.
	Substitute string
}

// Mission is a tree, a robot profile and the world's places, loaded and
// checked against each other. Runs only read it: one Mission may run on
// many robots at once (RunFleet).
type Mission struct {
	// TreeFile is the file the tree was read from.
	TreeFile string
	Doc      *runtime.Document
	// Main is the tree to run; "" for the document's main tree.
	Main string
	// Profile is nil for a tree with no robot attached.
	Profile *bridge.Profile
	// Places is nil when the mission has no named places.
	Places *places.Places
	// Nodes are the mission's own node types (LoadConf.Nodes).
	Nodes []runtime.NodeType
	// Substitutions are LoadConf.Substitute's rules; nil without.
	Substitutions *runtime.Substitutions
}

// LoadError is every problem Load found, each with its file:line:col
// where it has one.
type LoadError struct {
	Problems []error
}

// Error writes the problems one a line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the problems to errors.Is and errors.As.
func (e *LoadError) Unwrap() []error { return e.Problems }

// add appends the problems of err, one a problem: a tree's or a profile's
// list is flattened.
func (e *LoadError) add(err error) {
	var le *trees.LoadError
	var list runtime.ErrorList
	switch {
	case errors.As(err, &le):
		for _, p := range le.Errs {
			e.Problems = append(e.Problems, p)
		}
	case errors.As(err, &list):
		for _, p := range list {
			e.Problems = append(e.Problems, p)
		}
	default:
		e.Problems = append(e.Problems, err)
	}
}

func (e *LoadError) err() error {
	if len(e.Problems) == 0 {
		return nil
	}
	return e
}

// Load reads the tree, the profile and the places and checks the tree
// against the palette, the profile's action and service names and the
// place names. Every problem is found in one pass: the tree is checked
// even when the profile or the places are bad, against what could be
// read. The error is a *LoadError.
func Load(c LoadConf) (*Mission, error) {
	m := &Mission{TreeFile: c.Tree, Main: c.Main, Nodes: c.Nodes}
	problems := &LoadError{}
	if c.Tree == "" {
		problems.add(errors.New("no tree: a mission needs a BehaviorTree.CPP v4 XML file"))
		return nil, problems
	}
	doc, err := trees.Load(c.Tree)
	if err != nil {
		problems.add(err)
	}
	if c.Profile != "" {
		if m.Profile, err = bridge.LoadProfile(c.Profile); err != nil {
			problems.add(err)
		}
	}
	if c.Places != "" {
		if m.Places, err = LoadPlaces(c.Places); err != nil {
			problems.add(err)
		}
	}
	if c.Substitute != "" {
		if m.Substitutions, err = runtime.LoadSubstitutions(c.Substitute); err != nil {
			problems.add(err)
		}
	}
	if doc == nil {
		return nil, problems
	}
	m.Doc = doc
	reg, err := m.palette(Deps{Profile: m.Profile, Places: m.Places})
	if err != nil {
		problems.add(err)
		return nil, problems
	}
	if err := runtime.Check(reg, doc, runtime.BuildConf{Main: c.Main}); err != nil {
		problems.add(err)
	}
	for _, err := range CheckInputWrites(reg, doc, mainOf(doc, c.Main), m.Profile) {
		problems.add(err)
	}
	if c.Main != "" && doc.Tree(c.Main) == nil {
		ids := make([]string, len(doc.Trees))
		for i, t := range doc.Trees {
			ids[i] = t.ID
		}
		problems.add(fmt.Errorf("%s: no tree %q to run: the file has %s", c.Tree, c.Main, strings.Join(ids, ", ")))
	}
	if err := problems.err(); err != nil {
		return nil, err
	}
	return m, nil
}

// LoadPlaces reads a places.yaml, or the one in a world's directory.
func LoadPlaces(path string) (*places.Places, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "places.yaml")
	}
	return places.Load(path)
}

// Title is a live view's first line for the mission run by cmd on conn:
// "btrobot run patrol.xml · robot sim · /robot1/btrobot @ http://…".
func (m *Mission) Title(cmd string, conn *ros.Conn) string {
	parts := []string{cmd + " " + filepath.Base(m.TreeFile)}
	if m.Profile != nil {
		robot := m.Profile.Robot
		if robot == "" {
			robot = filepath.Base(m.Profile.File)
		}
		parts = append(parts, "robot "+robot)
	}
	if conn != nil {
		parts = append(parts, conn.Name()+" @ "+conn.MasterURI())
	}
	return strings.Join(parts, " · ")
}

// InputKeys are the blackboard entries a view shows by default: the fields
// the profile's inputs write (battery_pct, x, y...), at most max.
func (m *Mission) InputKeys(max int) []string {
	if m.Profile == nil {
		return nil
	}
	var keys []string
	for _, in := range m.Profile.Inputs {
		for _, f := range in.Fields {
			if len(keys) < max {
				keys = append(keys, f.Key)
			}
		}
	}
	return keys
}

// mainOf is the tree a run of doc starts: main, else the document's
// main_tree_to_execute, else its only tree.
func mainOf(doc *runtime.Document, main string) string {
	switch {
	case main != "":
		return main
	case doc.Main != "":
		return doc.Main
	case len(doc.Trees) == 1:
		return doc.Trees[0].ID
	}
	return ""
}
