package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
)

// clientEvent is a line serve_client.py printed.
type clientEvent struct {
	Event       string   `json:"event"`
	At          float64  `json:"at"`
	Goal        string   `json:"goal"`
	Status      int      `json:"status"`
	Text        string   `json:"text"`
	Outcome     string   `json:"outcome"`
	Explanation []string `json:"explanation"`
	Missions    []string `json:"missions"`
	Success     bool     `json:"success"`
	Message     string   `json:"message"`
	LastA       uint64   `json:"last_a"`
	FirstB      uint64   `json:"first_b"`
	Tick        uint64   `json:"tick"`
}

func (e clientEvent) time() time.Time {
	return time.Unix(0, int64(e.At*float64(time.Second)))
}

// odomSample is where the robot was, and when.
type odomSample struct {
	at   time.Time
	x, y float64
}

// TestServeDrivenByRospy: Debian's catkin builds btrobot_msgs in a
// temporary workspace; a rospy ActionClient using the generated classes
// drives `btrobot serve` (with the robot in the simulator, btrobot sim):
// bad goals are rejected saying why, a goal runs with feedback, a
// same-mission goal with preempt update carries the run on without a halt,
// another mission replaces it, a pause holds the navigating robot still and
// resume lets it drive on, a cancel stops the robot (a zero Twist seen by a
// separate subscriber within 1 s) and ends PREEMPTED; rosservice lists and
// reloads.
func TestServeDrivenByRospy(t *testing.T) {
	rostest.Require(t, "rosmaster", "rospy", "actionlib", "rosservice")
	py := rostest.BtrobotMsgs(t)
	t.Setenv("PYTHONPATH", py)
	bin := buildBinary(t)
	port := rostest.FreePort(t)
	uri := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	rostest.Start(t, uri, "rosmaster", "--core", "-p", strconv.Itoa(port))
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return master.Probe(ctx, uri) == nil
	}, 20*time.Second, 100*time.Millisecond, "rosmaster answers")
	simp := rostest.Start(t, uri, bin, "sim", "--world", repoOfficeWorld)
	simp.WaitLine(t, "robot(s) in", 30*time.Second)

	var mu sync.Mutex
	var zeros []time.Time
	var odom []odomSample
	watch, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "serve_watch", MasterCheck: -1})
	require.NoError(t, err)
	t.Cleanup(func() { watch.Close() })
	_, err = ros.Subscribe(watch, "/robot1/cmd_vel", func(m *geometry_msgs.Twist) {
		if *m == (geometry_msgs.Twist{}) {
			mu.Lock()
			zeros = append(zeros, time.Now())
			mu.Unlock()
		}
	})
	require.NoError(t, err)
	_, err = ros.Subscribe(watch, "/robot1/odom", func(m *nav_msgs.Odometry) {
		mu.Lock()
		odom = append(odom, odomSample{time.Now(), m.Pose.Pose.Position.X, m.Pose.Pose.Position.Y})
		mu.Unlock()
	})
	require.NoError(t, err)

	srv := rostest.Start(t, uri, bin, "serve", "--missions", repoMissions, "--robot", repoSimProfile,
		"--places", repoOfficeWorld, "__ns:=/robot1")
	srv.WaitLine(t, "missions of", 30*time.Second)

	client := rostest.Python(t, uri, "testdata/serve_client.py", "/robot1/btrobot")
	client.WaitLine(t, `"event": "done"`, 240*time.Second)
	var events []clientEvent
	for _, l := range strings.Split(client.Stdout(), "\n") {
		var e clientEvent
		if json.Unmarshal([]byte(l), &e) == nil && e.Event != "" {
			events = append(events, e)
		}
	}
	find := func(event, goal string) clientEvent {
		t.Helper()
		for _, e := range events {
			if e.Event == event && e.Goal == goal {
				return e
			}
		}
		require.FailNow(t, fmt.Sprintf("no %s of %q among %+v", event, goal, events))
		return clientEvent{}
	}
	const rejected, preempted, succeeded = 5, 2, 3 // actionlib's GoalStatus
	for _, tc := range []struct {
		name        string
		goal        string
		status      int
		outcome     string
		explanation string // one line contains it
	}{
		{"an unknown mission is rejected with a did-you-mean", "unknown", rejected, "REJECTED", `unknown mission "Patrl" (did you mean Patrol`},
		{"a payload of the wrong type is rejected naming key and type", "bad_payload", rejected, "REJECTED", `key "left" wants int`},
		{"a payload that is no map is rejected", "not_a_map", rejected, "REJECTED", "want a YAML map"},
		{"a same-mission goal with preempt update takes the run over", "a", preempted, "PREEMPTED", "updated by goal"},
		{"another mission replaces the running one", "b", preempted, "PREEMPTED", "preempted by WaitForRobot"},
		{"the replacing mission runs to its end", "c", succeeded, "SUCCESS", ""},
		{"a cancel ends the goal PREEMPTED", "d", preempted, "PREEMPTED", "cancelled by its client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := find("result", tc.goal)
			assert.Equal(t, tc.status, r.Status, "actionlib status; text %q", r.Text)
			assert.Equal(t, tc.outcome, r.Outcome)
			if tc.explanation != "" {
				assert.Contains(t, strings.Join(r.Explanation, "\n"), tc.explanation)
			}
		})
	}
	t.Run("the list names the shipped missions", func(t *testing.T) {
		l := find("list", "")
		assert.Contains(t, l.Missions, "Patrol")
		assert.Contains(t, l.Missions, "WaitForRobot")
	})
	t.Run("the update did not restart the run", func(t *testing.T) {
		u := find("update", "")
		assert.Greater(t, u.FirstB, u.LastA, "the run's ticks go on under the new goal")
	})
	t.Run("a pause holds the navigating robot still", func(t *testing.T) {
		p, r := find("paused", ""), find("resumed", "")
		require.True(t, p.Success, p.Message)
		require.True(t, r.Success, r.Message)
		mu.Lock()
		defer mu.Unlock()
		// From a second into the pause (the robot brakes) to its end.
		from, to := p.time().Add(time.Second), r.time()
		var first, last *odomSample
		for i := range odom {
			if o := &odom[i]; o.at.After(from) && o.at.Before(to) {
				if first == nil {
					first = o
				}
				last = o
			}
		}
		require.NotNil(t, first, "odometry during the pause")
		moved := math.Hypot(last.x-first.x, last.y-first.y)
		assert.Less(t, moved, 0.05, "metres moved while paused")
		var after []odomSample
		for _, o := range odom {
			if o.at.After(to) {
				after = append(after, o)
			}
		}
		require.NotEmpty(t, after)
		drove := math.Hypot(after[len(after)-1].x-last.x, after[len(after)-1].y-last.y)
		assert.Greater(t, drove, 0.1, "metres driven after resume")
	})
	t.Run("a cancel stops the robot within a second", func(t *testing.T) {
		c := find("cancel", "")
		mu.Lock()
		defer mu.Unlock()
		ok := false
		for _, z := range zeros {
			if z.After(c.time()) && z.Sub(c.time()) <= time.Second {
				ok = true
			}
		}
		assert.True(t, ok, "a zero Twist on /robot1/cmd_vel within 1 s of the cancel")
	})
	t.Run("rosservice lists and reloads", func(t *testing.T) {
		// rosservice's own main (what /usr/bin/rosservice runs), called
		// twice in one Python process rather than one process per call;
		// an error exits non-zero, which fails the run.
		out := rostest.Run(t, uri, 30*time.Second, rostest.PythonPath, "-c",
			"import sys, rosservice\nfor s in sys.argv[1:]: rosservice.rosservicemain(['rosservice', 'call', s]); print('--- end of call', flush=True)",
			"/robot1/btrobot/list", "/robot1/btrobot/reload")
		list, reload, ok := strings.Cut(out, "--- end of call")
		require.True(t, ok, "no call ended:\n%s", out)
		assert.Contains(t, list, "id: \"Patrol\"")
		assert.Contains(t, reload, "success: True")
	})
}

// TestServeRefusesBadWatchFlags: --groot and --ui mistakes are usage
// errors (exit 2) naming what is wrong, before anything starts.
func TestServeRefusesBadWatchFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"groot not a port", []string{"--groot", "abc"}, `"abc": want PORT or HOST:PORT`},
		{"groot port out of range", []string{"--groot", "70000"}, "groot port 70000: want 1 to 65534"},
		{"control without the studio", []string{"--allow-control"}, "--allow-control needs --ui"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"serve", "--missions", "../../trees/missions"}, tc.args...)...)
			assert.Equal(t, exitUsage, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}
