package simnode

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestRealTimeRunsWithoutThePeers: a node waiting for a lockstep peer that
// never comes holds time at zero; RealTime lets the world go on at real
// time to the time given, and the lockstep holds again from there.
func TestRealTimeRunsWithoutThePeers(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, _ := startSim(t, uri, simSetup{conf: Conf{Peers: 1, PeerTimeout: time.Hour}})
	time.Sleep(200 * time.Millisecond)
	require.Equal(t, time.Duration(0), n.Now(), "held for the peer")

	start := time.Now()
	n.RealTime(time.Second)
	require.Eventually(t, func() bool { return n.Now() >= time.Second }, 5*time.Second, 5*time.Millisecond, "time at 1 s")
	wall := time.Since(start)
	assert.GreaterOrEqual(t, wall, 900*time.Millisecond, "one simulated second per wall second")
	assert.Less(t, wall, 3*time.Second)
	time.Sleep(300 * time.Millisecond)
	assert.Equal(t, time.Second, n.Now(), "held again from the time given")
	assert.Equal(t, time.Second, n.RealTimeUntil())
}

// TestStopClockSilencesClock: /clock, heartbeats included, stops while the
// clock is stopped and comes back when it resumes.
func TestStopClockSilencesClock(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, _ := startSim(t, uri, simSetup{conf: Conf{Peers: 1, PeerTimeout: time.Hour}})
	// The listener is on simulated time: its clock notes each /clock.
	clock := connect(t, uri, "listener").SimClock()
	require.NotNil(t, clock)
	require.Eventually(t, func() bool { return !clock.LastSet().IsZero() }, 5*time.Second, 5*time.Millisecond, "heartbeats on /clock")

	cases := []struct {
		name    string
		stopped bool
		quiet   bool
	}{
		{"stopped", true, true},
		{"resumed", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n.StopClock(tc.stopped)
			assert.Equal(t, tc.stopped, n.ClockStopped())
			time.Sleep(150 * time.Millisecond) // a heartbeat already on its way
			before := clock.LastSet()
			time.Sleep(500 * time.Millisecond)
			if tc.quiet {
				assert.Equal(t, before, clock.LastSet(), "no /clock while stopped")
			} else {
				assert.True(t, clock.LastSet().After(before), "heartbeats again")
			}
		})
	}
}
