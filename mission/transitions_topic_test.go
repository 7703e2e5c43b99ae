package mission_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// bagTransition is a btrobot_msgs/Transition of a btrobot_msgs/Transitions
// message as testdata/read_bag.py prints it.
type bagTransition struct {
	Msg      uint32 `json:"msg"`
	MsgStamp int64  `json:"msg_stamp"`
	Seq      uint32 `json:"seq"`
	Stamp    int64  `json:"stamp"`
	RunID    string `json:"run_id"`
	UID      uint32 `json:"uid"`
	Path     string `json:"path"`
	Type     string `json:"type"`
	From     uint8  `json:"from"`
	To       uint8  `json:"to"`
	Reason   string `json:"reason"`
}

// TestTransitionsTopicInABag: Debian's rosbag record keeps the transitions
// topic of a mission on the simulator beside /robot1/odom; Debian's
// Python rosbag reads the bag back, rebuilding btrobot_msgs/Transition
// from the definition the bag stored (its MD5 is genpy's for that text;
// no btrobot_msgs package is installed),
// and the transitions are the run's: the same sequence as the run's own
// recording (.db3), with the same times, reasons and run ID, numbered
// from 1 without a gap.
func TestTransitionsTopicInABag(t *testing.T) {
	rostest.Require(t, "rosbag", "rospy")
	for _, tc := range []struct {
		name    string
		fault   func(*sim.World)
		outcome mission.Outcome
	}{
		{
			name: "a patrol that fails on a battery drop",
			fault: func(w *sim.World) {
				r, _ := w.Robot("robot1")
				require.NoError(t, r.SetBatteryLevel(0.1))
			},
			outcome: mission.Failed,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// rosbag starts before the simulator sets /use_sim_time: under
			// simulated time it would subscribe only once /clock ticks,
			// after the run began.
			uri := rostest.StartMaster(t)
			dir := t.TempDir()
			bag := filepath.Join(dir, "run.bag")
			const topic = "/robot1/btrobot/transitions"
			rec := rostest.Start(t, uri, "rosbag", "record", "-O", bag, topic, "/robot1/odom")
			waitSubscribed(t, uri, topic)
			s := startSimOn(t, uri, []string{"robot1"}, nil)

			rc := s.runConf(t, "robot1", missionsDir+"/patrol.xml")
			rc.Transitions = "~transitions"
			rc.Record = filepath.Join(dir, "run.db3")
			s.node.At(20*time.Second, tc.fault)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := mission.Run(ctx, rc)
			require.NoError(t, err)
			require.Equal(t, tc.outcome, rep.Outcome, rep.Summary())

			time.Sleep(500 * time.Millisecond) // the last messages reach the bag
			rec.Interrupt()
			require.NoError(t, rec.WaitExit(t, 20*time.Second))

			out := rostest.Run(t, s.uri, time.Minute, rostest.PythonPath, "testdata/read_bag.py", bag, topic)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.NotEmpty(t, lines)
			var info struct {
				Type     string         `json:"type"`
				MD5      string         `json:"md5"`
				GenpyMD5 string         `json:"genpy_md5"`
				Counts   map[string]int `json:"counts"`
			}
			require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &info), lines[len(lines)-1])
			assert.Equal(t, "btrobot_msgs/Transitions", info.Type)
			assert.Equal(t, info.GenpyMD5, info.MD5, "the stored MD5 is the one of the stored definition")
			assert.Positive(t, info.Counts["/robot1/odom"], "odometry beside the transitions")
			var got []bagTransition
			for _, l := range lines[:len(lines)-1] {
				var m bagTransition
				require.NoError(t, json.Unmarshal([]byte(l), &m), l)
				got = append(got, m)
			}

			r, err := record.Open(rc.Record)
			require.NoError(t, err)
			defer r.Close()
			first, last := r.Span()
			want, err := r.Transitions(first, last.Add(time.Second))
			require.NoError(t, err)
			require.NotEmpty(t, want)
			require.NotEmpty(t, got)
			require.Equal(t, len(want), len(got), "every transition of the run, in the bag; got %d to %d", got[0].Seq, got[len(got)-1].Seq)
			nodes := map[uint32]record.NodeInfo{}
			for _, n := range r.Header().Nodes {
				nodes[n.UID] = n
			}
			msgs := map[uint32]bool{}
			for i, w := range want {
				g := got[i]
				require.Equal(t, uint32(i+1), g.Seq, "numbered from 1 without a gap")
				msgs[g.Msg] = true
				assert.LessOrEqual(t, g.MsgStamp, g.Stamp, "a message is stamped with its first transition's time")
				assert.Equal(t, rep.RunID.String(), g.RunID)
				assert.Equal(t, w.UID, g.UID, "transition %d", i+1)
				assert.Equal(t, nodes[w.UID].Path, g.Path, "transition %d", i+1)
				assert.Equal(t, nodes[w.UID].Type, g.Type, "transition %d", i+1)
				assert.Equal(t, uint8(w.From), g.From, "transition %d of %s", i+1, g.Path)
				assert.Equal(t, uint8(w.To), g.To, "transition %d of %s", i+1, g.Path)
				assert.Equal(t, w.Reason, g.Reason, "transition %d of %s", i+1, g.Path)
				assert.Equal(t, w.At.UnixMicro(), g.Stamp/1000, "transition %d of %s", i+1, g.Path)
			}
			assert.Less(t, len(msgs), len(got)/3, "a message per tick, not per transition")
			// The failure's reason travels with the leaf's transition.
			leaf := rep.Explanation[len(rep.Explanation)-1]
			found := false
			for _, g := range got {
				found = found || g.Path == leaf.Path && g.To == 3 && g.Reason == leaf.Reason
			}
			assert.True(t, found, "the deciding leaf's FAILURE with its reason %q", leaf.Reason)
		})
	}
}

// waitSubscribed waits until the master lists rosbag record as a
// subscriber of topic (rosbag's own output is buffered in a pipe).
func waitSubscribed(t *testing.T, uri, topic string) {
	t.Helper()
	var out string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out, _ = rostest.RunErr(t, uri, 10*time.Second, "rostopic", "info", topic)
		if strings.Contains(out, "* /record") {
			return
		}
	}
	require.FailNow(t, "rosbag record did not subscribe to "+topic+":\n"+out)
}
