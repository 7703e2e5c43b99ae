package simnode

import (
	"strings"
	"testing"

	"github.com/btrobot/btrobot/sim"
)

func TestAddRobots(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string // error; "" for none
	}{
		{4, ""},
		{1, ""},
		{0, "add robots: 0 robots; want at least 1"},
		{5, "add robots: the world has no spawn pose named robot5 (it has 4); add one to its places.yaml"},
	} {
		w, err := sim.LoadWorld(officeWorld, sim.WorldConf{})
		if err != nil {
			t.Fatal(err)
		}
		robots, err := AddRobots(w, tc.n, sim.RobotConf{Name: "ignored", OdomNoise: 0.01})
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%d robots: error %v, want %q", tc.n, err, tc.want)
			}
			continue
		}
		if err != nil || len(robots) != tc.n {
			t.Fatalf("%d robots: %v, %d added", tc.n, err, len(robots))
		}
		for k, r := range robots {
			sp := w.Places().Spawns[k]
			if r.Name() != sp.Name || r.Pose() != sp.Pose || r.Conf().OdomNoise != 0.01 {
				t.Errorf("robot %s at %v (noise %v), want %s at %v", r.Name(), r.Pose(), r.Conf().OdomNoise, sp.Name, sp.Pose)
			}
		}
	}
}
