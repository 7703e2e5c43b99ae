package simnode

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// moveBaseGoal returns a move_base goal at (x, y, yaw) in frame.
func moveBaseGoal(frame string, x, y, yaw float64) *ros.MoveBaseActionGoal {
	g := &ros.MoveBaseActionGoal{}
	g.TargetPose.Header.FrameId = frame
	g.TargetPose.Pose.Position = geometry_msgs.Point{X: x, Y: y}
	g.TargetPose.Pose.Orientation = quaternion(yaw)
	return g
}

// actionClient returns a goroslib action client of server, connected.
func actionClient(t testing.TB, c *ros.Conn, server string) *ros.ActionClient {
	t.Helper()
	ac, err := ros.NewActionClient(ros.ActionClientConf{Conn: c, Name: server, Action: ros.MoveBaseAction{}})
	require.NoError(t, err)
	require.NoError(t, ac.WaitForServer(ctxTimeout(t, 20*time.Second), c.Clock(), 0))
	return ac
}

// moveBaseFeedback is move_base's feedback as it travels on
// move_base/feedback: the envelope with the goal's status.
type moveBaseFeedback struct {
	msg.Package `ros:"move_base_msgs"`
	msg.Name    `ros:"MoveBaseActionFeedback"`
	Header      std_msgs.Header
	Status      actionlib_msgs.GoalStatus
	Feedback    ros.MoveBaseActionFeedback
}

// feedbackLog keeps the frame of every move_base feedback, by goal ID.
type feedbackLog struct {
	mu     sync.Mutex
	frames map[string][]string
}

func (l *feedbackLog) add(m *moveBaseFeedback) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frames[m.Status.GoalId.Id] = append(l.frames[m.Status.GoalId.Id], m.Feedback.BasePosition.Header.FrameId)
}

// goals returns the IDs of the goals that had feedback.
func (l *feedbackLog) goals() map[string]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := map[string]bool{}
	for id := range l.frames {
		ids[id] = true
	}
	return ids
}

// newGoal returns the frames of a goal's feedback that is not one of
// before, if there is exactly one such goal.
func (l *feedbackLog) newGoal(before map[string]bool) (frames []string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for id, f := range l.frames {
		if !before[id] {
			frames, n = slices.Clone(f), n+1
		}
	}
	return frames, n == 1
}

// TestMoveBaseOutcomes: goals that move_base reaches, and goals it aborts
// at once or on the way, driven by goroslib's action client.
func TestMoveBaseOutcomes(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Navigation: sim.NavigatorConf{StallTimeout: 3 * time.Second}}})
	c := connect(t, uri, "client")
	ac := actionClient(t, c, "/robot1/move_base")
	// Feedback is read on its topic by a node of its own, not through the
	// client's OnFeedback:
	// feedback and result travel on connections of their own, so a
	// short goal's feedback may arrive after its result, when the client
	// has let the goal go (seen under load: a goal of 80 ms ended with no
	// feedback delivered).
	fbs := &feedbackLog{frames: map[string][]string{}}
	fbSub, err := ros.Subscribe(connect(t, uri, "feedback_watcher"), "/robot1/move_base/feedback", fbs.add)
	require.NoError(t, err)
	defer fbSub.Close()
	spawn := robotState(n, "robot1", (*sim.Robot).Pose)
	cases := []struct {
		name   string
		goal   *ros.MoveBaseActionGoal
		before func() // a fault set before the goal
		want   ros.GoalState
		event  string // an event the node must announce
		at     *sim.Pose
	}{
		{name: "waypoint in the map frame", goal: moveBaseGoal("map", 2.5, 3.5, 0), want: ros.GoalSucceeded,
			event: "robot1: move_base goal succeeded", at: &sim.Pose{X: 2.5, Y: 3.5}},
		{name: "goal relative to the robot", goal: moveBaseGoal("robot1/base_link", 1, 0, math.Pi), want: ros.GoalSucceeded,
			event: "robot1: move_base goal succeeded"},
		{name: "goal in the odom frame", goal: moveBaseGoal("robot1/odom", 1, 0, 0), want: ros.GoalSucceeded,
			event: "robot1: move_base goal succeeded", at: &sim.Pose{X: spawn.X + 1, Y: spawn.Y}},
		{name: "goal inside a wall", goal: moveBaseGoal("map", 0, 1.2, 0), want: ros.GoalAborted,
			event: "robot1: move_base goal aborted: no path: goal (0.00, 1.20, 0.00) is 0.00 m from an obstacle"},
		{name: "goal off the map", goal: moveBaseGoal("map", 50, 50, 0), want: ros.GoalAborted, event: "off the map"},
		{name: "unknown frame", goal: moveBaseGoal("world", 1, 1, 0), want: ros.GoalAborted,
			event: `goal frame "world": want map, robot1/odom or robot1/base_link`},
		{name: "zero quaternion", goal: &ros.MoveBaseActionGoal{}, want: ros.GoalAborted, event: "not a rotation"},
		{name: "no progress: commands do not reach the base", goal: moveBaseGoal("map", -2, 0, 0),
			before: func() {
				n.Do(func(w *sim.World) error {
					r, _ := w.Robot("robot1")
					return r.SetTopicFault(sim.TopicCmdVel, sim.TopicFault{Frozen: true})
				})
			},
			want: ros.GoalAborted, event: "no progress"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.before != nil {
				tc.before()
				defer n.Do(func(w *sim.World) error {
					r, _ := w.Robot("robot1")
					return r.SetTopicFault(sim.TopicCmdVel, sim.TopicFault{})
				})
			}
			before := fbs.goals()
			out, err := ac.Run(ctxTimeout(t, 60*time.Second), tc.goal, ros.GoalConf{})
			require.NoError(t, err)
			require.Equal(t, tc.want, out.State, "goal ended %v, want %v", out.State, tc.want)
			log.wait(t, tc.event, 5*time.Second)
			log.clear()
			if tc.want == ros.GoalSucceeded {
				var frames []string
				assert.Eventually(t, func() bool {
					var ok bool
					frames, ok = fbs.newGoal(before)
					return ok
				}, 10*time.Second, 5*time.Millisecond, "no feedback of the goal on move_base/feedback")
				for _, f := range frames {
					assert.Equal(t, "map", f, "feedback frames %q; want the robot's pose in map", frames)
				}
			}
			if tc.at != nil {
				p := robotState(n, "robot1", (*sim.Robot).Pose)
				assert.LessOrEqual(t, p.DistanceTo(*tc.at), 0.1, "robot at %v, want within 0.1 m (the goal tolerance) of %v", p, *tc.at)
			}
		})
	}
}

// TestMoveBasePreemption: cancelling a goal stops the robot at once; a new
// goal preempts the running one.
func TestMoveBasePreemption(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, log := startSim(t, uri, simSetup{conf: Conf{Speed: 4}})
	c := connect(t, uri, "client")
	ac := actionClient(t, c, "/robot1/move_base")

	t.Run("cancel stops the robot", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		moving := make(chan struct{})
		var once atomic.Bool
		go func() {
			require.Eventually(t, func() bool {
				return robotState(n, "robot1", (*sim.Robot).Twist).Linear > 0.3
			}, 20*time.Second, 5*time.Millisecond, "robot moving")
			if once.CompareAndSwap(false, true) {
				close(moving)
			}
		}()
		done := make(chan error, 1)
		go func() {
			_, err := ac.Run(ctx, moveBaseGoal("map", 6.5, -3.5, 0), ros.GoalConf{})
			done <- err
		}()
		select {
		case <-moving:
		case err := <-done:
			require.Fail(t, fmt.Sprintf("goal ended before the robot got going: %v", err))
		}
		// The robot's speed, sampled by the simulator itself every step
		// of simulated time from now on: how long it takes to stop is
		// read on the simulated clock, whenever this test gets to look.
		var mu sync.Mutex
		stopped := map[time.Duration]bool{}
		from := n.Now()
		for at := from; at < from+30*time.Second; at += 20 * time.Millisecond {
			n.At(at, func(w *sim.World) {
				r, _ := w.Robot("robot1")
				mu.Lock()
				stopped[at] = r.Twist() == sim.Twist{}
				mu.Unlock()
			})
		}
		cancel()
		err := <-done
		require.ErrorIs(t, err, context.Canceled, "Run: %v", err)
		log.wait(t, "robot1: move_base goal cancelled; stopping", 5*time.Second)
		cancelledAt, ok := log.timeOf("robot1: move_base goal cancelled; stopping")
		require.True(t, ok)
		// 0.4 m/s braked at 1 m/s² stops in 0.4 s; allow for a step or two.
		var stopAt time.Duration
		require.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			for at := from; at < from+30*time.Second; at += 20 * time.Millisecond {
				if at < cancelledAt {
					continue
				}
				if s, sampled := stopped[at]; s {
					stopAt = at
					return true
				} else if !sampled {
					return false
				}
			}
			return false
		}, 5*time.Second, 5*time.Millisecond, "a sample after the cancel finds the robot still")
		d := stopAt - cancelledAt
		assert.LessOrEqual(t, d, 700*time.Millisecond, "the robot took %v of simulated time to stop after the cancel", d)
		log.clear()
	})

	t.Run("a newer goal preempts", func(t *testing.T) {
		first := make(chan ros.GoalOutcome, 1)
		accepted := make(chan struct{})
		go func() {
			out, err := ac.Run(ctxTimeout(t, 60*time.Second), moveBaseGoal("map", 6.5, -3.5, 0), ros.GoalConf{AckTimeout: 10 * time.Second, OnAccepted: func() { close(accepted) }})
			assert.NoError(t, err)
			first <- out
		}()
		<-accepted
		out, err := ac.Run(ctxTimeout(t, 60*time.Second), moveBaseGoal("map", -7.5, 3.5, math.Pi/2), ros.GoalConf{})
		require.NoError(t, err)
		f := <-first
		assert.Equal(t, ros.GoalPreempted, f.State, "first goal ended %v, want PREEMPTED", f.State)
		assert.Equal(t, ros.GoalSucceeded, out.State, "second goal ended %v, want SUCCEEDED", out.State)
	})
}
