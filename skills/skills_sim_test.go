package skills

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// simCase is one tree run on the simulator until it completes.
type simCase struct {
	name   string
	xml    string
	deps   Deps
	setup  worldSetup
	before func(t *testing.T, w *world, r *rig) // after the rig is up, before the first tick
	max    time.Duration                        // simulated time allowed [120 s]
	want   runtime.Status
	check  func(t *testing.T, w *world, r *rig)
}

func runSimCases(t *testing.T, cases []simCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case has its own master and simulator
			w := startWorld(t, tc.setup)
			r := newRig(t, w, "robot1", tc.xml, tc.deps)
			if tc.before != nil {
				tc.before(t, w, r)
			}
			max := tc.max
			if max == 0 {
				max = 120 * time.Second
			}
			start, wall := r.now(), time.Now()
			st := r.run(max)
			t.Logf("%v after %.1f s simulated, %v wall; %v", st, r.now().Sub(start).Seconds(), time.Since(wall).Round(time.Millisecond), r)
			require.Equal(t, tc.want, st, "%v, want %v; events %q; why: %v", st, tc.want, w.eventList(), r.tree.Explain())
			if tc.check != nil {
				tc.check(t, w, r)
			}
		})
	}
}

func wantEntry(t *testing.T, r *rig, key string, want any) {
	t.Helper()
	got := r.get(key)
	assert.Equal(t, want, got, "%s = %#v, want %#v", key, got, want)
}

func near(a sim.Pose, b Pose, tol float64) bool { return math.Hypot(a.X-b.X, a.Y-b.Y) <= tol }

// TestNavigationOnSim: NavigateTo and FollowWaypoints against the
// simulator's move_base: success, failure, timeout.
func TestNavigationOnSim(t *testing.T) {
	kitchen := Pose{X: 2.5, Y: 3.5}
	runSimCases(t, []simCase{
		{name: "NavigateTo a place", want: runtime.Success,
			xml: `<Sequence>
				<NavigateTo goal="kitchen" distance_remaining="{left}" elapsed="{t}" error_code="{code}"/>
				<AtPose goal="kitchen" tolerance="0.15"/>
			</Sequence>`,
			check: func(t *testing.T, w *world, r *rig) {
				pose, _, _, _ := w.robot("robot1")
				assert.True(t, near(pose, kitchen, 0.15), "robot at %v, not at the kitchen", pose)
				wantEntry(t, r, "code", ros.CodeNone)
				wantEntry(t, r, "left", 0.0)
				el := r.get("t").(float64)
				assert.GreaterOrEqual(t, el, 20.0, "elapsed %v s for 13 m at 0.4 m/s", el)
				assert.LessOrEqual(t, el, 60.0, "elapsed %v s for 13 m at 0.4 m/s", el)
			}},
		{name: "NavigateTo a pose", xml: `<NavigateTo goal="-5;0;1.5708"/>`, want: runtime.Success,
			check: func(t *testing.T, w *world, r *rig) {
				pose, _, _, _ := w.robot("robot1")
				assert.True(t, near(pose, Pose{X: -5}, 0.15), "robot at %v", pose)
				assert.LessOrEqual(t, math.Abs(pose.Yaw-math.Pi/2), 0.15, "robot at %v", pose)
			}},
		{name: "NavigateTo a goal in a wall fails ABORTED", xml: `<NavigateTo goal="0;1.2;0" error_code="{code}"/>`,
			want: runtime.Failure, max: 10 * time.Second,
			check: func(t *testing.T, w *world, r *rig) { wantEntry(t, r, "code", ros.CodeAborted) }},
		{name: "NavigateTo with no server fails SERVER_UNREACHABLE", xml: `<NavigateTo goal="kitchen" error_code="{code}" elapsed="{t}"/>`,
			deps: Deps{Navigation: "no_move_base"}, want: runtime.Failure, max: 10 * time.Second,
			check: func(t *testing.T, w *world, r *rig) {
				wantEntry(t, r, "code", ros.CodeServerUnreachable)
				s := r.get("t").(float64)
				// The tick that reaches 5 s ends the wait (it starts at the
				// first physics step at or after its due time).
				assert.GreaterOrEqual(t, s, 5.0, "gave up after %v s; the wait for the server is 5 s", s)
				assert.Less(t, s, 5.1, "gave up after %v s; the wait for the server is 5 s, a tick is 0.1 s", s)
			}},
		{name: "NavigateTo past its timeout is cancelled, TIMEOUT", xml: `<NavigateTo goal="lab" timeout="4s" error_code="{code}" elapsed="{t}"/>`,
			want: runtime.Failure, max: 10 * time.Second,
			check: func(t *testing.T, w *world, r *rig) {
				wantEntry(t, r, "code", ros.CodeTimeout)
				// The tick that reaches the timeout (4 s is a whole number
				// of periods after the start) cancels the goal and fails,
				// whatever the machine's load: the timeout is the tick's
				// to decide.
				el := r.get("t").(float64)
				assert.InDelta(t, 4.0, el, 1e-6, "timed out after %v s, want 4 s: the tick at 4 s decides", el)
				r.idle()
				// The simulator announces its events on a goroutine of its
				// own, after the step: wait for it. (It takes the cancel
				// at the step of the tick that timed out: its event's time
				// is that tick's, which this does not check.)
				assert.True(t, w.hasEvent("robot1: move_base goal cancelled"), "the server did not take the cancel: %q", w.eventList())
			}},
		{name: "NavigateTo a blocked room aborts", xml: `<NavigateTo goal="kitchen" error_code="{code}"/>`,
			setup: worldSetup{before: func(w *sim.World) {
				// Wall off the kitchen's door.
				if err := w.PlaceObstacle("block", sim.Rect{MinX: 0, MinY: 0.7, MaxX: 5, MaxY: 1.6}); err != nil {
					panic(err)
				}
			}},
			want: runtime.Failure, max: 30 * time.Second,
			check: func(t *testing.T, w *world, r *rig) { wantEntry(t, r, "code", ros.CodeAborted) }},
		{name: "FollowWaypoints through two places", want: runtime.Success,
			xml: `<FollowWaypoints waypoints="reception;-5,0,0" current_waypoint="{at}" waypoint_index="{i}"/>`,
			check: func(t *testing.T, w *world, r *rig) {
				pose, _, _, _ := w.robot("robot1")
				assert.True(t, near(pose, Pose{X: -5}, 0.15), "robot at %v", pose)
				wantEntry(t, r, "at", "-5,0,0")
				wantEntry(t, r, "i", 1)
				assert.True(t, w.hasEvent("move_base goal succeeded"), "no goal succeeded")
			}},
		{name: "FollowWaypoints stops at an unreachable waypoint", want: runtime.Failure,
			xml: `<FollowWaypoints waypoints="-5,0,0;0,1.2,0;kitchen" waypoint_index="{i}" error_code="{code}"/>`,
			check: func(t *testing.T, w *world, r *rig) {
				wantEntry(t, r, "i", 1)
				wantEntry(t, r, "code", ros.CodeAborted)
			}},
	})
}

// TestHaltOnSim: halting a running skill cancels its goal on the server
// and the robot gets a zero velocity in the halting tick's flush; it then
// comes to rest at its deceleration limit.
func TestHaltOnSim(t *testing.T) {
	cases := []struct {
		name   string
		xml    string
		ticks  int    // ticks before the halt
		cancel string // the server's event for the cancel, if a goal runs
		at     sim.Pose
	}{
		{name: "NavigateTo", xml: `<NavigateTo goal="kitchen"/>`, ticks: 80, cancel: "robot1: move_base goal cancelled"},
		{name: "FollowWaypoints", xml: `<FollowWaypoints waypoints="kitchen;lab"/>`, ticks: 80, cancel: "robot1: move_base goal cancelled"},
		{name: "Spin", xml: `<Spin angle="6"/>`, ticks: 30},
		{name: "DriveDistance", xml: `<DriveDistance distance="3" speed="0.4"/>`, ticks: 30},
		{name: "BackUp", xml: `<BackUp distance="1" speed="0.2"/>`, ticks: 30, at: sim.Pose{X: -5}},
		{name: "Dock", xml: `<Dock dock="dock_lab"/>`, ticks: 80, cancel: "robot1: dock goal cancelled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := startWorld(t, worldSetup{robots: []sim.RobotConf{{Name: "robot1", Spawn: tc.at}}})
			r := newRig(t, w, "robot1", tc.xml, Deps{})
			for i := 0; i < tc.ticks; i++ {
				st := r.tick()
				require.Equal(t, runtime.Running, st, "tick %d: %v", i+1, st)
			}
			_, twist, _, _ := w.robot("robot1")
			require.NotEqual(t, (sim.Twist{}), twist, "the robot is not moving after %d ticks", tc.ticks)
			haltAt := r.commandCount()
			r.halt()
			// One period later the zero velocity has reached the base.
			r.idle()
			// The halting tick's flush sent a zero velocity (after whatever
			// that tick had commanded), and nothing else came since.
			var cmds []timedTwist
			require.EventuallyWithT(t, func(c *assert.CollectT) {
				cmds = r.commandsSince(haltAt)
				if assert.NotEmpty(c, cmds, "no command since the halt") {
					assert.Equal(c, geometry_msgs.Twist{}, cmds[len(cmds)-1].Twist, "commands since the halt: %+v; want a zero velocity last", cmds)
				}
			}, 5*time.Second, 2*time.Millisecond)
			sinceHalt := len(cmds)
			// The base decelerates at its limits (1 m/s², 3 rad/s²).
			stopped := r.idleUntil(time.Second, func() bool {
				_, tw, _, _ := w.robot("robot1")
				return tw == (sim.Twist{})
			})
			if !stopped {
				_, tw, _, _ := w.robot("robot1")
				assert.Fail(t, fmt.Sprintf("still moving %+v a second after the halt; commands %+v; events %q", tw, r.commandsSince(haltAt), w.eventList()))
			}
			if tc.cancel != "" {
				assert.True(t, w.hasEvent(tc.cancel), "no %q: %q", tc.cancel, w.eventList())
			}
			cmds = r.commandsSince(haltAt)
			assert.Len(t, cmds, sinceHalt, "commands after the halt's zero velocity: %+v", cmds[sinceHalt:])
		})
	}
}

// TestMotionOnSim: the odometry loops against the simulated base.
func TestMotionOnSim(t *testing.T) {
	spawn := sim.Pose{X: -5} // the corridor, facing east
	at := worldSetup{robots: []sim.RobotConf{{Name: "robot1", Spawn: spawn}}}
	runSimCases(t, []simCase{
		{name: "Spin half a turn", xml: `<Spin angle="3.1416" angle_remaining="{left}"/>`, setup: at, want: runtime.Success,
			check: func(t *testing.T, w *world, r *rig) {
				pose, _, _, _ := w.robot("robot1")
				assert.LessOrEqual(t, math.Abs(math.Abs(pose.Yaw)-math.Pi), 0.05, "robot at %v, want (-5, 0, π)", pose)
				assert.True(t, near(pose, Pose{X: -5}, 0.02), "robot at %v, want (-5, 0, π)", pose)
			}},
		{name: "DriveDistance 2 m", xml: `<DriveDistance distance="2" speed="0.4"/>`, setup: at, want: runtime.Success,
			check: func(t *testing.T, w *world, r *rig) {
				pose, _, _, _ := w.robot("robot1")
				assert.True(t, near(pose, Pose{X: -3}, 0.03), "robot at %v, want (-3, 0)", pose)
			}},
		{name: "BackUp 0.5 m", xml: `<BackUp distance="0.5"/>`, setup: at, want: runtime.Success,
			check: func(t *testing.T, w *world, r *rig) {
				pose, _, _, _ := w.robot("robot1")
				assert.True(t, near(pose, Pose{X: -5.5}, 0.03), "robot at %v, want (-5.5, 0)", pose)
			}},
		{name: "DriveDistance into a wall: the bumper fails it", xml: `<DriveDistance distance="3" speed="0.3"/>`,
			setup: worldSetup{robots: []sim.RobotConf{{Name: "robot1", Spawn: sim.Pose{X: -5, Yaw: math.Pi / 2}}}},
			want:  runtime.Failure, max: 20 * time.Second,
			check: func(t *testing.T, w *world, r *rig) {
				v, _ := r.get("bumper_pressed").(bool)
				assert.True(t, v, "failed without the bumper pressed")
			}},
		{name: "Spin with a stalled wheel runs out of time", xml: `<Spin angle="3" time_allowance="5s" elapsed="{t}"/>`,
			setup: worldSetup{robots: at.robots, before: func(w *sim.World) {
				r, _ := w.Robot("robot1")
				r.StallWheel(sim.LeftWheel, true)
				r.StallWheel(sim.RightWheel, true)
			}},
			want: runtime.Failure, max: 10 * time.Second,
			check: func(t *testing.T, w *world, r *rig) {
				el := r.get("t").(float64)
				assert.GreaterOrEqual(t, el, 5.0, "failed after %v s", el)
				assert.LessOrEqual(t, el, 5.2, "failed after %v s", el)
			}},
		{name: "Stop after a drive", xml: `<Sequence><DriveDistance distance="0.3"/><Stop/></Sequence>`, setup: at, want: runtime.Success},
		{name: "DriveDistance with stalled wheels runs out of time", xml: `<DriveDistance distance="1" time_allowance="3s" elapsed="{t}" distance_remaining="{left}"/>`,
			setup: worldSetup{robots: at.robots, before: func(w *sim.World) {
				r, _ := w.Robot("robot1")
				r.StallWheel(sim.LeftWheel, true)
				r.StallWheel(sim.RightWheel, true)
			}},
			want: runtime.Failure, max: 10 * time.Second,
			check: func(t *testing.T, w *world, r *rig) {
				el := r.get("t").(float64)
				assert.GreaterOrEqual(t, el, 3.0, "failed after %v s", el)
				assert.LessOrEqual(t, el, 3.2, "failed after %v s", el)
				l := r.get("left").(float64)
				assert.GreaterOrEqual(t, l, 0.99, "distance_remaining %v: the robot did not move", l)
			}},
		{name: "BackUp into the wall behind runs out of time", xml: `<BackUp distance="2" elapsed="{t}"/>`,
			want: runtime.Failure, max: 40 * time.Second, // robot1's spawn, the west wall 1 m behind
			check: func(t *testing.T, w *world, r *rig) {
				el := r.get("t").(float64)
				assert.GreaterOrEqual(t, el, 31.6, "failed after %v s; the allowance is 2 × (2 m / 0.15 m/s) + 5 s", el)
				assert.LessOrEqual(t, el, 31.9, "failed after %v s; the allowance is 2 × (2 m / 0.15 m/s) + 5 s", el)
			}},
	})
}

// TestDockingOnSim: Dock, Undock, WaitForCharge, IsDocked and BatteryAbove
// against the simulator's docking servers and battery.
func TestDockingOnSim(t *testing.T) {
	low := func(w *sim.World) {
		r, _ := w.Robot("robot1")
		r.SetBatteryLevel(0.5)
	}
	runSimCases(t, []simCase{
		{name: "Dock at the nearest dock, charge, undock", want: runtime.Success,
			setup: worldSetup{before: low},
			xml: `<Sequence>
				<Inverter><IsDocked/></Inverter>
				<Inverter><BatteryAbove percent="60"/></Inverter>
				<Dock elapsed="{dock_t}"/>
				<IsDocked/>
				<WaitForCharge percent="55" battery_percent="{charge}"/>
				<BatteryAbove percent="54"/>
				<Undock/>
				<Inverter><IsDocked/></Inverter>
			</Sequence>`,
			check: func(t *testing.T, w *world, r *rig) {
				pose, _, bat, state := w.robot("robot1")
				assert.Equal(t, sim.Undocked, state, "robot %v at %v after undocking", state, pose)
				assert.True(t, near(pose, Pose{X: -8.6}, 0.1), "robot %v at %v after undocking", state, pose)
				assert.GreaterOrEqual(t, bat.Percentage, 0.54, "battery %v", bat.Percentage)
				assert.True(t, w.hasEvent("robot1: dock goal succeeded"), "events %q", w.eventList())
				assert.True(t, w.hasEvent("robot1: undock goal succeeded"), "events %q", w.eventList())
			}},
		{name: "Dock waits for a docked flag that comes late, so IsDocked after it holds", want: runtime.Success,
			setup: worldSetup{before: func(w *sim.World) {
				r, _ := w.Robot("robot1")
				if err := r.SetTopicFault(sim.TopicDocked, sim.TopicFault{Delay: time.Second}); err != nil {
					panic(err)
				}
			}},
			xml: `<Sequence><Dock elapsed="{dock_t}"/><IsDocked/><Undock/><Inverter><IsDocked/></Inverter></Sequence>`},
		{name: "Dock fails when the docked flag never agrees with the server", want: runtime.Failure, max: 60 * time.Second,
			setup: worldSetup{before: func(w *sim.World) {
				r, _ := w.Robot("robot1")
				if err := r.SetTopicFault(sim.TopicDocked, sim.TopicFault{Delay: time.Minute}); err != nil {
					panic(err)
				}
			}},
			before: func(t *testing.T, w *world, r *rig) { r.tree.SetExplaining(true) },
			xml:    `<Dock error_code="{code}"/>`,
			check: func(t *testing.T, w *world, r *rig) {
				_, _, _, state := w.robot("robot1")
				assert.Equal(t, sim.Docked, state, "the simulator docked the robot")
				wantEntry(t, r, "code", CodeUnconfirmed)
				chain := r.tree.Explain()
				require.NotEmpty(t, chain)
				assert.Equal(t, `/robot1/dock reported the robot docked, but the docked flag ("docked") is stale`, chain[len(chain)-1].Reason)
			}},
		{name: "Dock at a named dock across the building", xml: `<Dock dock="dock_lab" distance_remaining="{left}"/>`, want: runtime.Success,
			check: func(t *testing.T, w *world, r *rig) {
				_, _, _, state := w.robot("robot1")
				assert.Equal(t, sim.Docked, state, "robot %v", state)
				l := r.get("left").(float64)
				assert.LessOrEqual(t, l, 1.5, "distance_remaining %v at the end (feedback stops on the last stretch)", l)
			}},
		{name: "Dock at a dock that does not exist: ABORTED", xml: `<Sequence><Script code="d := 'dock_moon'"/><Dock dock="{d}" error_code="{code}"/></Sequence>`,
			want: runtime.Failure, max: 5 * time.Second,
			check: func(t *testing.T, w *world, r *rig) { wantEntry(t, r, "code", ros.CodeAborted) }},
		{name: "Dock that takes too long: TIMEOUT", xml: `<Dock dock="dock_lab" timeout="5s" error_code="{code}"/>`,
			want: runtime.Failure, max: 10 * time.Second,
			check: func(t *testing.T, w *world, r *rig) { wantEntry(t, r, "code", ros.CodeTimeout) }},
		{name: "Undock when not docked: ABORTED", xml: `<Undock error_code="{code}"/>`,
			want: runtime.Failure, max: 5 * time.Second,
			check: func(t *testing.T, w *world, r *rig) { wantEntry(t, r, "code", ros.CodeAborted) }},
		{name: "WaitForCharge off the dock fails after grace", xml: `<WaitForCharge percent="90" grace="3s" elapsed="{t}"/>`,
			setup: worldSetup{before: low}, want: runtime.Failure, max: 10 * time.Second,
			check: func(t *testing.T, w *world, r *rig) {
				el := r.get("t").(float64)
				assert.GreaterOrEqual(t, el, 3.0, "failed after %v s", el)
				assert.LessOrEqual(t, el, 3.1, "failed after %v s", el)
			}},
	})
}

// TestPerceptionOnSim: ObstacleWithin, AtPose and TopicFresh on the
// simulator's laser, odometry and topic faults.
func TestPerceptionOnSim(t *testing.T) {
	east := worldSetup{robots: []sim.RobotConf{{Name: "robot1", Spawn: sim.Pose{X: -5}}}}
	box := func(w *sim.World) {
		if err := w.PlaceObstacle("box", sim.Rect{MinX: -4.6, MinY: -0.3, MaxX: -4.4, MaxY: 0.3}); err != nil {
			panic(err)
		}
	}
	runSimCases(t, []simCase{
		{name: "a box 0.4 m ahead", xml: `<ObstacleWithin distance="0.5"/>`, want: runtime.Success,
			setup: worldSetup{robots: east.robots, before: box}},
		{name: "the box is not behind", xml: `<ObstacleWithin distance="0.5" direction="3.1416"/>`, want: runtime.Failure,
			setup: worldSetup{robots: east.robots, before: box}},
		{name: "clear corridor ahead", xml: `<ObstacleWithin distance="1.5"/>`, want: runtime.Failure, setup: east},
		{name: "the wall of the corridor to the left", xml: `<ObstacleWithin distance="1.5" direction="1.5708"/>`, want: runtime.Success, setup: east},
		{name: "at the spawn pose", xml: `<AtPose goal="-5;0;0" yaw_tolerance="0.05"/>`, want: runtime.Success, setup: east},
		{name: "not in the kitchen", xml: `<AtPose goal="kitchen"/>`, want: runtime.Failure, setup: east},
		{name: "odometry fresh", xml: `<TopicFresh key="odom" max_age="200ms"/>`, want: runtime.Success, setup: east},
		{name: "frozen odometry goes stale", want: runtime.Success, setup: east,
			xml: `<Sequence>
				<TopicFresh key="odom" max_age="200ms"/>
				<Script code="frozen := true"/>
				<UntilSuccess><Inverter><TopicFresh key="odom" max_age="200ms"/></Inverter></UntilSuccess>
			</Sequence>`,
			before: func(t *testing.T, w *world, r *rig) {
				r.sensorsOff = true
				w.do(func(sw *sim.World) error {
					rb, _ := sw.Robot("robot1")
					return rb.SetTopicFault(sim.TopicOdom, sim.TopicFault{Frozen: true})
				})
			}},
	})
}

// TestFollowWaypointsResumesOnSim: a route halted on its way to the second
// waypoint resumes there, not at the first.
func TestFollowWaypointsResumesOnSim(t *testing.T) {
	w := startWorld(t, worldSetup{})
	r := newRig(t, w, "robot1", `<FollowWaypoints waypoints="-6,0,0;-3,0,0;reception" waypoint_index="{i}" current_waypoint="{at}"/>`, Deps{})
	require.True(t, r.until(60*time.Second, func() bool { return r.get("i") == 1 }), "not on to the second waypoint: %v", r)
	r.until(time.Second, func() bool { return false }) // under way
	r.halt()
	r.idleUntil(2*time.Second, func() bool { return false })
	st := r.tick()
	require.Equal(t, runtime.Running, st, "restarted %v heading for %v (index %v), want the second waypoint", st, r.get("at"), r.get("i"))
	require.Equal(t, 1, r.get("i"), "restarted %v heading for %v (index %v), want the second waypoint", st, r.get("at"), r.get("i"))
	require.Equal(t, "-3,0,0", r.get("at"), "restarted %v heading for %v (index %v), want the second waypoint", st, r.get("at"), r.get("i"))
	st = r.run(2 * time.Minute)
	require.Equal(t, runtime.Success, st, "%v", st)
	pose, _, _, _ := w.robot("robot1")
	assert.True(t, near(pose, Pose{X: -7.5, Y: 3.5}, 0.15), "ended at %v, not at reception", pose)
}

// TestUndockHaltOnSim: halting an undock cancels it on the server.
func TestUndockHaltOnSim(t *testing.T) {
	w := startWorld(t, worldSetup{})
	r := newRig(t, w, "robot1", `<Sequence><Dock/><Undock/></Sequence>`, Deps{})
	undocking := func() bool {
		for _, n := range r.tree.Nodes() {
			if b := runtime.NodeOf(n); b.Type() == "Undock" && b.Status() == runtime.Running {
				return true
			}
		}
		return false
	}
	require.True(t, r.until(time.Minute, undocking), "no undock: %v", r)
	r.idle()
	r.halt()
	assert.True(t, w.hasEvent("robot1: undock goal cancelled"), "the undock was not cancelled: %q", w.eventList())
}
