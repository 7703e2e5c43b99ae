package hil

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/stretchr/testify/require"
)

// BenchmarkPatrolScenario runs the shipped patrol scenario (the office,
// patrol.xml, three waypoints, in lockstep) on each transport — the
// in-process graph and TCPROS on loopback — and reports simulated seconds
// per wall second (sim/wall) and simulated hours per wall minute.
//
//	go test -run '^$' -bench PatrolScenario -benchtime 5x ./hil/
func BenchmarkPatrolScenario(b *testing.B) {
	benchScenario(b, "../scenarios/patrol.scenario.yaml")
}

// BenchmarkChargingScenario: the same for patrol_with_charging (the
// battery drop that sends the robot to dock and charge).
func BenchmarkChargingScenario(b *testing.B) {
	benchScenario(b, "../scenarios/battery_drop_docks.scenario.yaml")
}

func benchScenario(b *testing.B, path string) {
	s, err := Check(path)
	require.NoError(b, err)
	for _, transport := range []string{mission.TransportInproc, mission.TransportROS} {
		b.Run(transport, func(b *testing.B) {
			var sim, wall time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := Run(context.Background(), RunConf{Scenario: s, Transport: transport})
				require.NoError(b, err)
				require.True(b, res.Passed(), "%v", res.Failed())
				sim += res.SimTime
				wall += time.Since(start)
			}
			b.ReportMetric(sim.Seconds()/wall.Seconds(), "sim/wall")
			b.ReportMetric(sim.Hours()/wall.Minutes(), "simh/wallmin")
		})
	}
}

// BenchmarkFaultToStop runs the scenarios whose robot must come to rest
// after a fault of its controller's world — /clock stops (the profile's
// clock_timeout is 250 ms), the master shuts one robot's controller down —
// and reports, over the runs, how long after the fault the robot was at
// rest (p50, p99 and the longest, in ms: detection, the zero velocity and
// move_base's cancel, the base braking from cruising speed, and the 100 ms
// sampling of the harness), and how many runs found the robot still when
// the fault struck (its mission already over: those measure nothing). The world runs at real time meanwhile, so the
// figure is the wall clock's and grows with the machine's load: it belongs
// here, not in a timed test.
//
//	go test -run '^$' -bench FaultToStop -benchtime 20x ./hil/
func BenchmarkFaultToStop(b *testing.B) {
	for _, tc := range []struct{ name, file, robot string }{
		{"dead_clock", "../scenarios/dead_clock_on_delivery.scenario.yaml", "robot1"},
		{"master_shutdown", "../scenarios/fleet_robot_shut_down.scenario.yaml", "robot2"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := Check(tc.file)
			require.NoError(b, err)
			var rests []time.Duration
			still := 0
			for b.Loop() {
				res, err := Run(context.Background(), RunConf{Scenario: s})
				require.NoError(b, err)
				d, err := restAfterFault(res, tc.robot)
				require.NoError(b, err)
				if d == 0 {
					// At rest when the fault struck: the mission had
					// ended before it (a controller that called its
					// clock lost on a starved machine): nothing measured.
					still++
					continue
				}
				rests = append(rests, d)
			}
			b.ReportMetric(float64(still), "still-at-fault")
			if len(rests) == 0 {
				return
			}
			slices.Sort(rests)
			q := func(p float64) float64 {
				return float64(rests[int(p*float64(len(rests)-1))]) / float64(time.Millisecond)
			}
			b.ReportMetric(q(0.5), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
			b.ReportMetric(q(1), "max-ms")
		})
	}
}

// restAfterFault reads, from a run's at_rest-after-the-fault verdict about
// robot, how long after the fault the robot was at rest.
func restAfterFault(res Result, robot string) (time.Duration, error) {
	for _, v := range res.Verdicts {
		if v.Expectation.Kind != "at_rest" || v.Expectation.After != afterFault || v.Robot != robot {
			continue
		}
		word, _, ok := strings.Cut(strings.TrimPrefix(v.Measured, "at rest "), " ")
		if !ok {
			return 0, fmt.Errorf("%s: no time at rest: %s", robot, v.Measured)
		}
		return time.ParseDuration(word)
	}
	return 0, fmt.Errorf("no at_rest after the fault about %s", robot)
}
