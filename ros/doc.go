// Package ros connects behavior trees to robots over ROS 1, through
// goroslib. It is the only package that uses goroslib's node, topic,
// service and action APIs; the simulator reaches ROS through its helpers.
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
//
// The pieces, by file:
//
//   - conn.go, names.go: Conf, ConfFromArgs and Connect (ROS_MASTER_URI,
//     ROS_IP/ROS_HOSTNAME, ROS_NAMESPACE, __ns, __name, remapping,
//     private parameters, /rosout), name resolution, parameters.
//   - simclock.go: SimClock, the runtime.Clock that follows /clock.
//   - topics.go, services.go, actions.go: publishers, subscribers, service
//     clients and servers, action clients and servers, shared per name on
//     a connection (a goroslib node takes each topic once).
//   - messages.go: the registry of ROS type names (every goroslib message,
//     service and action, move_base_msgs, user types).
//   - profile.go, fields.go: the robot profile in YAML, with field paths
//     into messages.
//   - bridge.go, run.go: the scan cycle (inputs latched at the start of a
//     tick, outputs published at its end, stale inputs marked, the robot
//     stopped on stop, error, panic and stalled ticks) and Run;
//   - nodes.go and one file per node: the generic ROS nodes Publish,
//     TopicCondition, CallService and RunAction; action_leaf.go: ActionLeaf,
//     the action-client leaf the skills build on.
package ros
