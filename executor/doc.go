// Package executor is the mission server: btrobot as one long-running node
// on a robot, running the missions of a directory when goals ask for them
// (`btrobot serve`, docs/serving.md) — the way Nav2's bt_navigator and
// BehaviorTree.ROS2's TreeExecutionServer are used, with what their users
// ask for beside: missions reloaded without a restart, a pause that keeps
// the tree's state and holds the robot, and a result that says why.
//
// The pieces, by file:
//
//   - catalog.go: every tree file of the directory loaded and checked at
//     once (every problem at file:line:col), each tree ID and file name a
//     mission, with its typed inputs for ~list, and every mission made
//     ready on the server's connection before a goal needs it;
//   - payload.go: a goal's payload, a YAML map typed by the mission's ports;
//   - server.go: New, the ExecuteMission action server and its one goal
//     loop: preemption (replace, update, queue, reject), cancel, the
//     result (outcome, explanation, error_code, recording), and the robot
//     stopped between goals;
//   - feedback.go: the running leaves and their reasons, on change and at
//     least once a second;
//   - pause.go: ~pause and ~resume through runtime.Breakpoints, so the tree
//     keeps its place and its async skills are suspended;
//   - services.go: ~list, ~reload, ~pause, ~resume;
//   - status.go, diagnostics.go: the server's state (Status) and on
//     /diagnostics;
//   - watch.go: Conf.Watch, the catalog reloaded when its files change;
//   - groot.go: Conf.Groot, Groot2 attached across goals (each goal's tree
//     under a new tree UUID, an Idle tree between goals), and the run's
//     debuggers together (the pause, Groot2's, the studio's: Conf.Show);
//   - settings.go: the settings as private parameters (roslaunch).
package executor
