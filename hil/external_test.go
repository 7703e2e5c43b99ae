package hil

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestExternalTarget: with --master, the harness starts nothing: btrobot
// sim runs as a separate process on Debian's rosmaster; the mission runs
// against it, the battery fault is asked of it over ROS, and the verdicts
// come from the robot's topics (odom for the visit and the rest,
// battery_state for the level the fault set). A fault the target does
// not offer is an error before anything runs.
//
// The target runs at real time, as a robot does: nothing holds it to the
// controller's ticks (no lockstep with an external target), so the
// profile's bounds on the wall clock (a goal acknowledged within 2 s, the
// server up within 5 s) are what they are on a robot. At three times real
// time they were a third of that; a run with a second suite beside it
// once failed the errand at 10.6 s (its outcome did not say which bound).
func TestExternalTarget(t *testing.T) {
	rostest.Require(t, "rosmaster")
	bin := rostest.Btrobot(t)
	uri := rostest.Masters()[1].Start(t) // Debian's rosmaster
	simProc := rostest.Start(t, uri, bin, "sim", "--master", uri, "--world", "../worlds/office", "--speed", "1")
	simProc.WaitLine(t, "btrobot sim: 1 robot(s)", time.Minute)

	s, err := Check("testdata/external.scenario.yaml")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, RunConf{Scenario: s, Master: uri})
	require.NoError(t, err)
	got := map[string]Verdict{}
	for _, v := range res.Verdicts {
		got[v.Expectation.Kind] = v
	}
	for _, tc := range []struct {
		kind     string
		pass     bool
		measured string
	}{
		{"outcome", true, "succeeded at "},
		{"visits", true, "visited kitchen at "},
		{"collisions_at_most", true, "no collision"},
		{"battery_never_below", false, "lowest 3"}, // 40 %, then drained on the way
		{"at_rest", true, "at rest "},
	} {
		v, ok := got[tc.kind]
		require.True(t, ok, tc.kind)
		assert.Equal(t, tc.pass, v.Pass, "%s", v)
		assert.Contains(t, v.Measured, tc.measured, tc.kind)
	}
	require.Len(t, res.Strikes, 1)
	assert.GreaterOrEqual(t, res.Strikes[0].At, 2*time.Second)
	assert.Contains(t, simProc.Stdout(), "robot1: battery at 40%", "the simulator took the fault")
	require.Len(t, res.Tracks, 1)
	assert.NotEmpty(t, res.Tracks[0].Points)

	// A robot the target does not have: its faults are not offered.
	doc := strings.Replace(string(mustRead(t, "testdata/external.scenario.yaml")), "robots: 1", "robots: [{name: robot2, spawn: robot1}]", 1)
	s2, err := Parse("testdata/external.scenario.yaml", []byte(doc))
	require.NoError(t, err)
	_, err = Run(ctx, RunConf{Scenario: s2, Master: uri})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "external.scenario.yaml:13:5: {at: 2s, battery: 0.4}: the target offers no topic (no node subscribes to it) /sim/robot2/battery_level")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}
