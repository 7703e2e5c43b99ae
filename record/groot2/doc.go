// Package groot2 lets Groot2 watch and debug a running tree: it speaks
// Groot2's live protocol as BehaviorTree.CPP 4.10's Groot2Publisher does,
// over ZeroMQ (ZMTP 3.0, NULL mechanism, spoken here in pure Go: see
// zmtp.go for why not a library and for the bounds on what a peer may
// send): a REP socket on the port (1667 by default) answers Groot2's
// requests, a PUB socket on the next port tells it when a breakpoint is
// reached. Both listen on loopback unless Conf.Host says otherwise.
//
// Groot2 asks for the tree (its XML with every node's _uid and each
// subtree's _fullpath, see record.TreeXML), the statuses of all nodes,
// blackboard dumps (msgpack, by scope: the main tree's ID, a SubTree
// node's path), it inserts and removes hooks (breakpoints, and
// replace-hooks that return a status instead of ticking a node), unlocks
// breakpoints, and records transitions. A client that stays silent for
// MaxHeartbeatDelay (5 s) has its hooks disabled, so a robot is not left
// paused by a debugger that went away; they come back when it speaks.
//
// A breakpoint stops the whole tree at that node, as in BT.CPP: the tick
// blocks until Groot2 unlocks it. That is the one place where a tick
// waits, and only because a person asked for it; the loop's owner learns
// of it through Conf.OnPause (stop the robot there) and Server.Paused (keep
// the watchdog quiet while it is true), and ends it with Resume (or Close)
// when the run must stop:
//
//	srv, err := groot2.New(groot2.Conf{Tree: tree, Document: doc, Palette: reg, Port: 1667,
//		OnPause: func(n *runtime.Base, paused bool) { if paused { stopRobot() } }})
//	defer srv.Close()
//	detach := srv.Attach()              // transitions and tick hooks
//	defer detach()
//	loop, _ := runtime.NewLoop(runtime.LoopConf{..., OnStall: func() {
//		if !srv.Paused() { stall() }
//	}})
//
// A tree of more than 65,535 nodes cannot be numbered in Groot2's 16-bit
// UIDs: New refuses it with a record.TooManyNodesError.
package groot2
