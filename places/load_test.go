package places_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
)

func TestParse(t *testing.T) {
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
	p, err := places.Parse("places.yaml", []byte(doc))
	require.NoError(t, err)
	assert.Equal(t, "office.yaml", p.Map)
	assert.Equal(t, "places.yaml:1:6", p.MapPos.String())
	require.Len(t, p.Spawns, 1)
	require.Len(t, p.Waypoints, 2)
	require.Len(t, p.Docks, 1)
	cases := []struct {
		name string
		got  func() (places.Pose, bool)
		want places.Pose
		ok   bool
	}{
		{"a waypoint", func() (places.Pose, bool) { w, ok := p.Waypoint("lab"); return w.Pose, ok }, places.Pose{X: 3.5, Y: -1, Yaw: 1.5}, true},
		{"[x, y] means yaw 0", func() (places.Pose, bool) { w, ok := p.Waypoint("lobby"); return w.Pose, ok }, places.Pose{X: 2, Y: 6}, true},
		{"a dock's approach", func() (places.Pose, bool) { d, ok := p.Dock("dock1"); return d.Approach, ok }, places.Pose{X: 1.4, Y: 1, Yaw: 3.14159}, true},
		{"the first dock", func() (places.Pose, bool) { d, ok := p.Dock(""); return d.Pose, ok }, places.Pose{X: 0.6, Y: 1, Yaw: 3.14159}, true},
		{"a spawn", func() (places.Pose, bool) { s, ok := p.Spawn("robot1"); return s.Pose, ok }, places.Pose{X: 1, Y: 6}, true},
		{"Lookup finds a waypoint", func() (places.Pose, bool) { return p.Lookup("lobby") }, places.Pose{X: 2, Y: 6}, true},
		{"Lookup finds a dock", func() (places.Pose, bool) { return p.Lookup("dock1") }, places.Pose{X: 0.6, Y: 1, Yaw: 3.14159}, true},
		{"Lookup does not find a spawn", func() (places.Pose, bool) { return p.Lookup("robot1") }, places.Pose{}, false},
		{"a waypoint that is not there", func() (places.Pose, bool) { w, ok := p.Waypoint("nowhere"); return w.Pose, ok }, places.Pose{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := c.got()
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.want, got)
		})
	}
	assert.Equal(t, []string{"lobby", "lab"}, p.Names())
	assert.Equal(t, []string{"lobby", "lab", "dock1"}, p.Targets())
	assert.NoError(t, p.Check())
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"not a list", "waypoints: {a: 1}\n", "places.yaml:1:12: waypoints: want a list of places, got a mapping"},
		{"not a place", "waypoints:\n  - lobby\n", `places.yaml:2:5: waypoints[0]: want {name: ..., pose: [x, y, yaw]}, got "lobby"`},
		{"no name", "waypoints:\n  - {pose: [1, 2]}\n", "places.yaml:2:5: waypoints[0].name: missing"},
		{"no pose", "waypoints:\n  - {name: a}\n", "places.yaml:2:5: waypoints[0].pose: missing"},
		{"a short pose", "waypoints:\n  - {name: a, pose: [1]}\n", "places.yaml:2:21: waypoints[0].pose: want [x, y] or [x, y, yaw], got 1 numbers"},
		{"a name twice", "waypoints:\n  - {name: a, pose: [1, 2]}\n  - {name: a, pose: [3, 4]}\n", `places.yaml:3:12: waypoints[1].name: "a" is already used on line 2`},
		{"a dock named as a waypoint", "waypoints:\n  - {name: a, pose: [1, 2]}\ndocks:\n  - {name: a, pose: [1, 2, 0], approach: [1, 2, 0]}\n", `places.yaml:4:12: docks[0].name: "a" is already used on line 2`},
		{"a name that reads as a pose", "waypoints:\n  - {name: 'x;y', pose: [1, 2]}\n", `places.yaml:2:12: waypoints[0].name: "x;y" has ';', ',' or braces, which trees read as a pose or a list`},
		{"an unknown key of a place", "waypoints:\n  - {name: a, pose: [1, 2], speed: 3}\n", "places.yaml:2:29: waypoints[0].speed: unknown key; want name and pose"},
		{"a dock without approach", "docks:\n  - {name: d, pose: [1, 2, 0]}\n", "places.yaml:2:5: docks[0].approach: missing"},
		{"a dock without yaw", "docks:\n  - {name: d, pose: [1, 2], approach: [1, 2, 0]}\n", "places.yaml:2:21: docks[0].pose: want [x, y, yaw], got 2 numbers"},
		{"not a number", "spawns:\n  - {name: r, pose: [1, two, 0]}\n", `places.yaml:2:25: spawns[0].pose[1]: want a number, got "two"`},
		{"a typo of a key", "waypionts: []\n", "places.yaml:1:1: waypionts: unknown key; did you mean waypoints?"},
		{"an unknown key", "robots: []\n", "places.yaml:1:1: robots: unknown key; want map, waypoints, docks or spawns"},
		{"a key twice", "spawns: []\nspawns: []\n", "places.yaml:2:1: spawns: given twice"},
		{"a map that is not a path", "map: [a]\n", "places.yaml:1:6: map: want the map YAML file's path, got a list"},
		{"empty", "# nothing\n", "places.yaml:1:1: the places file is empty: give map, waypoints, docks or spawns"},
		{"not a mapping", "- a\n", "places.yaml:1:1: want a mapping of map, waypoints, docks and spawns, got a list"},
		{"not YAML", "waypoints: [\n", "places.yaml:1:1: not valid YAML: did not find expected node content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := places.Parse("places.yaml", []byte(c.doc))
			require.EqualError(t, err, c.want)
		})
	}
}

// TestParseReportsEveryProblem: one pass finds every problem, in file order,
// and leaves out only the places that have them.
func TestParseReportsEveryProblem(t *testing.T) {
	doc := `waypoints:
  - {name: a, pose: [1, 2]}
  - {name: b, pose: [1]}
  - {name: a, pose: [3, 4]}
docks:
  - {name: d, pose: [1, 2, 0]}
spwans: []
`
	_, err := places.Parse("places.yaml", []byte(doc))
	var list runtime.ErrorList
	require.ErrorAs(t, err, &list)
	want := []string{
		"places.yaml:3:21: waypoints[1].pose: want [x, y] or [x, y, yaw], got 1 numbers",
		`places.yaml:4:12: waypoints[2].name: "a" is already used on line 2`,
		"places.yaml:6:5: docks[0].approach: missing",
		"places.yaml:7:1: spwans: unknown key; did you mean spawns?",
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	assert.Equal(t, want, got)
}

// TestLoadRefusesSpecialFiles: a places file is read only when it is a
// regular file of bounded size.
func TestLoadRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, make([]byte, 1<<20+1), 0o644))
	cases := []struct{ name, path, want string }{
		{"/dev/zero", "/dev/zero", "/dev/zero: a character device, not a regular file: a places file is read from a regular file"},
		{"a FIFO", fifo, fifo + ": a named pipe (FIFO), not a regular file: a places file is read from a regular file"},
		{"too large", big, big + ": file is 1048577 bytes, more than the 1048576 bytes (1 MiB) a places file may have"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := places.Load(c.path)
			require.EqualError(t, err, c.want)
		})
	}
}

func TestCheck(t *testing.T) {
	bad := &places.Places{
		Waypoints: []places.Place{{Name: "a"}, {Name: "a"}, {Name: ""}, {Name: "x;y"}},
		Docks:     []places.Dock{{Name: "a"}},
	}
	err := bad.Check()
	require.Error(t, err)
	for _, want := range []string{`places: "a" is given twice`, "places: a waypoint has no name", `places: a waypoint name "x;y" has ';'`} {
		assert.Contains(t, err.Error(), want)
	}
	var none *places.Places
	assert.NoError(t, none.Check())
	_, ok := none.Lookup("a")
	assert.False(t, ok)
}
