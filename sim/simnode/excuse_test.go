package simnode

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestExcuseLetsTheWorldGoOnWithoutAPeer: a peer that holds its tick (a
// paused tree) holds the world where it said last; excused until a time,
// the world goes on as the other peers allow, to that time and no
// further, and the peer holds it again from there. Joins counts each
// peer's join as the node takes it in.
func TestExcuseLetsTheWorldGoOnWithoutAPeer(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, _ := startSim(t, uri, simSetup{conf: Conf{Peers: 2, PeerTimeout: time.Hour}})
	held, err := bridge.NewLockstepPeer(connect(t, uri, "held"), "")
	require.NoError(t, err)
	driver, err := bridge.NewLockstepPeer(connect(t, uri, "driver"), "")
	require.NoError(t, err)
	epoch := n.Stamp(0)
	require.NoError(t, held.Ready(epoch.Add(100*time.Millisecond)))
	require.NoError(t, driver.Ready(epoch.Add(time.Second)))
	require.Eventually(t, func() bool { return n.Joins("/held") == 1 && n.Joins("/driver") == 1 }, 10*time.Second, 5*time.Millisecond, "both joined")
	assert.Equal(t, 0, n.Joins("/nobody"))

	for _, tc := range []struct {
		name   string
		excuse time.Duration // 0: none
		want   time.Duration // where the world stands still
	}{
		{"held by the peer that holds its tick", 0, 100 * time.Millisecond},
		{"excused: on to the excuse's end", 600 * time.Millisecond, 600 * time.Millisecond},
		{"excused for longer: on to where the other peer allows", 5 * time.Second, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.excuse > 0 {
				n.Excuse("/held", tc.excuse)
			}
			require.Eventually(t, func() bool { return n.Now() >= tc.want }, 10*time.Second, 5*time.Millisecond, "time at %v", tc.want)
			// Held there: the step from it waits for a peer (the node's
			// own rule, asked under its lock — no window of wall time).
			n.mu.Lock()
			now := n.w.Now()
			reason := n.holdReason(now)
			n.mu.Unlock()
			assert.Equal(t, tc.want, now, "held there")
			assert.Contains(t, reason, "waiting for lockstep peer", "the world may step on from %v", now)
		})
	}
	assert.Equal(t, 1, n.Joins("/held"), "an excuse is no second join")
}
