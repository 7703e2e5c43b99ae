// Package skills turns what a robot can do into leaves of the node palette:
// NavigateTo, FollowWaypoints, Spin, DriveDistance, BackUp, Stop, Dock,
// Undock, WaitForCharge, BatteryAbove, IsDocked, ObstacleWithin, AtPose,
// TopicFresh, Log, SetPlace, PopPlace, ClaimPlace and ReleasePlace.
//
//	reg := runtime.NewRegistry()
//	bridge.Register(reg, bridge.Deps{Conn: conn, Profile: profile})
//	skills.Register(reg, skills.Deps{Conn: conn, Profile: profile, Places: places, Log: sink})
//
// # The contract of a skill
//
// Every skill that takes time is an async leaf (ARCHITECTURE.md): the tick that
// starts it sends the work and returns RUNNING; the robot's answer (an action
// result, odometry reaching a target, a battery reaching a level) completes
// it; halting it cancels the work at once (the goal is cancelled in the
// background, a zero velocity commanded) without blocking the tick; and it
// reports its progress on output ports (distance_remaining, angle_remaining,
// elapsed in seconds, battery_percent). Each node type's doc comment states
// its contract and reaches the palette and docs/nodes.md (go generate
// writes node_docs.go from the comments).
//
// # How skills meet the robot: the scan cycle
//
// Skills read the robot through the root blackboard entries the robot
// profile's bridge latches at the start of every tick (odometry, laser,
// battery, bumper; see Keys, which finds them in the profile), and command
// the base through the entry the bridge publishes at the end of the tick
// (cmd_vel). So one tick sees one consistent world, a closed loop (Spin,
// DriveDistance, BackUp) runs at the tick rate on latched odometry, and a
// halt's zero velocity goes out in the flush of the halting tick: the robot
// stops within one tick, whether the halted skill drove it itself or through
// move_base. Stale inputs fail safe: a motion stops and fails, BatteryAbove
// and IsDocked fail, ObstacleWithin sees an obstacle. Long work that
// belongs to another node (move_base, the docking controller) goes through
// bridge.ActionLeaf, whose goal completion wakes the loop.
//
// # The ROS interfaces the skills expect
//
//   - navigation: a move_base_msgs/MoveBaseAction server, the robot
//     profile's "navigate" action or move_base in the robot's namespace
//     (Deps.Navigation); goals in the map frame;
//   - docking: two move_base_msgs/MoveBaseAction servers, dock and undock in
//     the robot's namespace, as btrobot's simulator serves them (Docking);
//     the dock goal names the dock in target_pose.header.frame_id, "" for
//     the nearest;
//   - inputs latched by the profile: nav_msgs/Odometry, sensor_msgs/LaserScan,
//     sensor_msgs/BatteryState (percentage a fraction; power_supply_status
//     charging or full means docked unless a std_msgs/Bool docked topic is an
//     input too), a std_msgs/Bool bumper;
//   - output: a geometry_msgs/Twist entry published on the profile's
//     velocity topic;
//   - fleets: std_msgs/String claims on /fleet/claims (ClaimPlace).
//
// # Places
//
// Trees name places where they would give a pose: NavigateTo goal="kitchen".
// The program gives the world's named places to Register (Deps.Places: the
// simulator's world, or a robot's site map); names written literally in a
// tree are checked when it is built. A place may also be a pose "x;y;yaw"
// (metres, radians, map frame), or "x,y,yaw" inside a ';'-separated list.
// The queue skills (SetPlace, PopPlace, ClaimPlace) keep lists of places as
// []string blackboard entries, which LoopString and FollowWaypoints read too.
//
// # Fleet claims
//
// Robots sharing places publish their one claim each, latched, on a
// std_msgs/String topic: "ROBOT PLACE STAMP" (STAMP in seconds of the ROS
// clock, PLACE "-" for none). A robot claims a place no other robot claims,
// waits for its claim to settle (longer than the topic's latency), and
// gives it up if another robot's claim on the same place is older, or as
// old from a robot whose name sorts first. Two robots therefore never keep
// the same place, and no central arbiter is needed.
package skills
