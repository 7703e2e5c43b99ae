package simnode

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestSimulatorAdvertisesSensorPeriods: the period of every sensor topic,
// in simulated seconds, under the node's bridge.SensorPeriodsParam, where a
// lockstep peer reads what to wait for.
func TestSimulatorAdvertisesSensorPeriods(t *testing.T) {
	uri := rostest.StartMaster(t)
	startSim(t, uri, simSetup{conf: Conf{OdomRate: 25, BumperRate: 5}})
	c := connect(t, uri, "reader")
	cases := []struct {
		topic string
		want  float64
	}{
		{"/robot1/odom", 0.04},
		{"/robot1/scan", 0.1}, // the laser's rate
		{"/robot1/battery_state", 1},
		{"/robot1/bumper", 0.2},
	}
	for _, tc := range cases {
		t.Run(tc.topic, func(t *testing.T) {
			got, err := c.ParamFloat64("/sim/" + bridge.SensorPeriodsParam + tc.topic)
			require.NoError(t, err)
			assert.InDelta(t, tc.want, got, 1e-9)
		})
	}
	ok, err := c.HasParam("/sim/" + bridge.SensorPeriodsParam + "/robot1/cmd_vel")
	require.NoError(t, err)
	assert.False(t, ok, "cmd_vel is no sensor")
}
