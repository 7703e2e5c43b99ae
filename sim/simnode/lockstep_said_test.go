package simnode

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestSaidValues: what the simulator says at each hold for its lockstep
// peers (bridge.GoalsEndedTopic's frame_id): the on-change values, the
// stamps of the newest sensor messages sent, and the topics a fault
// freezes or delays, sorted by topic so that the same state says the same
// words.
func TestSaidValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		said   map[string]bool
		sent   map[string]time.Time
		faults map[string]string
		want   string
	}{
		{name: "nothing yet"},
		{name: "on-change values", said: map[string]bool{"/robot1/docked": true, "/robot1/bumper": false},
			want: "/robot1/bumper=false /robot1/docked=true"},
		{name: "stamps in nanoseconds of ROS time", sent: map[string]time.Time{"/robot1/odom": time.Unix(12, 340_000_000), "/robot1/scan": time.Unix(0, 0)},
			want: "/robot1/odom@12340000000 /robot1/scan@0"},
		{name: "a frozen topic and a delayed one", sent: map[string]time.Time{"/robot1/odom": time.Unix(3, 0)},
			faults: map[string]string{"/robot1/odom": "frozen", "/robot1/bumper": "delayed"}, said: map[string]bool{"/robot1/bumper": true},
			want: "/robot1/bumper=delayed /robot1/bumper=true /robot1/odom=frozen /robot1/odom@3000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, saidValues(tc.said, tc.sent, tc.faults))
		})
	}
}
