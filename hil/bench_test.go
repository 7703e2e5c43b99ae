package hil

import (
	"context"
	"testing"
	"time"
)

// BenchmarkPatrolScenario runs the shipped patrol scenario (the office,
// patrol.xml, three waypoints, in lockstep over real ROS on loopback) and
// reports simulated seconds per wall second (sim/wall) and simulated hours
// per wall minute.
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
	if err != nil {
		b.Fatal(err)
	}
	var sim, wall time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := Run(context.Background(), RunConf{Scenario: s})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Passed() {
			b.Fatalf("%v", res.Failed())
		}
		sim += res.SimTime
		wall += time.Since(start)
	}
	b.ReportMetric(sim.Seconds()/wall.Seconds(), "sim/wall")
	b.ReportMetric(sim.Hours()/wall.Minutes(), "simh/wallmin")
}
