package mission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/view"
)

// statusesOf is every node's status, by UID.
func statusesOf(tree *runtime.Tree) []runtime.Status {
	var out []runtime.Status
	for _, n := range tree.Nodes() {
		out = append(out, runtime.NodeOf(n).Status())
	}
	return out
}

// statusRecorder keeps the statuses a replay's transitions give, and a
// copy at every tick.
type statusRecorder struct {
	now   []runtime.Status
	ticks map[uint64][]runtime.Status
}

func (s *statusRecorder) OnTransitions(batch []runtime.Transition) {
	for _, t := range batch {
		s.now[t.Node.UID()-1] = t.To
	}
}
func (s *statusRecorder) OnTick(t runtime.TickReport) {
	s.ticks[t.Seq] = append([]runtime.Status(nil), s.now...)
}

// asJSON normalises a blackboard for comparison as a recording keeps it:
// each value as JSON as a recording writes it (view.ValueJSON: NaN as "nan").
func asJSON(t *testing.T, m map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range m {
		b := []byte(view.ValueJSON(v)) // as a recording stores it: a message by its ROS field names
		var back any                   // a round trip: 3 and 3.0 alike
		require.NoError(t, json.Unmarshal(b, &back))
		b, err := json.Marshal(back)
		require.NoError(t, err)
		out[k] = string(b)
	}
	return out
}

// TestRecordedMissionReplaysAsItRan: an errand on the simulator, recorded
// with RunConf.Record, replays through record.Player into the tree rebuilt
// from the recording to the state the run ended in (every node's status
// and, where the format keeps it, the root blackboard), and, in SQLite,
// tick by tick; Debian's sqlite3 reads the database.
func TestRecordedMissionReplaysAsItRan(t *testing.T) {
	for _, tc := range []struct {
		name       string
		file       string
		blackboard bool // the format keeps the blackboard and the ticks
	}{
		{name: "sqlite", file: "errand.db3", blackboard: true},
		{name: "btlog", file: "errand.btlog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t, []string{"robot1"}, nil)
			rc := s.runConf(t, "robot1", "testdata/errand.xml")
			rc.Record = filepath.Join(t.TempDir(), tc.file)
			during := map[uint64][]runtime.Status{}
			rc.OnTick = func(tree *runtime.Tree, tr runtime.TickReport) (string, bool) {
				during[tr.Seq] = statusesOf(tree)
				return "", false
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := mission.Run(ctx, rc)
			require.NoError(t, err)
			require.Equal(t, mission.Succeeded, rep.Outcome, rep.Summary())

			rec, err := record.Open(rc.Record)
			require.NoError(t, err)
			defer rec.Close()
			require.NoError(t, rec.Damage())
			h := rec.Header()
			if tc.blackboard { // a .btlog has no place for them
				assert.Equal(t, rep.RunID, h.RunID)
				assert.Equal(t, uint64(1), h.Seed)
				assert.Contains(t, string(h.Profile), "cmd_vel", "the profile's text is kept")
				assert.NotEmpty(t, h.Version)
			}

			tree, err := record.BuildTree(h, mission.Nodes())
			require.NoError(t, err)
			got := &statusRecorder{now: make([]runtime.Status, len(h.Nodes)), ticks: map[uint64][]runtime.Status{}}
			p, err := record.NewPlayer(rec, record.PlayConf{Tree: tree, Observer: got, OnTick: got.OnTick, Speed: -1})
			require.NoError(t, err)
			require.NoError(t, p.Play(context.Background()))

			assert.Equal(t, statusesOf(rep.Tree), got.now, "the statuses the run ended with")
			if !tc.blackboard {
				return
			}
			assert.Equal(t, asJSON(t, rep.Tree.Blackboard().Snapshot()), asJSON(t, tree.Blackboard().Snapshot()), "the root blackboard the run ended with")
			// Tick by tick, but the last: the halt that follows it happens
			// at its instant.
			require.Equal(t, len(during), int(rep.Stats.Ticks))
			for seq := uint64(1); seq < rep.Stats.Ticks; seq++ {
				require.Equal(t, during[seq], got.ticks[seq], "the statuses after tick %d", seq)
			}

			if _, err := exec.LookPath("sqlite3"); err != nil {
				msg := "needs Debian's sqlite3 (apt-get install sqlite3)"
				if os.Getenv("CI") == "true" {
					require.FailNow(t, msg+" (CI=true, so this fails instead of skipping)")
				}
				t.Skip(msg)
			}
			out, err := exec.Command("sqlite3", "-readonly", rc.Record, "SELECT count(*) FROM btrobot_ticks; SELECT count(DISTINCT node_uid) > 1 FROM Transitions;").CombinedOutput()
			require.NoError(t, err, "%s", out)
			lines := strings.Fields(string(bytes.TrimSpace(out)))
			require.Len(t, lines, 2, "%s", out)
			assert.Equal(t, []string{strconv.FormatUint(rep.Stats.Ticks, 10), "1"}, lines)
		})
	}
}
