package skills

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// The shipped missions live in trees/missions; their tests live here,
// where the skills they use are.

var update = flag.Bool("update", false, "rewrite trees/missions/models.xml from the registry")

const missionsDir = "../trees/missions"

// missionFiles are the missions the skills package owns (hello.xml is the
// trees package's).
var missionFiles = []string{"patrol.xml", "dock_and_charge.xml", "patrol_with_charging.xml", "delivery.xml", "fleet_patrol.xml"}

// palette is what btrobot's commands register: the built-in nodes, the
// generic ROS nodes and the skills.
func palette(t testing.TB, deps Deps) *runtime.Registry {
	t.Helper()
	reg := registry(t, deps)
	if err := bridge.Register(reg, bridge.Deps{Conn: deps.Conn, Profile: deps.Profile}); err != nil {
		t.Fatal(err)
	}
	return reg
}

func officePlaces(t testing.TB) *places.Places {
	t.Helper()
	p, err := places.Load(filepath.Join(officeWorld, "places.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMissionsCheck: every mission passes `btrobot check` with btrobot's
// palette, its place names are the office world's, and a tool that knows
// only the built-in nodes can still check it through models.xml.
func TestMissionsCheck(t *testing.T) {
	full := palette(t, Deps{Places: officePlaces(t)})
	for _, f := range missionFiles {
		path := filepath.Join(missionsDir, f)
		if err := trees.CheckFile(full, path); err != nil {
			t.Errorf("%s with btrobot's palette and the office's places:\n%v", f, err)
		}
		if err := trees.CheckFile(runtime.NewRegistry(), path); err != nil {
			t.Errorf("%s with the built-in palette and models.xml:\n%v", f, err)
		}
	}
}

// TestMissionModelsAreCurrent: models.xml declares the skills and ROS
// nodes the missions use, generated from the registry (go test ./skills
// -run TestMissionModelsAreCurrent -update rewrites it).
func TestMissionModelsAreCurrent(t *testing.T) {
	used := map[string]bool{}
	builtin := runtime.NewRegistry()
	for _, f := range missionFiles {
		doc, err := trees.Load(filepath.Join(missionsDir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range doc.Trees {
			walk(tr.Root, func(s *runtime.NodeSpec) {
				if _, ok := builtin.Lookup(s.Type); !ok && s.Type != "SubTree" {
					used[s.Type] = true
				}
			})
		}
	}
	var all bytes.Buffer
	if err := trees.WriteGrootModel(&all, palette(t, Deps{})); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!-- Models of the skills and ROS nodes the missions use, for tools that do
     not have btrobot's palette: Groot2, and btrobot check with the built-in
     nodes only. Generated from the registry; do not edit:
       go test ./skills -run TestMissionModelsAreCurrent -update -->
<root BTCPP_format="4">
  <TreeNodesModel>
`)
	b.WriteString(modelsOf(all.String(), used))
	b.WriteString("  </TreeNodesModel>\n</root>\n")
	path := filepath.Join(missionsDir, "models.xml")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Fatal("trees/missions/models.xml is out of date: go test ./skills -run TestMissionModelsAreCurrent -update")
	}
	var ids []string
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	t.Logf("the missions use %s", strings.Join(ids, ", "))
}

func walk(s *runtime.NodeSpec, f func(*runtime.NodeSpec)) {
	if s == nil {
		return
	}
	f(s)
	for _, c := range s.Children {
		walk(c, f)
	}
}

var modelStart = regexp.MustCompile(`^    <(\w+) ID="(\w+)"`)

// modelsOf keeps the models of ids from a WriteGrootModel document.
func modelsOf(doc string, ids map[string]bool) string {
	var b strings.Builder
	lines := strings.SplitAfter(doc, "\n")
	for i := 0; i < len(lines); i++ {
		m := modelStart.FindStringSubmatch(lines[i])
		if m == nil || !ids[m[2]] {
			continue
		}
		b.WriteString(lines[i])
		if strings.HasSuffix(strings.TrimSpace(lines[i]), "/>") {
			continue
		}
		for i++; i < len(lines); i++ {
			b.WriteString(lines[i])
			if strings.TrimSpace(lines[i]) == "</"+m[1]+">" {
				break
			}
		}
	}
	return b.String()
}

var treeBlock = regexp.MustCompile(`(?s)<!-- tree: ([\w.]+)#(\w+) -->\n.*?<!-- end tree -->`)

// TestMissionsDocIsCurrent: the pictures in docs/missions.md are drawn
// from the missions' XML (-update redraws them).
func TestMissionsDocIsCurrent(t *testing.T) {
	path := "../docs/missions.md"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reg := palette(t, Deps{})
	docs := map[string]*runtime.Document{}
	var errs []string
	drawn := treeBlock.ReplaceAllStringFunc(string(text), func(block string) string {
		m := treeBlock.FindStringSubmatch(block)
		file, id := m[1], m[2]
		doc := docs[file]
		if doc == nil {
			if doc, err = trees.Load(filepath.Join(missionsDir, file)); err != nil {
				errs = append(errs, err.Error())
				return block
			}
			docs[file] = doc
		}
		var b strings.Builder
		if err := trees.WriteMermaid(&b, doc, id, reg); err != nil {
			errs = append(errs, fmt.Sprintf("%s#%s: %v", file, id, err))
			return block
		}
		return fmt.Sprintf("<!-- tree: %s#%s -->\n```mermaid\n%s```\n<!-- end tree -->", file, id, b.String())
	})
	if len(errs) > 0 {
		t.Fatal(strings.Join(errs, "\n"))
	}
	if n := len(treeBlock.FindAllString(drawn, -1)); n < len(missionFiles) {
		t.Errorf("docs/missions.md draws %d trees; every mission needs a picture", n)
	}
	for _, f := range missionFiles {
		if !strings.Contains(drawn, "<!-- tree: "+f+"#") {
			t.Errorf("docs/missions.md has no picture of %s", f)
		}
	}
	if *update {
		if err := os.WriteFile(path, []byte(drawn), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if drawn != string(text) {
		t.Fatal("docs/missions.md's pictures are out of date with the missions: go test ./skills -run TestMissionsDocIsCurrent -update")
	}
}

var fileBlock = regexp.MustCompile("(?s)<!-- file: ([\\w./]+) -->\n.*?<!-- end file -->")

// TestSkillsDocIsCurrent: the worked example in docs/skills.md is the
// example file itself (-update copies it in).
func TestSkillsDocIsCurrent(t *testing.T) {
	path := "../docs/skills.md"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	out := fileBlock.ReplaceAllStringFunc(string(text), func(block string) string {
		name := fileBlock.FindStringSubmatch(block)[1]
		src, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			errs = append(errs, err.Error())
			return block
		}
		return fmt.Sprintf("<!-- file: %s -->\n```go\n%s```\n<!-- end file -->", name, src)
	})
	if len(errs) > 0 {
		t.Fatal(strings.Join(errs, "\n"))
	}
	if !strings.Contains(out, "func registerApproach") {
		t.Fatal("docs/skills.md does not show the example")
	}
	if *update {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if out != string(text) {
		t.Fatal("docs/skills.md's example is out of date: go test ./skills -run TestSkillsDocIsCurrent -update")
	}
}
