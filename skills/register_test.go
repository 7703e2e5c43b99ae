package skills

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
)

var allSkills = []string{
	"NavigateTo", "FollowWaypoints", "Spin", "DriveDistance", "BackUp", "Stop",
	"Dock", "Undock", "WaitForCharge", "BatteryAbove", "IsDocked",
	"ObstacleWithin", "AtPose", "TopicFresh",
	"Log", "SetPlace", "PopPlace", "ClaimPlace", "ReleasePlace",
}

// TestRegisterPalette: every skill is in the palette, in the skills
// category, with a summary and its contract (from its doc comment).
func TestRegisterPalette(t *testing.T) {
	reg := registry(t, Deps{})
	n := 0
	for _, typ := range reg.Types() {
		if typ.Category == "skills" {
			n++
		}
	}
	if n != len(allSkills) {
		t.Errorf("%d node types in the skills category, want %d", n, len(allSkills))
	}
	for _, id := range allSkills {
		typ, ok := reg.Lookup(id)
		if !ok {
			t.Errorf("%s is not registered", id)
			continue
		}
		if typ.Category != "skills" || typ.Summary == "" {
			t.Errorf("%s: category %q, summary %q", id, typ.Category, typ.Summary)
		}
		if len(typ.Doc) < 100 || !contains(typ.Doc, id) {
			t.Errorf("%s: Doc %q: give its Go type a doc comment and run go generate ./skills/", id, typ.Doc)
		}
	}
	if err := Register(reg, Deps{}); err == nil {
		t.Error("registering twice: no error")
	}
}

// TestNodeDocsAreCurrent: node_docs.go carries each skill's doc comment to
// the registry and must be regenerated when a comment changes.
func TestNodeDocsAreCurrent(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		requireCI(t, "the go command is not on PATH")
	}
	out := filepath.Join(t.TempDir(), "node_docs.go")
	cmd := exec.Command(goTool, "run", "../runtime/internal/nodedocs/gen", "-pkg", "skills", "-base", "runtime.Leaf", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("node_docs.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("skills/node_docs.go is out of date with the skills' comments: run `go generate ./skills/`")
	}
}

// TestKeysFromProfile: the skills find the robot's entries in its profile.
func TestKeysFromProfile(t *testing.T) {
	sim, err := bridge.LoadProfile("../robots/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	custom, err := bridge.ParseProfile([]byte(`
rate: 10
inputs:
  - {topic: wheel/odometry, type: nav_msgs/Odometry, key: wheel_odom}
  - {topic: front_scan, type: sensor_msgs/LaserScan, key: front}
  - {topic: amcl_pose, type: geometry_msgs/PoseWithCovarianceStamped, key: where}
  - {topic: power, type: sensor_msgs/BatteryState, key: power}
  - {topic: dock_contact, type: std_msgs/Bool, fields: {on_dock: data}}
  - {topic: bumpers, type: std_msgs/Bool, fields: {hit: data}}
outputs:
  - {topic: base/cmd_vel, type: geometry_msgs/Twist, key: drive}
safety: {velocity_topic: base/cmd_vel}
`), "custom.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		keys    Keys
		profile *bridge.Profile
		want    Keys
	}{
		{"no profile: the defaults", Keys{}, nil,
			Keys{Odom: "odom", Scan: "scan", Battery: "battery", Bumper: "bumper_pressed", Velocity: "cmd_vel"}},
		{"robots/sim.yaml", Keys{}, sim,
			Keys{Odom: "odom", Scan: "scan", Battery: "battery", Bumper: "bumper_pressed", Docked: "docked", Velocity: "cmd_vel"}},
		{"a profile with other names", Keys{}, custom,
			Keys{Odom: "wheel_odom", Scan: "front", Battery: "power", Bumper: "hit", Docked: "on_dock", Pose: "where", Velocity: "drive"}},
		{"the caller's keys win", Keys{Scan: "rear"}, custom,
			Keys{Odom: "wheel_odom", Scan: "rear", Battery: "power", Bumper: "hit", Docked: "on_dock", Pose: "where", Velocity: "drive"}},
	}
	for _, tc := range cases {
		if got := resolveKeys(tc.keys, tc.profile); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestRegisterRejectsBadDeps: problems of the deps are reported at once.
func TestRegisterRejectsBadDeps(t *testing.T) {
	bad := &places.Places{
		Waypoints: []places.Place{{Name: "a"}, {Name: "a"}, {Name: ""}, {Name: "x;y"}},
		Docks:     []places.Dock{{Name: "a"}},
	}
	err := Register(runtime.NewRegistry(), Deps{Places: bad, Docking: Docking{Dock: "dock"}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`"a" is given twice`, "a waypoint has no name", `name "x;y"`, "Docking needs both"} {
		if !contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := Register(nil, Deps{}); err == nil {
		t.Error("nil registry: no error")
	}
}

// TestParsePose: poses as trees write them.
func TestParsePose(t *testing.T) {
	good := map[string]Pose{
		"1;2;0.5":  {1, 2, 0.5},
		" 1 ; -2 ": {1, -2, 0},
		"1,2,3.14": {1, 2, 3.14},
		"-0.5,.25": {-0.5, 0.25, 0},
		"1e1;2;0":  {10, 2, 0},
	}
	for s, want := range good {
		got, err := ParsePose(s)
		if err != nil || got != want {
			t.Errorf("ParsePose(%q) = %v, %v; want %v", s, got, err, want)
		}
		var p Pose
		if err := p.UnmarshalText([]byte(got.String())); err != nil || p != got {
			t.Errorf("round trip of %v: %v, %v", got, p, err)
		}
	}
	for _, s := range []string{"", "1", "1;2;3;4", "a;b", "1;NaN", "1;Inf;0"} {
		if _, err := ParsePose(s); err == nil {
			t.Errorf("ParsePose(%q): no error", s)
		}
	}
}
