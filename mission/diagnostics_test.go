package mission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// diagArray is a DiagnosticArray as testdata/diagnostics_listen.py prints it.
type diagArray struct {
	Stamp  float64 `json:"stamp"`
	Status []struct {
		Level      int               `json:"level"`
		Name       string            `json:"name"`
		Message    string            `json:"message"`
		HardwareID string            `json:"hardware_id"`
		Values     map[string]string `json:"values"`
	} `json:"status"`
}

// status returns the status whose name ends with suffix.
func (a diagArray) status(t *testing.T, suffix string) (level int, message string, values map[string]string) {
	t.Helper()
	for _, s := range a.Status {
		if strings.HasSuffix(s.Name, suffix) {
			assert.Equal(t, "robot1", s.HardwareID, "hardware_id of %s", s.Name)
			assert.True(t, strings.HasPrefix(s.Name, "/robot1/btrobot: "), "named after the node: %s", s.Name)
			return s.Level, s.Message, s.Values
		}
	}
	require.FailNow(t, fmt.Sprintf("no status named *%s in %+v", suffix, a))
	return
}

func parseDiag(t *testing.T, line string) diagArray {
	t.Helper()
	var a diagArray
	require.NoError(t, json.Unmarshal([]byte(line), &a), line)
	return a
}

// TestDiagnosticsOnSim: a mission on the simulator publishes its health on
// /diagnostics, read by Debian's rospy: a frozen odometry shows as a stale
// input (WARN) while the tree sees it stale, a battery drop that fails the
// mission shows as an ERROR with the report's explanation, and the last
// message, sent as the run ends, counts the ticks the run counted.
func TestDiagnosticsOnSim(t *testing.T) {
	rostest.Require(t, "rospy", "diagnostic_msgs")
	for _, tc := range []struct {
		name  string
		fault func(*sim.World)
		// during is what a message during the run must show (the run is
		// then stopped); nil: the run ends by itself.
		during func(a diagArray) bool
		check  func(t *testing.T, rep mission.Report, during, last diagArray)
	}{
		{
			name: "a frozen odometry is a stale input",
			fault: func(w *sim.World) {
				r, _ := w.Robot("robot1")
				require.NoError(t, r.SetTopicFault(sim.TopicOdom, sim.TopicFault{Frozen: true}))
			},
			during: func(a diagArray) bool {
				for _, s := range a.Status {
					if strings.HasSuffix(s.Name, ": inputs") && s.Level == 1 {
						return true
					}
				}
				return false
			},
			check: func(t *testing.T, rep mission.Report, during, last diagArray) {
				level, msg, values := during.status(t, ": inputs")
				assert.Equal(t, 1, level, "WARN")
				assert.Equal(t, "stale: /robot1/odom", msg)
				assert.True(t, strings.HasPrefix(values["/robot1/odom"], "stale: newest "), values["/robot1/odom"])
				assert.Contains(t, values["/robot1/odom"], "(max_age 0.5 s)")
				assert.True(t, strings.HasPrefix(values["/robot1/scan"], "fresh: "), values["/robot1/scan"])
				// What the tree saw: the stale flag the bridge latched.
				stale, ok := rep.Tree.Blackboard().Get("odom_stale")
				require.True(t, ok)
				assert.Equal(t, true, stale)
				assert.Equal(t, mission.Stopped, rep.Outcome, rep.Summary())
				level, msg, _ = last.status(t, ": mission")
				assert.Equal(t, 0, level, msg)
				assert.Equal(t, "ended: stopped", msg)
			},
		},
		{
			name: "a battery drop fails the mission",
			fault: func(w *sim.World) {
				r, _ := w.Robot("robot1")
				require.NoError(t, r.SetBatteryLevel(0.1))
			},
			check: func(t *testing.T, rep mission.Report, _, last diagArray) {
				require.Equal(t, mission.Failed, rep.Outcome, rep.Summary())
				level, msg, values := last.status(t, ": mission")
				assert.Equal(t, 2, level, "ERROR")
				require.NotEmpty(t, rep.Explanation)
				leaf := rep.Explanation[len(rep.Explanation)-1]
				assert.Equal(t, "ended: the mission failed: "+leaf.String(), msg)
				assert.Contains(t, msg, "battery")
				assert.Equal(t, strings.TrimSuffix(runtime.FormatExplanation(rep.Explanation), "\n"), values["last_failure"])
				assert.Equal(t, "FAILURE", values["status"])
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t, []string{"robot1"}, nil)
			listen := rostest.Python(t, s.uri, "testdata/diagnostics_listen.py")
			listen.WaitLine(t, "ready", 30*time.Second)
			rc := s.runConf(t, "robot1", missionsDir+"/patrol.xml")
			rc.Diagnostics = true
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			runCtx, stop := context.WithCancel(ctx)
			defer stop()
			done := make(chan mission.Report, 1)
			go func() {
				rep, err := mission.Run(runCtx, rc)
				assert.NoError(t, err)
				done <- rep
			}()
			// The listener hears the run before the fault, with every input
			// fresh: the run's end cannot come before it is connected. Not
			// necessarily in the first message: diagnostics go out on the
			// wall clock, and a loaded machine publishes the first when the
			// run has ticked once, at time zero (seen: "1 ticks in the last
			// 1.1 s", scan "stale: no message yet", the others 0.00 s old).
			var first diagArray
			for deadline := time.Now().Add(60 * time.Second); ; {
				require.True(t, time.Now().Before(deadline), "no message showed every input fresh:\n%s", listen.Stdout())
				first = parseDiag(t, listen.WaitLine(t, `"/robot1/btrobot: tick loop"`, 60*time.Second))
				if level, _, _ := first.status(t, ": inputs"); level == 0 {
					break
				}
			}
			level, _, values := first.status(t, ": tick loop")
			assert.Equal(t, "20", values["rate_hz"])
			assert.LessOrEqual(t, level, 1)
			_, msg, _ := first.status(t, ": inputs")
			assert.Equal(t, "5 inputs fresh", msg)
			s.node.At(s.node.Now(), tc.fault)

			var during diagArray
			if tc.during != nil {
				for deadline := time.Now().Add(60 * time.Second); ; {
					require.True(t, time.Now().Before(deadline), "no message showed the fault:\n%s", listen.Stdout())
					a := parseDiag(t, listen.WaitLine(t, `"/robot1/btrobot: tick loop"`, 60*time.Second))
					if tc.during(a) {
						during = a
						break
					}
				}
				stop()
			}
			var rep mission.Report
			select {
			case rep = <-done:
			case <-time.After(2 * time.Minute):
				require.FailNow(t, "the run did not end")
			}
			// The last message is sent as the run ends.
			var last diagArray
			for deadline := time.Now().Add(10 * time.Second); ; {
				require.True(t, time.Now().Before(deadline), "no message said how the run ended:\n%s", listen.Stdout())
				last = parseDiag(t, listen.WaitLine(t, `"/robot1/btrobot: tick loop"`, 10*time.Second))
				if _, msg, _ := last.status(t, ": mission"); strings.HasPrefix(msg, "ended: ") {
					break
				}
			}
			_, _, values = last.status(t, ": tick loop")
			assert.Equal(t, strconv.FormatUint(rep.Stats.Ticks, 10), values["ticks_total"], "the ticks the run counted")
			assert.Equal(t, strconv.FormatUint(rep.Stats.Overruns, 10), values["overruns_total"])
			tc.check(t, rep, during, last)
		})
	}
}
