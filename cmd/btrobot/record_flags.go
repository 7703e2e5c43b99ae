package main

import (
	"flag"

	"github.com/btrobot/btrobot/mission"
)

// watchFlags are --record (run, demo, tick), --groot, --diagnostics and
// --transitions (run, demo); mission checks their values.
type watchFlags struct {
	record      string
	groot       int
	diagnostics bool
	transitions string
}

func (w *watchFlags) addFlags(fs *flag.FlagSet, groot bool) {
	fs.StringVar(&w.record, "record", "", "record the run to FILE: .btlog (BT.CPP's FileLogger2: Groot2 opens it) or .db3 (SQLite:\n"+
		"statuses, reasons, blackboard and ticks); btrobot replay plays either")
	if groot {
		fs.IntVar(&w.groot, "groot", 0, "serve the tree to Groot2 on this port (REP; PUB on the next; 1667 is Groot2's own; 0: off).\n"+
			"While a breakpoint holds the tree, the robot is stopped")
		fs.BoolVar(&w.diagnostics, "diagnostics", true, "publish the controller's health on /diagnostics once a second (rqt_robot_monitor, the diagnostic aggregator)")
		fs.StringVar(&w.transitions, "transitions", "~transitions", "publish the status transitions on this topic (btrobot_msgs/Transitions, one message a tick), for rosbag record\n"+
			"(~: the node's private namespace, /robot1/btrobot/transitions; \"\": off)")
	}
}

func (w *watchFlags) apply(rc *mission.RunConf) {
	rc.Record, rc.Groot, rc.Diagnostics, rc.Transitions = w.record, w.groot, w.diagnostics, w.transitions
}
