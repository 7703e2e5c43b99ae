package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/btrobot/btrobot/runtime"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if hour.dir != "" {
			os.RemoveAll(hour.dir) // the benchmarks' one-hour recordings
		}
		os.Exit(code)
	}))
}

// A run recorded in either format replays to the same statuses (and, in
// SQLite, the same blackboard) as the live tree had, tick by tick.
func TestRecordingReplaysTheRun(t *testing.T) {
	cases := []struct {
		name       string
		file       string
		blackboard bool // the format holds the blackboard
	}{
		{"btlog", "run.btlog", false},
		{"sqlite", "run.db3", true},
	}
	// 50 ticks hold 12 rounds of the patrol or more (the Sleep's 30 ms
	// take 3 to 4 ticks of 10 ms), and every tick ends in the same
	// statuses with new counts on the blackboard (both key sets appear by
	// tick 4): ticks 51 to 200 would repeat the same checks with larger
	// numbers, at ~12 ms of CPU each under -race (a SQLite query per node).
	const ticks = 50
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree, doc, clock := patrol(t)
			path := filepath.Join(t.TempDir(), tc.file)
			id := uuid.New()
			rec, err := New(Conf{Path: path, Tree: tree, Document: doc, Palette: runtime.NewRegistry(), Profile: []byte("name: sim\n"),
				RunID: id, Version: "v-test", Seed: 7, Reason: func(b *runtime.Base) string { return "because " + b.Name() }})
			require.NoError(t, err)
			detach := rec.Attach()
			var truths []truth
			for i := range ticks {
				start := clock.Now()
				st, err := tree.TickExactlyOnce()
				require.NoError(t, err)
				rec.OnTick(runtime.TickReport{Seq: uint64(i + 1), Start: start, Duration: 40 * time.Microsecond, Status: st})
				truths = append(truths, snapshot(tree, clock.Now()))
				clock.Advance(10 * time.Millisecond)
			}
			detach()
			require.NoError(t, rec.Close())

			r, err := Open(path)
			require.NoError(t, err)
			defer r.Close()
			require.NoError(t, r.Damage())
			h := r.Header()
			require.Len(t, h.Nodes, len(tree.Nodes()))
			for i, n := range tree.Nodes() {
				b := runtime.NodeOf(n)
				assert.Equal(t, NodeInfo{UID: b.UID(), Path: b.Path(), Type: b.Type(), Name: b.Name()}, h.Nodes[i], "node %d", i+1)
			}
			assert.Contains(t, h.TreeXML, `_uid="1"`)
			if tc.blackboard {
				assert.Equal(t, id, h.RunID)
				assert.Equal(t, "v-test", h.Version)
				assert.Equal(t, uint64(7), h.Seed)
				assert.Equal(t, "name: sim\n", string(h.Profile))
			}
			for i, want := range truths {
				s, err := r.StateAt(want.at)
				require.NoError(t, err)
				require.Equal(t, want.statuses, s.Statuses, "statuses after tick %d", i+1)
				if tc.blackboard {
					require.Equal(t, want.blackboard, replayedBlackboard(s), "blackboard after tick %d", i+1)
					require.Equal(t, uint64(i+1), s.Tick)
				}
			}
			first, last := r.Span()
			all, err := r.Transitions(first, last.Add(time.Microsecond))
			require.NoError(t, err)
			require.NotEmpty(t, all)
			for _, tr := range all {
				require.NotEqual(t, tr.From, tr.To, "a transition changes the status: %+v", tr)
			}
			if tc.blackboard {
				var reasons int
				for _, tr := range all {
					if tr.To.Completed() {
						require.Equal(t, "because "+h.Nodes[tr.UID-1].Name, tr.Reason)
						reasons++
					}
				}
				require.NotZero(t, reasons)
				changes, err := r.Changes(first, last.Add(time.Microsecond))
				require.NoError(t, err)
				writers := map[string]bool{}
				for _, c := range changes {
					writers[c.Key+" by "+c.Writer] = true
				}
				assert.True(t, writers["visits by Patrol/patrol/forever/Step/step/count"], "writers: %v", writers)
				assert.True(t, writers["place by Patrol/patrol/forever/Step/step/Arrive/arrived"], "writers: %v", writers)
				recorded, err := r.Ticks(first, last.Add(time.Microsecond))
				require.NoError(t, err)
				require.Len(t, recorded, ticks)
				assert.Equal(t, 40*time.Microsecond, recorded[0].Duration)
			}
		})
	}
}

func TestNewRefusesAnUnknownFormat(t *testing.T) {
	tree, doc, _ := patrol(t)
	_, err := New(Conf{Path: filepath.Join(t.TempDir(), "run.json"), Tree: tree, Document: doc})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), `unknown format ".json"`), err.Error())
}
