// Package ros is btrobot's transport to ROS 1: a node's connection to the
// graph (Conf, ConfFromArgs, Connect, Conn), names and parameters, topics,
// services, actions, the message registry, the clock (ROS time under
// /use_sim_time) and the detection of a lost ROS. It knows no behavior
// tree: package bridge puts a tree on a connection (robot profile, scan
// cycle, Run, the ROS leaves, the simulator's lockstep). It is the only
// package that uses goroslib's node, topic and service APIs; the simulator
// reaches ROS through its helpers. Actions are btrobot's own actionlib
// client and server, built on the package's topics (goroslib's action
// client made a goal LOST on a stale status, and its server forgot a
// cancel that overtook its goal).
//
// A Conn does its own part (names, one endpoint per name shared by its
// users, the publish queue, the newest message of a topic, loss state, the
// actionlib protocol) above a transport, the unexported wire (wire.go). By
// default, btrobot's own TCPROS node (wire_tcpros.go: package tcpros's
// bounded streams, the slave API and the master API over ros/master's
// XML-RPC codec, every request and answer bounded in size and time, so
// that nothing a peer sends reaches an unbounded allocation, issue 24;
// service clients keep a persistent connection). With Conf.Wire =
// "goroslib", goroslib's TCPROS node (wire_goroslib.go), which allocates
// what a peer declares up to 16 MiB a field, on any number of
// connections: kept selectable, for comparison and as a fallback. With
// Conf.Graph, a node of an in-process graph (package inproc,
// wire_inproc.go) for a controller and a simulator that share a process:
// no sockets, the same semantics (transport_test.go runs one conformance
// suite over all three, the tcpros wire on the embedded master and on
// Debian's rosmaster).
//
// Where goroslib (v2.1.5, archived) gives no hook, the goroslib wire works
// around it, and nothing outside this package depends on how (the tcpros
// wire has the hooks: its slave API's shutdown call, its subscriptions'
// ends, its own bounded master calls):
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
//     bridge.Run fails safe rather than run unregistered. (On the tcpros
//     wire the question goes through master.Call: bounded by
//     Conf.MasterTimeout and its answer to 64 KiB.)
//   - A publisher whose process died shows only as a log line of
//     goroslib's ("subscriber 'T' got an error"); the Conn counts them per
//     topic, so that bridge.Run notices /clock, the robot's inputs or an
//     action server losing their publisher at once.
//   - Whether a zero velocity reached anyone is read from the node's own
//     slave API (getBusInfo), which answers without the master, and on
//     Linux from the kernel's TCP table: what the peers' TCP acknowledged
//     (tcpack.go).
//   - goroslib bounds a call to the master only by its ReadTimeout (10 s),
//     once per topic as a node closes: the Conn waits for each at most
//     twice Conf.MasterTimeout, and not at all once the master is known
//     silent (Conn.unregister). The tcpros wire bounds each by
//     Conf.MasterTimeout and tells the Conn when one timed out.
//
// A program joins the graph and uses it:
//
//	conf, rest, err := ros.ConfFromArgs("btrobot", os.Args[1:], nil) // __ns:=, remaps, _params, ROS_*
//	conn, err := ros.Connect(conf)
//	defer conn.Close()
//	odom, err := ros.Subscribe[nav_msgs.Odometry](conn, "odom", nil)
//	msg, at, n := odom.Newest()
//	<-conn.Lost()                     // errors.Is(conn.Err(), ros.ErrLost)
//
// The pieces, by file:
//
//   - conn.go, names.go: Conf, ConfFromArgs and Connect (ROS_MASTER_URI,
//     ROS_IP/ROS_HOSTNAME, ROS_NAMESPACE, __ns, __name, remapping,
//     private parameters, /rosout), name resolution, parameters.
//   - wire.go, wire_tcpros.go, wire_goroslib.go, wire_inproc.go: the
//     transport under a Conn, and its three implementations (btrobot's own
//     TCPROS the default); inproc/: the in-process graph;
//     transport_test.go: the conformance suite all pass.
//   - simclock.go: SimClock, the runtime.Clock that follows /clock.
//   - topics.go, services.go: publishers, subscribers, service clients and
//     servers, shared per name on a connection (a goroslib node takes each
//     topic once); LatchTopics and Subscription.Latched, the snapshot a
//     scan cycle reads a tick from.
//   - graph.go: what the graph says of a topic's publishers and
//     subscribers (Subscribers, WaitSubscribers, AwaitListedSubscribers,
//     NodePublishes, Offered).
//   - actions.go, action_client.go, action_server.go, action_msgs.go: the
//     actionlib protocol on those topics: the client's communication state
//     machine (moved by status and result only), goal ids, the server's
//     status list, cancels by id, by stamp and of everything, and cancels
//     that come before their goal; goals in flight that a watchdog cancels
//     (TrackGoal, CancelGoals).
//   - action_observer.go: the seam a peer that counts messages (the
//     simulator's lockstep, in package bridge) installs on a connection
//     (ActionObserver: goals and cancels sent, cancels held until their
//     goal is acknowledged), the count of goals ended (GoalsEnded) and the
//     wait for halted goals' cancels (AwaitCancels).
//   - messages.go, messages_goroslib.go, move_base_msgs.go: the registry
//     of ROS type names (every goroslib message, service and action,
//     move_base_msgs, user types); btrobot_msgs.go: btrobot's own message
//     types (btrobot_msgs/Transitions, Transition, the mission server's).
//   - lost.go, clock_silence.go: how a node notices that it lost ROS, and
//     the errors that say so (ErrLost; ShutdownError, ClockStoppedError,
//     MasterLostError, RobotLostError, ServerLostError): the master's
//     shutdown call (HoldShutdown), the master gone, publishers that closed
//     their connections (PublisherDrops, DeadPublishers), /clock's silence
//     as a supervisor watched it (ClockSilence).
//   - tcpack.go: whether what the node wrote was acknowledged by its peers'
//     TCP (Unacknowledged, SubscriberConns).
package ros
