package mission_test

import (
	"cmp"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// TestStartSimRunsAMissionInLockstep: the simulator on a master of its
// own; a robot's RunConf runs its mission in lockstep, in its namespace,
// from its spawn; Close closes the master.
func TestStartSimRunsAMissionInLockstep(t *testing.T) {
	_, err := mission.StartSim(mission.SimConf{})
	require.ErrorContains(t, err, "no world")

	places, err := sim.LoadWorld(officeWorld, sim.WorldConf{})
	require.NoError(t, err)
	sp, ok := places.Places().Spawn("robot1")
	require.True(t, ok)
	s, err := mission.StartSim(mission.SimConf{WorldDir: officeWorld, Seed: 1, Robots: []mission.SimRobot{{Name: "robot1", Battery: 0.4}}})
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			s.Close()
		}
	})

	var battery float64
	s.Node.Do(func(w *sim.World) error {
		r, _ := w.Robot("robot1")
		battery = r.Battery().Percentage
		return nil
	})
	assert.InDelta(t, 0.4, battery, 1e-9, "the robot started with the battery asked for")

	_, err = s.RunConf(nil, "robot2")
	require.ErrorContains(t, err, `no robot "robot2"`)
	m, err := mission.Load(mission.LoadConf{Tree: missionsDir + "/patrol.xml", Profile: simProfile, Places: officeWorld})
	require.NoError(t, err)
	rc, err := s.RunConf(m, "robot1")
	require.NoError(t, err)
	assert.Equal(t, "/robot1", rc.ROS.Namespace)
	assert.Equal(t, s.URI(), rc.ROS.MasterURI)
	require.NotNil(t, rc.Lockstep)
	require.NotNil(t, rc.OdomOrigin)
	assert.InDelta(t, sp.Pose.X, rc.OdomOrigin.X, 1e-9)
	assert.InDelta(t, sp.Pose.Y, rc.OdomOrigin.Y, 1e-9)

	rc.Seed = 1
	rc.OnTick = func(tree *runtime.Tree, tr runtime.TickReport) (string, bool) {
		if v, ok := tree.Blackboard().Get("x"); ok && tr.Seq > 40 {
			return "ticked with odometry", v != nil
		}
		return "", false
	}
	rep, err := mission.Run(context.Background(), rc)
	require.NoError(t, err)
	assert.Equal(t, mission.Stopped, rep.Outcome, rep.Summary())
	assert.True(t, rep.Done, rep.Summary())
	assert.Positive(t, s.Node.Now(), "simulated time went on with the mission")

	require.NoError(t, s.Close())
	closed = true
	_, err = ros.Connect(ros.Conf{MasterURI: s.URI(), Host: "127.0.0.1", Name: "probe"})
	assert.Error(t, err, "the master is closed")
}

// TestStartSimAddsRobots: the robots of SimConf are added at their spawn
// place, the one named as them unless told, or at a pose; a spawn the
// world does not have, or a battery out of range, is an error that says
// what would be right.
func TestStartSimAddsRobots(t *testing.T) {
	pose := sim.Pose{X: 1, Y: 2}
	for _, tc := range []struct {
		name   string
		robots []mission.SimRobot
		err    string
		want   map[string]sim.Pose // robot → where it starts, when no error
	}{
		{name: "at the spawn named as it", robots: []mission.SimRobot{{Name: "robot2"}}},
		{name: "at another spawn", robots: []mission.SimRobot{{Name: "scout", Spawn: "robot3"}}},
		{name: "at a pose", robots: []mission.SimRobot{{Name: "robot1", Pose: &pose}}, want: map[string]sim.Pose{"robot1": pose}},
		{name: "no such spawn", robots: []mission.SimRobot{{Name: "scout"}},
			err: "robot scout: the world has no spawn place named scout (it has robot1, robot2, robot3, robot4): add spawns: [{name: scout, pose: [x, y, yaw]}] to its places.yaml"},
		{name: "battery out of range", robots: []mission.SimRobot{{Name: "robot1", Battery: 1.5}}, err: "robot robot1: battery 1.5: want a charge in (0, 1]"},
		{name: "no such world", err: "nowhere: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := officeWorld
			if tc.name == "no such world" {
				dir = t.TempDir() + "/nowhere"
			}
			s, err := mission.StartSim(mission.SimConf{WorldDir: dir, Robots: tc.robots})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer s.Close()
			w, err := sim.LoadWorld(officeWorld, sim.WorldConf{})
			require.NoError(t, err)
			for _, r := range tc.robots {
				want, ok := tc.want[r.Name]
				if !ok {
					sp, found := w.Places().Spawn(cmp.Or(r.Spawn, r.Name))
					require.True(t, found)
					want = sp.Pose
				}
				var got sim.Pose
				s.Node.Do(func(w *sim.World) error {
					rb, ok := w.Robot(r.Name)
					require.True(t, ok)
					got = rb.Pose()
					return nil
				})
				assert.InDelta(t, want.X, got.X, 1e-9)
				assert.InDelta(t, want.Y, got.Y, 1e-9)
			}
		})
	}
}
