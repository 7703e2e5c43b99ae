package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record/groot2"
)

// watchFlags are --record and --groot, shared by run and demo (tick has
// --record only).
type watchFlags struct {
	record string
	groot  int
}

// addRecordFlag defines --record on fs.
func (w *watchFlags) addRecordFlag(fs *flag.FlagSet) {
	fs.StringVar(&w.record, "record", "", "record the run to FILE: .btlog (BT.CPP's FileLogger2: Groot2 opens it) or .db3 (SQLite:\n"+
		"statuses, reasons, blackboard and ticks; btrobot replay plays either)")
}

// addFlags defines --record and --groot on fs.
func (w *watchFlags) addFlags(fs *flag.FlagSet) {
	w.addRecordFlag(fs)
	fs.IntVar(&w.groot, "groot", 0, fmt.Sprintf("serve the tree to Groot2 on this port (REP; PUB on the next): %d is Groot2's own; 0: off.\n"+
		"While a breakpoint holds the tree, the robot is stopped", groot2.DefaultPort))
}

// check says what is wrong with the flags' values, "" when nothing.
func (w *watchFlags) check() string {
	if w.groot < 0 || w.groot > 65534 {
		return fmt.Sprintf("--groot %d: want a port from 1 to 65534 (the PUB socket takes the next), or 0 for none", w.groot)
	}
	if w.record != "" {
		switch strings.ToLower(filepath.Ext(w.record)) {
		case ".btlog", ".db3", ".btdb":
		default:
			return fmt.Sprintf("--record %s: name the file .btlog (BT.CPP's FileLogger2, for Groot2) or .db3 (SQLite)", w.record)
		}
	}
	return ""
}

// apply passes the flags to a run.
func (w *watchFlags) apply(rc *mission.RunConf) { rc.Record, rc.Groot = w.record, w.groot }

// forRobot is the recording file and the Groot2 port of robot i of a
// fleet, named: x.db3 becomes x.NAME.db3, and each robot takes the next
// two ports.
func forRobot(rc mission.RunConf, i int, name string) mission.RunConf {
	if rc.Record != "" {
		ext := filepath.Ext(rc.Record)
		rc.Record = strings.TrimSuffix(rc.Record, ext) + "." + name + ext
	}
	if rc.Groot > 0 {
		rc.Groot += 2 * i
	}
	return rc
}
