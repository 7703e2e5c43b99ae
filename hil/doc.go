// Package hil proves missions against the simulator: a scenario file
// (*.scenario.yaml) names a world, robots with their missions, faults and
// expectations; Run runs it in this process — its own ROS master on a free
// loopback port, the simulator (sim/simnode), the missions in lockstep with
// it (mission.Run, mission.RunFleet) — and judges every expectation,
// with what was measured and the scenario line it comes from.
//
//	s, err := hil.Check("scenarios/patrol.scenario.yaml") // the file and its missions
//	res, err := hil.Run(ctx, hil.RunConf{Scenario: s})
//	res.Passed()  // every expectation held
//
// Faults strike between two physics steps: at a simulated time (Node.At),
// when a robot comes near a place (on the harness's samples, every 100 ms
// of simulated time), when a node of a robot's tree reaches a status or an
// entry of its blackboard meets a condition (before the simulator's next
// step; the simulator is held in the lockstep meanwhile). The robots are
// sampled on the simulator's goroutine, so what the expectations measure
// is taken at the same simulated times on every run.
//
// The faults of the controller's world (the master shuts it down, /clock
// stops, its tick stalls) let the simulated world go on at real time
// without waiting for the controllers, so that only the controller's own
// fail-safe can stop the robot; what is measured after them depends on
// the machine's speed.
//
// A file's matrix expands it into runs named by their parameters
// (LoadRuns); Plan makes a campaign of files, with seeds, a selection and
// a shard; a run is recorded (RunConf.Record) and drawn (RunConf.Picture)
// for its HTML report (WriteReports). With RunConf.Master, RunExternal runs
// against a running simulator or robot instead, starting nothing.
//
// Files: scenario.go the model, load.go the loader (every problem at
// file:line:col, unknown keys with the nearest known ones), matrix.go the
// matrix, fault.go and expect.go the kinds of fault and expectation,
// fault_controller.go the faults of the controller's world,
// trigger_blackboard.go the blackboard triggers, expect_measures.go the
// measured expectations (speed near obstacles, blackboard values, errors
// logged, a steady process, a stable period), run.go one run, external.go
// one run against a target on another master, record.go what a run saw and
// the verdicts, campaign.go many runs, report.go the console table and
// JUnit XML, html.go the HTML report.
// docs/hil.md teaches the file format.
package hil
