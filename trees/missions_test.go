package trees

import (
	"path/filepath"
	"testing"

	"github.com/btrobot/btrobot/runtime"
)

// TestMissionsCheck: every shipped mission loads and passes runtime.Check
// with the built-in palette.
func TestMissionsCheck(t *testing.T) {
	files, _ := filepath.Glob("missions/*.xml")
	if len(files) == 0 {
		t.Fatal("no missions in trees/missions")
	}
	for _, path := range files {
		if err := CheckFile(runtime.NewRegistry(), path); err != nil {
			t.Errorf("%s:\n%v", path, err)
		}
	}
}

// TestHelloMission: the README's first command ticks hello.xml; this is
// what it must show.
func TestHelloMission(t *testing.T) {
	doc, err := Load("missions/hello.xml")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []runtime.Status{runtime.Running, runtime.Running, runtime.Success, runtime.Running}
	for i, w := range want {
		st, err := tree.TickExactlyOnce()
		if err != nil {
			t.Fatalf("tick %d: %v", i+1, err)
		}
		if st != w {
			t.Errorf("tick %d: %v, want %v", i+1, st, w)
		}
		if i == 2 {
			got := tree.Blackboard().Snapshot()
			wantBB := map[string]any{"laps": 3, "battery": 0.25, "greeting": "hello, world: 3 laps done"}
			for k, v := range wantBB {
				if got[k] != v {
					t.Errorf("after tick 3, %s = %#v, want %#v (blackboard %v)", k, got[k], v, got)
				}
			}
		}
	}
}
