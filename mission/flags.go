package mission

import (
	"flag"
	"fmt"
	"net"
	"strconv"
)

// WatchFlags are the command line's --record (btrobot run, demo, tick),
// --groot, --diagnostics and --transitions (run, demo): how a run is
// watched, for RunConf's fields of the same names (Apply). Run checks
// their values (CheckWatchers).
type WatchFlags struct {
	Record      string
	Groot       int
	GrootHost   string // "" for loopback
	Diagnostics bool
	Transitions string
}

// Add declares --record on fs, and with groot the flags of a run on ROS:
// --groot, --diagnostics and --transitions.
func (w *WatchFlags) Add(fs *flag.FlagSet, groot bool) {
	fs.StringVar(&w.Record, "record", "", "record the run to FILE: .btlog (BT.CPP's FileLogger2: Groot2 opens it) or .db3 (SQLite:\n"+
		"statuses, reasons, blackboard and ticks); btrobot replay plays either")
	if groot {
		fs.Var(grootAddr{w}, "groot", "serve the tree to Groot2 on `[HOST:]PORT` (REP; PUB on the next; 1667 is Groot2's own; 0: off).\n"+
			"PORT alone listens on loopback (127.0.0.1) only; 0.0.0.0:PORT on every interface, for a Groot2 on another machine.\n"+
			"While a breakpoint holds the tree, the robot is stopped")
		fs.BoolVar(&w.Diagnostics, "diagnostics", true, "publish the controller's health on /diagnostics once a second (rqt_robot_monitor, the diagnostic aggregator)")
		fs.StringVar(&w.Transitions, "transitions", "~transitions", "publish the status transitions on this topic (btrobot_msgs/Transitions, one message a tick), for rosbag record\n"+
			"(~: the node's private namespace, /robot1/btrobot/transitions; \"\": off)")
	}
}

// Apply sets rc's watchers as the flags say.
func (w *WatchFlags) Apply(rc *RunConf) {
	rc.Record, rc.Groot, rc.GrootHost, rc.Diagnostics, rc.Transitions = w.Record, w.Groot, w.GrootHost, w.Diagnostics, w.Transitions
}

// grootAddr is --groot: PORT (on loopback) or HOST:PORT. The port's range
// is CheckWatchers' to check.
type grootAddr struct{ w *WatchFlags }

func (g grootAddr) String() string {
	if g.w == nil || g.w.Groot == 0 {
		return "0"
	}
	if g.w.GrootHost == "" {
		return strconv.Itoa(g.w.Groot)
	}
	return net.JoinHostPort(g.w.GrootHost, strconv.Itoa(g.w.Groot))
}

func (g grootAddr) Set(v string) error {
	host, n, err := ParseGrootAddr(v)
	if err != nil {
		return err
	}
	g.w.Groot, g.w.GrootHost = n, host
	return nil
}

// ParseGrootAddr reads a --groot value: PORT (host "": loopback) or
// HOST:PORT. The port's range is CheckWatchers' to check.
func ParseGrootAddr(v string) (host string, port int, err error) {
	p := v
	if h, hp, err := net.SplitHostPort(v); err == nil {
		host, p = h, hp
	}
	port, err = strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("%q: want PORT or HOST:PORT (e.g. 1667, 0.0.0.0:1667)", v)
	}
	return host, port, nil
}
