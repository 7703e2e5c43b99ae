// Package ros connects behavior trees to robots over ROS 1, through
// goroslib. It is the only package that uses goroslib's node, topic and
// service APIs; the simulator reaches ROS through its helpers.
//
// A Conn does its own part (names, one endpoint per name shared by its
// users, the publish queue, the newest message of a topic, loss state, the
// actionlib protocol) above a transport, the unexported wire (wire.go):
// goroslib's TCPROS node (wire_goroslib.go), or, with Conf.Graph, a node of
// an in-process graph (package inproc, wire_inproc.go) for a controller and
// a simulator that share a process: no sockets, the same semantics
// (transport_test.go runs one conformance suite over both). Actions
// are btrobot's own actionlib client and server, built on the package's
// topics (goroslib's action client made a goal LOST on a stale status, and
// its server forgot a cancel that overtook its goal).
//
// Where goroslib (v2.1.5, archived) gives no hook, this package works
// around it, and nothing outside it depends on how:
//
//   - The master's shutdown call (rosnode kill, a second node with the same
//     name) cancels goroslib's internal node context and tells nobody. The
//     node's log callback sees goroslib's "got shutdown request" line first,
//     on the goroutine answering the call, and keeps the call waiting (two
//     seconds at most) while Run stops the robot over the still-live
//     connections; then goroslib tears the node down.
//   - goroslib never re-registers after a master restart and never notices
//     a dead master. A Conn asks the master on the wall clock (every
//     Conf.MasterCheck) whether it still knows the node at its slave URI;
//     when it does not answer, or forgot the node, the connection is lost:
//     Run fails safe rather than run unregistered.
//   - A publisher whose process died shows only as a log line of
//     goroslib's ("subscriber 'T' got an error"); the Conn counts them per
//     topic, so that Run notices /clock, the robot's inputs or an action
//     server losing their publisher at once.
//   - Whether a zero velocity reached anyone is read from the node's own
//     slave API (getBusInfo), which answers without the master, and on
//     Linux from the kernel's TCP table: what the peers' TCP acknowledged
//     (tcpack.go).
//   - goroslib bounds a call to the master only by its ReadTimeout (10 s),
//     once per topic as a node closes: the Conn waits for each at most
//     twice Conf.MasterTimeout, and not at all once the master is known
//     silent (Conn.unregister).
//
// A program joins the graph, builds its tree on the connection's clock (ROS
// time under /use_sim_time), and runs it against a robot profile:
//
//	conf, rest, err := ros.ConfFromArgs("btrobot", os.Args[1:], nil) // __ns:=, remaps, _params, ROS_*
//	conn, err := ros.Connect(conf)
//	defer conn.Close()
//	profile, err := ros.LoadProfile("robots/sim.yaml")
//	reg := runtime.NewRegistry()
//	err = ros.Register(reg, ros.Deps{Conn: conn, Profile: profile})
//	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Clock: conn.Clock()})
//	report, err := ros.Run(ctx, ros.RunConf{Conn: conn, Tree: tree, Profile: profile})
//	fmt.Println(report.Stop)          // zero velocity sent on /robot1/cmd_vel and delivered to 1 subscriber
//	if errors.Is(err, ros.ErrLost) {  // shut down by the master: ..., /clock stopped 2.0 s ago, lost the master at ...
//		os.Exit(1)
//	}
//
// The pieces, by file:
//
//   - conn.go, names.go: Conf, ConfFromArgs and Connect (ROS_MASTER_URI,
//     ROS_IP/ROS_HOSTNAME, ROS_NAMESPACE, __ns, __name, remapping,
//     private parameters, /rosout), name resolution, parameters.
//   - simclock.go: SimClock, the runtime.Clock that follows /clock.
//   - topics.go, services.go: publishers, subscribers, service clients and
//     servers, shared per name on a connection (a goroslib node takes each
//     topic once);
//   - actions.go, action_client.go, action_server.go, action_msgs.go: the
//     actionlib protocol on those topics: the client's communication state
//     machine (moved by status and result only), goal ids, the server's
//     status list, cancels by id, by stamp and of everything, and cancels
//     that come before their goal.
//   - messages.go: the registry of ROS type names (every goroslib message,
//     service and action, move_base_msgs, user types).
//   - profile.go, fields.go: the robot profile in YAML, with field paths
//     into messages.
//   - bridge.go, run.go: the scan cycle (inputs latched at the start of a
//     tick, outputs published at its end, stale inputs marked, the robot
//     stopped on stop, error, panic, stalled ticks and a stalled process,
//     with the delivery of the zero velocity checked: StopReport) and Run;
//   - diagnostics.go, transitions_topic.go: what a run says of itself on
//     ROS (RunConf.Diagnostics, RunConf.Transitions): its health on
//     /diagnostics once a second (the tick loop, the inputs, the mission),
//     and its status transitions on a topic, for rosbag; both observers
//     that never make the tick wait. btrobot_msgs.go: btrobot's own
//     message types (btrobot_msgs/Transitions, Transition);
//   - lost.go: how a node notices that it lost ROS, and the errors that
//     say so (ErrLost; ShutdownError, ClockStoppedError, MasterLostError,
//     RobotLostError, ServerLostError), which Run returns after stopping
//     the robot;
//   - sim_lockstep.go: the simulator's lockstep, which Run joins with
//     RunConf.Lockstep;
//   - nodes.go and one file per node: the generic ROS nodes Publish,
//     TopicCondition, CallService and RunAction; action_leaf.go: ActionLeaf,
//     the action-client leaf the skills build on.
package ros
