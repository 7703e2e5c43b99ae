package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

func TestLoadWorldChecksPlacesAgainstTheMap(t *testing.T) {
	mapYAML := "image: map.pgm\nresolution: 0.5\norigin: [0, 0, 0]\n"
	// 4 x 4 cells of 0.5 m, walls along the border.
	pgm := []byte("P2 4 4 1\n0 0 0 0\n0 1 1 0\n0 1 1 0\n0 0 0 0\n")
	for _, tc := range []struct{ places, want string }{
		{"map: map.yaml\nwaypoints:\n  - {name: a, pose: [1, 1]}\n", ""},
		{"map: map.yaml\nwaypoints:\n  - {name: a, pose: [1, 1]}\n  - {name: b, pose: [0.2, 1]}\n",
			"places.yaml:4:5: waypoints[1].pose: (0.20, 1.00) is on an occupied cell of the map"},
		{"map: map.yaml\nspawns:\n  - {name: r, pose: [5, 1, 0]}\n", "places.yaml:3:5: spawns[0].pose: (5.00, 1.00) is off the map"},
		{"map: map.yaml\ndocks:\n  - {name: d, pose: [1, 1, 0], approach: [1.9, 1, 0]}\n",
			"places.yaml:3:5: docks[0].approach: (1.90, 1.00) is on an occupied cell of the map"},
		{"map: other.yaml\n", "places.yaml:1:6: map: other.yaml: no such file or directory"},
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
		assert.Equal(t, tc.want, got, "places %q:\n got %s\nwant %s", tc.places, got, tc.want)
	}
}

func TestLoadWorldFromAMapFile(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{"lab.yaml": []byte("image: lab.pgm\nresolution: 0.5\norigin: [0, 0, 0]\n"),
		"lab.pgm": []byte("P2 4 4 1\n0 0 0 0\n0 1 1 0\n0 1 1 0\n0 0 0 0\n")})
	w, err := sim.LoadWorld(filepath.Join(dir, "lab.yaml"), sim.WorldConf{})
	require.NoError(t, err)
	if assert.Equal(t, 4, w.Map().Width, "loaded %dx%d with %d waypoints", w.Map().Width, w.Map().Height, len(w.Places().Waypoints)) {
		assert.Empty(t, w.Places().Waypoints, "loaded %dx%d with %d waypoints", w.Map().Width, w.Map().Height, len(w.Places().Waypoints))
	}
	// A directory's map defaults to <directory name>.yaml.
	sub := filepath.Join(dir, "lab")
	require.NoError(t, os.Mkdir(sub, 0o755))
	for _, f := range []string{"lab.yaml", "lab.pgm"} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		os.WriteFile(filepath.Join(sub, f), data, 0o644)
	}
	os.WriteFile(filepath.Join(sub, "places.yaml"), []byte("waypoints:\n  - {name: a, pose: [1, 1]}\n"), 0o644)
	w, err = sim.LoadWorld(sub, sim.WorldConf{})
	require.NoError(t, err)
	assert.Len(t, w.Places().Waypoints, 1, "waypoints %v", w.Places().Waypoints)
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
		require.NoError(t, err)
		wm, hm := w.Map().Size()
		if assert.Equal(t, tc.widthM, wm, "%s: %v x %v m at %v", tc.dir, wm, hm, w.Map().Resolution) {
			assert.Equal(t, tc.heightM, hm, "%s: %v x %v m at %v", tc.dir, wm, hm, w.Map().Resolution)
			assert.Equal(t, 0.05, w.Map().Resolution, "%s: %v x %v m at %v", tc.dir, wm, hm, w.Map().Resolution)
		}
		p := w.Places()
		if assert.Len(t, p.Docks, tc.docks, "%s: %d docks, %d waypoints, %d spawns", tc.dir, len(p.Docks), len(p.Waypoints), len(p.Spawns)) {
			assert.Len(t, p.Waypoints, tc.waypoints, "%s: %d docks, %d waypoints, %d spawns", tc.dir, len(p.Docks), len(p.Waypoints), len(p.Spawns))
			assert.Len(t, p.Spawns, tc.spns, "%s: %d docks, %d waypoints, %d spawns", tc.dir, len(p.Docks), len(p.Waypoints), len(p.Spawns))
		}
		// Every spawn takes a robot, all at once.
		for _, s := range p.Spawns {
			_, err := w.AddRobot(sim.RobotConf{Name: s.Name, Spawn: s.Pose})
			assert.NoError(t, err, "%s", tc.dir)
		}
	}
}
