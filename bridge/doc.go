// Package bridge puts a behavior tree on a robot over a ROS connection
// (package ros, the transport): the robot profile that binds topics to the
// blackboard, the scan cycle that ticks the tree against it, Run with its
// safety (one stop path, the delivery of the zero velocity checked), what a
// run says of itself on ROS, the generic ROS leaves, and the simulator's
// lockstep. It uses the transport's public API only, and goroslib's message
// types; never goroslib's node API.
//
// A program joins the graph, builds its tree on the connection's clock (ROS
// time under /use_sim_time), and runs it against a robot profile:
//
//	conf, rest, err := ros.ConfFromArgs("btrobot", os.Args[1:], nil) // __ns:=, remaps, _params, ROS_*
//	conn, err := ros.Connect(conf)
//	defer conn.Close()
//	profile, err := bridge.LoadProfile("robots/sim.yaml")
//	reg := runtime.NewRegistry()
//	err = bridge.Register(reg, bridge.Deps{Conn: conn, Profile: profile})
//	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Clock: conn.Clock()})
//	report, err := bridge.Run(ctx, bridge.RunConf{Conn: conn, Tree: tree, Profile: profile})
//	fmt.Println(report.Stop)          // zero velocity sent on /robot1/cmd_vel and delivered to 1 subscriber
//	if errors.Is(err, ros.ErrLost) {  // shut down by the master: ..., /clock stopped 2.0 s ago, lost the master at ...
//		os.Exit(1)
//	}
//
// The pieces, by file:
//
//   - profile.go, fields.go: the robot profile in YAML, with field paths
//     into messages.
//   - bridge.go, run.go: the scan cycle (inputs latched at the start of a
//     tick through ros.Conn.LatchTopics, which the tree's ROS leaves then
//     read too; outputs published at its end; stale inputs marked; the
//     robot stopped on stop, error, panic, stalled ticks and a stalled
//     process, with the delivery of the zero velocity checked: StopReport)
//     and Run, whose supervisor turns the transport's loss detection into
//     a safe stop (ros.ErrLost).
//   - diagnostics.go, transitions_topic.go: what a run says of itself on
//     ROS (RunConf.Diagnostics, RunConf.Transitions): its health on
//     /diagnostics once a second (the tick loop, the inputs, the mission),
//     and its status transitions on a topic, for rosbag; both observers
//     that never make the tick wait.
//   - sim_lockstep.go: the simulator's lockstep (LockstepPeer), which Run
//     joins with RunConf.Lockstep; lockstep_actions.go: its part of the
//     action goals, installed on the connection as its ros.ActionObserver
//     (goals and cancels counted as sent, cancels held until their goal is
//     acknowledged, ticks held until their goals are out and their ended
//     goals collected).
//   - nodes.go and one file per node: the generic ROS nodes Publish,
//     TopicCondition, CallService and RunAction (Register); action_leaf.go:
//     ActionLeaf, the action-client leaf the skills build on.
package bridge
