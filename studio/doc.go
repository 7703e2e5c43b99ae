// Package studio is btrobot's browser studio: one HTTP server, carried by
// the binary (its page, script and style are embedded, nothing comes from
// the network), that shows running and recorded trees and, when allowed,
// debugs them.
//
// A [Server] holds runs. A live run ([Server.Debugger], given to
// mission.RunConf.Debugger; one per robot of a fleet) is an observer and a
// tick hook of the tree: it keeps the nodes' statuses, reasons and recent
// transitions, the loop's figures and the blackboard, and streams them to
// the page by server-sent events. It never blocks the tick: the tick's
// goroutine only updates that state under a short lock; a pump goroutine
// turns it into events (at most every [PumpEvery]) and hands them to each
// client's bounded queue; a client that does not keep up gets a snapshot
// instead of what it missed. A reconnecting page names the last event it
// saw (Last-Event-ID) and gets the events since, or a snapshot.
//
// A recording ([Server.AddRecording]) is shown through the same model:
// record.State is the state of a tree at an instant whether it comes from
// a running tree or from a file, so the page draws both alike, and a
// recording adds play, pause, speed and seek.
//
// Debugging (breakpoints before or after a node, pause, step one tick,
// forcing a node's result, setting a blackboard value) needs
// Conf.AllowControl. A breakpoint holds the tick on the tick's goroutine,
// as a Groot2 breakpoint does (runtime.TickHook): the run's owner sees
// Paused, stops the robot and keeps its watchdog quiet
// (bridge.RunConf.Paused). The server binds loopback by default; on any other
// address every request needs the token printed at start.
package studio
