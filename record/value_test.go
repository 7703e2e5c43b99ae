package record

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordedMessagesReadAsROSMessages: a message on the blackboard is
// recorded with its fields by their ROS names, its stamp in seconds and a
// NaN as "nan" (it was Go's %v dump, `{0 0 {0 0 1970-01-01 00:00:13
// +0000 UTC robot1/base_link} 13.74 NaN …}`, as JSON has no NaN); numbers
// and strings stay their JSON.
func TestRecordedMessagesReadAsROSMessages(t *testing.T) {
	battery := sensor_msgs.BatteryState{
		Header:      std_msgs.Header{Stamp: time.Unix(13, 0), FrameId: "robot1/base_link"},
		Voltage:     13.74,
		Temperature: float32(math.NaN()),
		Percentage:  0.5,
	}
	for _, file := range []string{"values.db3", "values.btlog"} {
		t.Run(file, func(t *testing.T) {
			tree, doc, clock := patrol(t)
			path := filepath.Join(t.TempDir(), file)
			rec, err := New(Conf{Path: path, Tree: tree, Document: doc})
			require.NoError(t, err)
			detach := rec.Attach()
			require.NoError(t, tree.Blackboard().Set("battery_state", battery))
			require.NoError(t, tree.Blackboard().Set("goal_name", "kitchen"))
			require.NoError(t, tree.Blackboard().Set("speed", 0.25))
			clock.Advance(time.Second)
			_, err = tree.TickExactlyOnce()
			require.NoError(t, err)
			detach()
			require.NoError(t, rec.Close())

			r, err := Open(path)
			require.NoError(t, err)
			defer r.Close()
			if r.Format() != "sqlite" {
				return // a .btlog holds no blackboard
			}
			_, last := r.Span()
			st, err := r.StateAt(last)
			require.NoError(t, err)
			bb := replayedBlackboard(st)["Patrol"]
			assert.JSONEq(t, `{"header":{"seq":0,"stamp":13,"frame_id":"robot1/base_link"},"voltage":13.74,"temperature":"nan","current":0,"charge":0,"capacity":0,"design_capacity":0,"percentage":0.5,"power_supply_status":0,"power_supply_health":0,"power_supply_technology":0,"present":false,"cell_voltage":[],"cell_temperature":[],"location":"","serial_number":""}`, bb["battery_state"])
			assert.Equal(t, `"kitchen"`, bb["goal_name"])
			assert.Equal(t, `0.25`, bb["speed"])
		})
	}
}
