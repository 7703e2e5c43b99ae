// Package record keeps what a running tree did, so that it can be seen
// again afterwards: every status transition (with the node's reason), every
// blackboard change (with the node that wrote it), every tick of the loop,
// and a header (the tree's XML with its node UIDs, the palette's models, the
// robot profile, the run's UUID, btrobot's version and the seed).
//
// Two formats, chosen by the file's extension:
//
//   - .btlog is BehaviorTree.CPP's FileLogger2 format, byte for byte, so
//     Groot2 opens btrobot's recordings as it opens BT.CPP's. The format
//     holds the tree and the transitions only (no blackboard, no ticks, no
//     reasons): record as .db3 to keep everything.
//   - .db3 (or .btdb) is a SQLite database: BT.CPP's SqliteLogger tables
//     (Definitions, Nodes, Transitions), so tools written for it read it,
//     and btrobot's own (btrobot_run, btrobot_nodes, btrobot_blackboard,
//     btrobot_keys, btrobot_ticks, the btrobot_reasons view), so a long
//     recording is queried with sqlite3 rather than grepped. The driver is
//     modernc.org/sqlite, pure Go.
//
// Recording is an observer and never blocks the tick: the tick appends to a
// buffer, a goroutine writes it out at least every FlushEvery (200 ms), so
// a process that is killed loses at most that much. The recorder attaches
// to a tree and takes the loop's tick reports:
//
//	rec, err := record.New(record.Conf{Path: "run.db3", Tree: tree, Document: doc,
//		Palette: reg, Profile: profile, Version: version, Seed: seed, Reason: reasonOf})
//	detach := rec.Attach()              // transitions, blackboard changes and their writers
//	loop, _ := runtime.NewLoop(runtime.LoopConf{Tree: tree, Rate: 100, Observe: rec.OnTick})
//	loop.Run(ctx)
//	detach()
//	err = rec.Close()                   // what is left, and any write error or loss
//
// A recording of either format is read back with Open, which tells them
// apart by their first bytes. A Recording gives the state of the tree at
// any instant (an index seek in SQLite, checkpoints every 4096 or more transitions
// in a .btlog: no replay from the start) and its events between two
// instants, for a replay through a live view:
//
//	r, err := record.Open("run.db3")
//	state, err := r.StateAt(at)         // statuses, reasons, blackboard, tick
//
// A file that is not a recording, or whose header or records are corrupt,
// gets a *FormatError naming the byte; a .btlog cut short inside a record
// (a killed process) opens, replays up to the cut, and says so in Damage.
// A recording is untrusted input: a .btlog is read in place (its records
// stay on disk, its checkpoints are bounded in bytes), a .db3's schema is
// checked before anything is read (a view or a generated column in place
// of a table gets a *NotRecordingError), its values, rows and the time of
// each read's queries are bounded, and OpenContext's context ends a read
// in progress.
//
// BT.CPP's formats and Groot2 number nodes in 16 bits: a tree of more than
// MaxNodes nodes gets a TooManyNodesError from a .btlog (and from the
// Groot2 server), and is recorded whole as SQLite.
//
// The package sees only runtime and trees: it knows trees, not robots.
// Subpackage groot2 serves a running tree to Groot2.
package record
