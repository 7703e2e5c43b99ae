package main

import (
	"flag"
	"fmt"
	"net"
	"strconv"

	"github.com/btrobot/btrobot/mission"
)

// watchFlags are --record (run, demo, tick), --groot, --diagnostics and
// --transitions (run, demo); mission checks their values.
type watchFlags struct {
	record      string
	groot       int
	grootHost   string // "" for loopback
	diagnostics bool
	transitions string
}

func (w *watchFlags) addFlags(fs *flag.FlagSet, groot bool) {
	fs.StringVar(&w.record, "record", "", "record the run to FILE: .btlog (BT.CPP's FileLogger2: Groot2 opens it) or .db3 (SQLite:\n"+
		"statuses, reasons, blackboard and ticks); btrobot replay plays either")
	if groot {
		fs.Var(grootAddr{w}, "groot", "serve the tree to Groot2 on `[HOST:]PORT` (REP; PUB on the next; 1667 is Groot2's own; 0: off).\n"+
			"PORT alone listens on loopback (127.0.0.1) only; 0.0.0.0:PORT on every interface, for a Groot2 on another machine.\n"+
			"While a breakpoint holds the tree, the robot is stopped")
		fs.BoolVar(&w.diagnostics, "diagnostics", true, "publish the controller's health on /diagnostics once a second (rqt_robot_monitor, the diagnostic aggregator)")
		fs.StringVar(&w.transitions, "transitions", "~transitions", "publish the status transitions on this topic (btrobot_msgs/Transitions, one message a tick), for rosbag record\n"+
			"(~: the node's private namespace, /robot1/btrobot/transitions; \"\": off)")
	}
}

func (w *watchFlags) apply(rc *mission.RunConf) {
	rc.Record, rc.Groot, rc.GrootHost, rc.Diagnostics, rc.Transitions = w.record, w.groot, w.grootHost, w.diagnostics, w.transitions
}

// grootAddr is --groot: PORT (on loopback) or HOST:PORT. The port's range
// is mission.CheckWatchers' to check.
type grootAddr struct{ w *watchFlags }

func (g grootAddr) String() string {
	if g.w == nil || g.w.groot == 0 {
		return "0"
	}
	if g.w.grootHost == "" {
		return strconv.Itoa(g.w.groot)
	}
	return net.JoinHostPort(g.w.grootHost, strconv.Itoa(g.w.groot))
}

func (g grootAddr) Set(v string) error {
	host, port := "", v
	if h, p, err := net.SplitHostPort(v); err == nil {
		host, port = h, p
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return fmt.Errorf("%q: want PORT or HOST:PORT (e.g. 1667, 0.0.0.0:1667)", v)
	}
	g.w.groot, g.w.grootHost = n, host
	return nil
}
