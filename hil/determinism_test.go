package hil

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestSameSeedSameRun: a scenario run twice with the same seed gives the
// same run bit for bit: the sampled trajectories (every pose, exactly),
// the faults' times and places, the trees' transitions, the verdicts with
// what they measured, and the report pages but for the wall time (and
// the controller's stalls, which are measured on it). The
// scenarios cover navigation goals and their ends, a battery drop that
// sends the robot to its dock (a goal halted and another started in one
// tick), a stop when the mission is done, and a mission server's goals
// (a replace, a pause, a resume, a cancel, an update on a trigger). Not yet covered, and known
// to differ between runs by a step: recoveries that spin
// (blocked_corridor, from 1 min), and a move_base server stopped under a
// goal, whose failure is a wall-clock timeout (move_base_dies_on_goal).
//
// These runs are the shipped scenarios' in-process runs too: each must
// hold every expectation (TestShippedScenariosPass does not run them
// again).
func TestSameSeedSameRun(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	for _, path := range sameSeedScenarios {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			s, err := Check(path)
			require.NoError(t, err)
			// The two runs go side by side, each loading the machine for the
			// other: the lockstep must make them repeat regardless.
			var runs [2]Result
			var logs [2][]string
			var mu sync.Mutex // Log is called from the simulator's and each mission's goroutines
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range runs {
				wg.Go(func() {
					// A liveness bound only: a run it cuts short ends at a
					// simulated time the machine's load decides.
					ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
					defer cancel()
					runs[i], errs[i] = Run(ctx, RunConf{Scenario: s, Log: func(line string) { mu.Lock(); logs[i] = append(logs[i], line); mu.Unlock() }})
					if errs[i] == nil && ctx.Err() != nil {
						errs[i] = fmt.Errorf("run %d did not end within the test's bound of wall time: %w", i, ctx.Err())
					}
				})
			}
			wg.Wait()
			require.NoError(t, errors.Join(errs...))
			for i, r := range runs {
				require.NotEmpty(t, r.Verdicts)
				for _, v := range r.Verdicts {
					assert.True(t, v.Pass, "run %d: %s\nsimulator:\n%s", i, v, strings.Join(r.Events, "\n"))
				}
			}
			// A lockstep that went on without a message says so; when the
			// runs part, what it said is the first thing to read.
			var warned []string
			for _, l := range append(logs[0], logs[1]...) {
				if strings.Contains(l, "may not repeat exactly") || strings.Contains(l, "never came") || strings.Contains(l, "was not published within") {
					warned = append(warned, l)
				}
			}
			if len(warned) > 0 {
				t.Logf("the lockstep warned: %q", warned)
			}
			a, b := runs[0], runs[1]
			// When the runs part, where they part first says why: the
			// first differing transition and event, with what led to them,
			// and what each run logged.
			if d := firstDiff(a.Changes, b.Changes); d != "" {
				t.Logf("the transitions part: %s", d)
			}
			if d := firstDiff(a.Events, b.Events); d != "" {
				t.Logf("the events part: %s", d)
				for i := range logs {
					t.Logf("run %d logged:\n%s", i, strings.Join(logs[i], "\n"))
				}
			}
			require.Equal(t, len(a.Tracks), len(b.Tracks))
			for i := range a.Tracks {
				requireSameTrack(t, a.Tracks[i].Robot, a.Tracks[i].Points, b.Tracks[i].Points)
			}
			assert.Equal(t, a.SimTime, b.SimTime)
			assert.Equal(t, a.Strikes, b.Strikes)
			assert.Equal(t, verdictTexts(a), verdictTexts(b))
			assert.Equal(t, a.Changes, b.Changes)
			assert.Equal(t, a.Events, b.Events)
			// The pages, wall times aside.
			var pa, pb bytes.Buffer
			a.Wall, b.Wall = 0, 0
			for i := range a.Reports {
				// Wall time, and the stalls measured on it, aside.
				for _, r := range []*Result{&a, &b} {
					r.Reports[i].Wall, r.Reports[i].Stats.Stalls, r.Reports[i].Stats.LongestStall = 0, 0, 0
				}
			}
			require.NoError(t, WriteHTML(&pa, Case{File: s.File, Result: a}, ""))
			require.NoError(t, WriteHTML(&pb, Case{File: s.File, Result: b}, ""))
			la, lb := strings.Split(pa.String(), "\n"), strings.Split(pb.String(), "\n")
			for i := range min(len(la), len(lb)) {
				require.Equal(t, la[i], lb[i], "the pages part at line %d", i+1)
			}
			assert.Equal(t, len(la), len(lb))
		})
	}
}

// sameSeedScenarios are the shipped scenarios TestSameSeedSameRun runs
// twice.
var sameSeedScenarios = []string{
	"../scenarios/patrol.scenario.yaml",
	"../scenarios/battery_drop_docks.scenario.yaml",
	"../scenarios/blocked_corridor.scenario.yaml",
	// goals sent to a mission server: a replace at a time, a goal
	// after the one before it (hil's goals:, goals.go)
	"../scenarios/patrol_preempted_by_charge.scenario.yaml",
	// a pause the world goes on through (simnode's Excuse), a
	// resume, a queued goal and a cancel; an update on a trigger
	"../scenarios/served_pause_resume_cancel.scenario.yaml",
	"../scenarios/served_update_changes_the_next_stop.scenario.yaml",
}

// requireSameTrack fails at the first sample where two trajectories part
// (the whole slices would print thousands of poses), then on their lengths.
func requireSameTrack(t *testing.T, robot string, a, b []TrackPoint) {
	t.Helper()
	require.NotEmpty(t, a)
	for k := range min(len(a), len(b)) {
		require.Equal(t, a[k], b[k], "%s: the trajectories part at sample %d", robot, k)
	}
	require.Equal(t, len(a), len(b), "samples of %s", robot)
}

func verdictTexts(r Result) []string {
	var out []string
	for _, v := range r.Verdicts {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// firstDiff describes where two sequences first differ, with the three
// items before on both sides and the item after; "" when they are equal.
func firstDiff[T comparable](a, b []T) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "at item %d of %d and %d", i, len(a), len(b))
	for k := max(0, i-3); k < i; k++ {
		fmt.Fprintf(&s, "\n  both: %+v", a[k])
	}
	for _, side := range []struct {
		name string
		seq  []T
	}{{"first", a}, {"second", b}} {
		for k := i; k < min(i+2, len(side.seq)); k++ {
			fmt.Fprintf(&s, "\n  %s run: %+v", side.name, side.seq[k])
		}
	}
	return s.String()
}

// TestSameRunOnBothTransports: a scenario run on the in-process graph and
// over TCPROS, with the same seed, gives the same run: trajectories,
// transitions, events and verdicts. The lockstep, not the transport,
// decides what each tick sees. battery_drop_docks is cut at 70 s, past the
// drop (a goal halted and another started in one tick) and the docking:
// its three minutes of charging after that tell nothing of the transport.
func TestSameRunOnBothTransports(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	for _, tc := range []struct {
		path  string
		limit time.Duration // the scenario's own when 0
		event string        // the runs got this far
	}{
		{path: "../scenarios/patrol.scenario.yaml", event: "move_base goal succeeded"},
		{path: "../scenarios/battery_drop_docks.scenario.yaml", limit: 70 * time.Second, event: "dock goal succeeded"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			s, err := Check(tc.path)
			require.NoError(t, err)
			if tc.limit > 0 {
				s.TimeLimit = tc.limit
			}
			a := runScenarioOn(t, s, mission.TransportInproc)
			b := runScenarioOn(t, s, mission.TransportROS)
			if d := firstDiff(a.Changes, b.Changes); d != "" {
				t.Logf("the transitions part: %s", d)
			}
			require.Equal(t, len(a.Tracks), len(b.Tracks))
			for i := range a.Tracks {
				requireSameTrack(t, a.Tracks[i].Robot, a.Tracks[i].Points, b.Tracks[i].Points)
			}
			assert.Equal(t, a.SimTime, b.SimTime)
			assert.Equal(t, verdictTexts(a), verdictTexts(b))
			assert.Equal(t, a.Changes, b.Changes)
			assert.Equal(t, a.Events, b.Events)
			assert.Contains(t, strings.Join(a.Events, "\n"), tc.event)
		})
	}
}
