package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrobot/btrobot/sim"
)

func TestParsePlaces(t *testing.T) {
	doc := `map: office.yaml
spawns:
  - {name: robot1, pose: [1.0, 6.0, 0]}
waypoints:
  - {name: lobby, pose: [2.0, 6.0]}
  - name: lab
    pose: [3.5, -1, 1.5]
docks:
  - {name: dock1, pose: [0.6, 1.0, 3.14159], approach: [1.4, 1.0, 3.14159]}
`
	p, err := sim.ParsePlaces("places.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if p.Map != "office.yaml" || len(p.Spawns) != 1 || len(p.Waypoints) != 2 || len(p.Docks) != 1 {
		t.Fatalf("parsed %+v", p)
	}
	if w, ok := p.Waypoint("lab"); !ok || w.Pose != (sim.Pose{X: 3.5, Y: -1, Yaw: 1.5}) {
		t.Errorf("waypoint lab = %+v, %v", w, ok)
	}
	if w, _ := p.Waypoint("lobby"); w.Pose != (sim.Pose{X: 2, Y: 6}) {
		t.Errorf("waypoint lobby = %+v: [x, y] means yaw 0", w)
	}
	if d, ok := p.Dock("dock1"); !ok || d.Approach != (sim.Pose{X: 1.4, Y: 1, Yaw: 3.14159}) {
		t.Errorf("dock1 = %+v", d)
	}
	if s, ok := p.Spawn("robot1"); !ok || s.Pose.X != 1 {
		t.Errorf("spawn robot1 = %+v", s)
	}
	if _, ok := p.Waypoint("nowhere"); ok {
		t.Error("found a waypoint that is not there")
	}
}

func TestParsePlacesErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"waypoints: {a: 1}\n", "places.yaml:1: waypoints: want a list of places, got a mapping"},
		{"waypoints:\n  - lobby\n", `places.yaml:2: waypoints[0]: want {name: ..., pose: [x, y, yaw]}, got "lobby"`},
		{"waypoints:\n  - {pose: [1, 2]}\n", "places.yaml:2: waypoints[0].name: missing"},
		{"waypoints:\n  - {name: a}\n", "places.yaml:2: waypoints[0].pose: missing"},
		{"waypoints:\n  - {name: a, pose: [1]}\n", "places.yaml:2: waypoints[0].pose: want [x, y] or [x, y, yaw], got 1 numbers"},
		{"waypoints:\n  - {name: a, pose: [1, 2]}\n  - {name: a, pose: [3, 4]}\n", `places.yaml:3: waypoints[1].name: "a" is already used on line 2`},
		{"waypoints:\n  - {name: a, pose: [1, 2], speed: 3}\n", "places.yaml:2: waypoints[0].speed: unknown key; want name and pose"},
		{"docks:\n  - {name: d, pose: [1, 2, 0]}\n", "places.yaml:2: docks[0].approach: missing"},
		{"docks:\n  - {name: d, pose: [1, 2], approach: [1, 2, 0]}\n", "places.yaml:2: docks[0].pose: want [x, y, yaw], got 2 numbers"},
		{"spawns:\n  - {name: r, pose: [1, two, 0]}\n", `places.yaml:2: spawns[0].pose[1]: want a number, got "two"`},
		{"waypionts: []\n", "places.yaml:1: waypionts: unknown key; did you mean waypoints?"},
		{"robots: []\n", "places.yaml:1: robots: unknown key; want map, waypoints, docks or spawns"},
		{"map: [a]\n", "places.yaml:1: map: want the map YAML file's path, got a list"},
	} {
		_, err := sim.ParsePlaces("places.yaml", []byte(tc.doc))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
}

func TestLoadWorldChecksPlacesAgainstTheMap(t *testing.T) {
	mapYAML := "image: map.pgm\nresolution: 0.5\norigin: [0, 0, 0]\n"
	// 4 x 4 cells of 0.5 m, walls along the border.
	pgm := []byte("P2 4 4 1\n0 0 0 0\n0 1 1 0\n0 1 1 0\n0 0 0 0\n")
	for _, tc := range []struct{ places, want string }{
		{"map: map.yaml\nwaypoints:\n  - {name: a, pose: [1, 1]}\n", ""},
		{"map: map.yaml\nwaypoints:\n  - {name: a, pose: [1, 1]}\n  - {name: b, pose: [0.2, 1]}\n",
			"places.yaml:4: waypoints[1].pose: (0.20, 1.00) is on an occupied cell of the map"},
		{"map: map.yaml\nspawns:\n  - {name: r, pose: [5, 1, 0]}\n", "places.yaml:3: spawns[0].pose: (5.00, 1.00) is off the map"},
		{"map: map.yaml\ndocks:\n  - {name: d, pose: [1, 1, 0], approach: [1.9, 1, 0]}\n",
			"places.yaml:3: docks[0].approach: (1.90, 1.00) is on an occupied cell of the map"},
		{"map: other.yaml\n", "places.yaml:1: map: open other.yaml: no such file or directory"},
		{"waypoints: []\n", "world : no map: places.yaml has no map key and DIR.yaml does not exist"},
	} {
		dir := writeFiles(t, map[string][]byte{"world.yaml": []byte(mapYAML), "map.yaml": []byte(mapYAML),
			"map.pgm": pgm, "places.yaml": []byte(tc.places)})
		_, err := sim.LoadWorld(dir, sim.WorldConf{})
		got := ""
		if err != nil {
			got = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			got = strings.ReplaceAll(got, filepath.Base(dir)+".yaml", "DIR.yaml")
			got = strings.ReplaceAll(got, dir, "")
		}
		if got != tc.want {
			t.Errorf("places %q:\n got %s\nwant %s", tc.places, got, tc.want)
		}
	}
}

func TestLoadWorldFromAMapFile(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{"lab.yaml": []byte("image: lab.pgm\nresolution: 0.5\norigin: [0, 0, 0]\n"),
		"lab.pgm": []byte("P2 4 4 1\n0 0 0 0\n0 1 1 0\n0 1 1 0\n0 0 0 0\n")})
	w, err := sim.LoadWorld(filepath.Join(dir, "lab.yaml"), sim.WorldConf{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Map().Width != 4 || len(w.Places().Waypoints) != 0 {
		t.Errorf("loaded %dx%d with %d waypoints", w.Map().Width, w.Map().Height, len(w.Places().Waypoints))
	}
	// A directory's map defaults to <directory name>.yaml.
	sub := filepath.Join(dir, "lab")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lab.yaml", "lab.pgm"} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		os.WriteFile(filepath.Join(sub, f), data, 0o644)
	}
	os.WriteFile(filepath.Join(sub, "places.yaml"), []byte("waypoints:\n  - {name: a, pose: [1, 1]}\n"), 0o644)
	w, err = sim.LoadWorld(sub, sim.WorldConf{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Places().Waypoints) != 1 {
		t.Errorf("waypoints %v", w.Places().Waypoints)
	}
}

func TestShippedWorldsLoad(t *testing.T) {
	for _, tc := range []struct {
		dir                    string
		widthM, heightM        float64
		docks, waypoints, spns int
	}{
		{"../worlds/office", 20, 12, 2, 6, 4},
		{"../worlds/warehouse", 30, 20, 2, 7, 4},
	} {
		w, err := sim.LoadWorld(tc.dir, sim.WorldConf{})
		if err != nil {
			t.Fatal(err)
		}
		if wm, hm := w.Map().Size(); wm != tc.widthM || hm != tc.heightM || w.Map().Resolution != 0.05 {
			t.Errorf("%s: %v x %v m at %v", tc.dir, wm, hm, w.Map().Resolution)
		}
		p := w.Places()
		if len(p.Docks) != tc.docks || len(p.Waypoints) != tc.waypoints || len(p.Spawns) != tc.spns {
			t.Errorf("%s: %d docks, %d waypoints, %d spawns", tc.dir, len(p.Docks), len(p.Waypoints), len(p.Spawns))
		}
		// Every spawn takes a robot, all at once.
		for _, s := range p.Spawns {
			if _, err := w.AddRobot(sim.RobotConf{Name: s.Name, Spawn: s.Pose}); err != nil {
				t.Errorf("%s: %v", tc.dir, err)
			}
		}
	}
}
