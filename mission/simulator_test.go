package mission_test

import (
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

	w, err := sim.LoadWorld(officeWorld, sim.WorldConf{Seed: 1})
	require.NoError(t, err)
	sp, ok := w.Places().Spawn("robot1")
	require.True(t, ok)
	_, err = w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose})
	require.NoError(t, err)
	s, err := mission.StartSim(mission.SimConf{World: w})
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			s.Close()
		}
	})

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
