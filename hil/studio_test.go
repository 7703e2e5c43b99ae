package hil

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
)

// TestFaultsAndVerdictsOnTheStudioTimeline: a scenario run with the browser
// studio attached (btrobot hil --ui) draws each fault on its robot's
// timeline as it strikes (F1 at the fault's time) and the verdicts at the
// end: a page that connects after the run gets them in its first
// snapshot.
func TestFaultsAndVerdictsOnTheStudioTimeline(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		edit       func(*Scenario)
		faults     []string // the fault marks' label: text
		kind       string   // the verdicts' mark
		saying     string
	}{
		{name: "a battery drop, every expectation held", file: "../scenarios/battery_drop_docks.scenario.yaml",
			faults: []string{"F1: {at: 30s, battery: 0.12}"}, kind: "pass", saying: "all 5 expectations held"},
		{name: "an expectation failed", file: "../scenarios/battery_drop_docks.scenario.yaml",
			edit: func(s *Scenario) {
				s.Expect = append(s.Expect, Expectation{Kind: "ends_within", Within: time.Second, Text: "ends_within: 1s", Pos: s.Expect[1].Pos})
			},
			faults: []string{"F1: {at: 30s, battery: 0.12}"}, kind: "fail", saying: "1 of 6 expectations failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each with its own studio
			s, err := Check(tc.file)
			require.NoError(t, err)
			if tc.edit != nil {
				tc.edit(s)
			}
			srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Title: "btrobot hil"})
			require.NoError(t, err)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			res, err := Run(ctx, RunConf{Scenario: s, Debugger: func(name string, world func(io.Writer) error) func(mission.Shown) mission.Debugger {
				return srv.Debugger(studio.LiveConf{Name: name, Map: world})
			}})
			require.NoError(t, err)
			require.Len(t, res.Strikes, len(tc.faults))

			marks := firstSnapshotMarks(t, srv.Addr(), 1)
			require.Len(t, marks, len(tc.faults)+1, "the faults and the verdicts: %+v", marks)
			for i, want := range tc.faults {
				assert.Equal(t, "fault", marks[i].Kind)
				assert.Equal(t, want, marks[i].Label+": "+marks[i].Text)
			}
			last := marks[len(marks)-1]
			assert.Equal(t, tc.kind, last.Kind)
			assert.Contains(t, last.Text, tc.saying)
			// On the timeline's axis (ms since the run's start), in order:
			// the fault at its simulated time, the verdicts at the end.
			assert.InDelta(t, res.Strikes[0].At.Seconds()*1000, marks[0].At, 100, "F1 at the fault's time")
			assert.InDelta(t, res.SimTime.Seconds()*1000, last.At, 100, "the verdicts when judged")
		})
	}
}

type timelineMark struct {
	At    float64 `json:"at"`
	Kind  string  `json:"kind"`
	Label string  `json:"label"`
	Text  string  `json:"text"`
}

// firstSnapshotMarks reads the marks of the first snapshot of run id's
// event stream.
func firstSnapshotMarks(t *testing.T, addr string, id int) []timelineMark {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://%s/api/runs/%d/events", addr, id), nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	snapshot := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "event: snapshot":
			snapshot = true
		case snapshot && strings.HasPrefix(line, "data: "):
			var d struct {
				Marks []timelineMark `json:"marks"`
			}
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d))
			return d.Marks
		}
	}
	require.FailNow(t, fmt.Sprintf("no snapshot in the event stream: %v", sc.Err()))
	return nil
}
