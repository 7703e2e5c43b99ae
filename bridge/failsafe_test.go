package bridge

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apislave"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
)

func TestStopReportString(t *testing.T) {
	cases := []struct {
		name string
		rep  StopReport
		want string
	}{
		{"no safety section", StopReport{}, "no velocity topic to zero (the profile has no safety section)"},
		{"one subscriber", StopReport{Topic: "/robot1/cmd_vel", Delivered: true, Subscribers: 1},
			"zero velocity sent on /robot1/cmd_vel and delivered to 1 subscriber"},
		{"two subscribers", StopReport{Topic: "/cmd_vel", Delivered: true, Subscribers: 2},
			"zero velocity sent on /cmd_vel and delivered to 2 subscribers"},
		{"nobody listening", StopReport{Topic: "/cmd_vel", Problem: "no subscriber connected"},
			"zero velocity NOT delivered on /cmd_vel: no subscriber connected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.rep.String()) })
	}
}

// shutdownNode calls shutdown on the node's slave API, as rosnode kill
// and a master replacing a node of the same name do.
func shutdownNode(t *testing.T, c *ros.Conn, caller, reason string) {
	t.Helper()
	u, err := url.Parse(c.SlaveURI())
	require.NoError(t, err)
	require.NoError(t, apislave.NewClient(u.Host, caller, &http.Client{Timeout: 5 * time.Second}).Shutdown(reason))
}

const velocityProfile = `
rate: 20
outputs:
  - {topic: cmd_vel, type: geometry_msgs/Twist, key: cmd_vel}
safety:
  velocity_topic: cmd_vel
  watchdog: 3
`

// TestRunStopsTheRobotWhenTheMasterShutsTheNodeDown: the master's shutdown
// call waits while Run stops the robot over the live connections, and Run
// ends with the caller and the reason, and the truth about the stop.
func TestRunStopsTheRobotWhenTheMasterShutsTheNodeDown(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	cases := []struct {
		name      string
		watch     bool
		delivered string
	}{
		{"a subscriber listens", true, "zero velocity sent on /cmd_vel and delivered to 1 subscriber"},
		{"nobody listens", false, "zero velocity NOT delivered on /cmd_vel: no subscriber connected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			c := connect(t, uri, "btrobot")
			var log *twistLog
			if tc.watch {
				log = watchTwists(t, uri, "/cmd_vel")
			}
			p := profile(t, velocityProfile)
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="M"><KeepRunningUntilFailure><AlwaysSuccess/></KeepRunningUntilFailure></BehaviorTree></root>`)
			stop, done := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p})
			if tc.watch {
				waitSubscribers(t, c, "/cmd_vel", 1)
			}
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			shutdownNode(t, c, "/rosnode", "user request")
			answered := time.Since(start)
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				require.FailNow(t, "Run did not end after the shutdown call")
			}
			rep, err := stop()
			var se *ros.ShutdownError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, "/rosnode", se.Caller)
			assert.Equal(t, "user request", se.Reason)
			assert.Equal(t, tc.delivered, rep.Stop.String())
			assert.Less(t, answered, ros.ShutdownHoldMax, "the shutdown call waits for the stop, not for its bound")
			if tc.watch {
				last, ok := log.last()
				require.True(t, ok, "the watcher received nothing")
				assert.Zero(t, last.x)
				assert.True(t, last.at.Before(start.Add(answered)), "the zero velocity left before the call was answered")
			}
		})
	}
}

// TestRunStopsTheRobotWhenTheMasterGoes: the master dies, or restarts and
// forgets the node; Run stops the robot over the connections that remain
// and says so.
func TestRunStopsTheRobotWhenTheMasterGoes(t *testing.T) {
	cases := []struct {
		name    string
		restart bool
		want    string
	}{
		{"the master dies", false, "it does not answer"},
		{"the master restarts", true, "it no longer knows /btrobot (did it restart?); not running unregistered"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := master.New(master.Conf{Host: "127.0.0.1", Port: rostest.FreePort(t)})
			require.NoError(t, err)
			require.NoError(t, m.Start())
			uri := m.URI()
			c := connect(t, uri, "btrobot")
			log := watchTwists(t, uri, "/cmd_vel")
			p := profile(t, velocityProfile)
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="M"><KeepRunningUntilFailure><AlwaysSuccess/></KeepRunningUntilFailure></BehaviorTree></root>`)
			stop, done := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p})
			waitSubscribers(t, c, "/cmd_vel", 1)
			fault := time.Now()
			require.NoError(t, m.Close())
			if tc.restart {
				u, _ := url.Parse(uri)
				port, err := strconv.Atoi(u.Port())
				require.NoError(t, err)
				m2, err := master.New(master.Conf{Host: "127.0.0.1", Port: port})
				require.NoError(t, err)
				require.NoError(t, m2.Start())
				t.Cleanup(func() { m2.Close() })
			}
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				require.FailNow(t, "Run did not end after the master went")
			}
			rep, err := stop()
			var ml *ros.MasterLostError
			require.ErrorAs(t, err, &ml)
			assert.Contains(t, ml.Error(), tc.want)
			assert.True(t, rep.Stop.Delivered, rep.Stop.String())
			last, ok := log.last()
			require.True(t, ok)
			assert.Zero(t, last.x)
			assert.Less(t, last.at.Sub(fault), time.Second, "zero velocity within a second of the fault")
		})
	}
}

// TestRunStopsTheRobotWhenClockGoesSilent: under /use_sim_time, /clock
// stops while its publisher stays: past the clock timeout of wall time (the
// run's, else the profile's safety.clock_timeout) the robot is stopped and
// Run names the silence.
func TestRunStopsTheRobotWhenClockGoesSilent(t *testing.T) {
	const timeout = 400 * time.Millisecond
	cases := []struct {
		name    string
		profile string
		conf    time.Duration // RunConf.ClockTimeout
	}{
		{name: "the run's timeout", profile: velocityProfile, conf: timeout},
		{name: "the profile's timeout", profile: velocityProfile + "  clock_timeout: 400ms\n"},
		{name: "the run's timeout over the profile's", profile: velocityProfile + "  clock_timeout: 1m\n", conf: timeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			// 30 ms steps: a 50 ms tick comes up to 20 ms after its due
			// time by the simulated clock.
			_, stopClock := runClock(t, uri, 30*time.Millisecond)
			defer stopClock()
			c := connect(t, uri, "btrobot")
			require.NotNil(t, c.SimClock())
			log := watchTwists(t, uri, "/cmd_vel")
			p := profile(t, tc.profile)
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="M"><KeepRunningUntilFailure><AlwaysSuccess/></KeepRunningUntilFailure></BehaviorTree></root>`)
			stop, done := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p, ClockTimeout: tc.conf})
			waitSubscribers(t, c, "/cmd_vel", 1)
			time.Sleep(time.Second)
			stopClock()
			silent := time.Now()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				require.FailNow(t, "Run waits on a silent /clock")
			}
			rep, err := stop()
			var cs *ros.ClockStoppedError
			require.ErrorAs(t, err, &cs)
			assert.False(t, cs.Closed)
			assert.GreaterOrEqual(t, cs.Since, timeout)
			assert.Less(t, cs.Since, DefaultClockTimeout, "the timeout asked for, not the default")
			assert.True(t, rep.Stop.Delivered, rep.Stop.String())
			last, ok := log.last()
			require.True(t, ok)
			assert.Zero(t, last.x)
			// The stop follows the timeout (a bound generous for a loaded
			// machine: the property is that it comes, soon after).
			assert.Less(t, last.at.Sub(silent), timeout+time.Second)
			assert.Greater(t, rep.Stats.Ticks, uint64(0))
			// Measured against the step, the lateness would spread evenly
			// over the 30 ms between /clock messages (a median near 15 ms).
			assert.Less(t, rep.Stats.Lateness.Quantile(0.5), 10*time.Millisecond,
				"lateness on a 30 ms /clock step is the controller's, not the step's")
		})
	}
}

// TestRunTellsAClockThatLeftFromAToolThatLeft: under /use_sim_time,
// another publisher of /clock closing its connection (a tool that
// advertised /clock and left) does not end the run while the clock goes
// on; the publisher that keeps time leaving does. (Whether that is seen
// as a closed connection or as silence depends on whether the master's
// publisherUpdate or the closed connection comes first; a process that is
// killed sends no update: TestFailsafeStopsTheRobotWhenROSFails.)
func TestRunTellsAClockThatLeftFromAToolThatLeft(t *testing.T) {
	cases := []struct {
		name string
		// leave closes a node that publishes /clock: the one that keeps
		// time, or a tool.
		clockLeaves bool
	}{
		{"another publisher of /clock leaves", false},
		{"the publisher of /clock leaves", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			clockSrc, stopClock := runClock(t, uri, 20*time.Millisecond)
			defer stopClock()
			tool := connect(t, uri, "clock_tool")
			_, err := ros.NewPublisher(ros.PublisherConf{Conn: tool, Topic: "/clock", Msg: &rosgraph_msgs.Clock{}})
			require.NoError(t, err)

			c := connect(t, uri, "btrobot")
			require.NotNil(t, c.SimClock())
			p := profile(t, velocityProfile)
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="M"><KeepRunningUntilFailure><AlwaysSuccess/></KeepRunningUntilFailure></BehaviorTree></root>`)
			timeout := 10 * time.Second // longer than the test waits
			if tc.clockLeaves {
				timeout = time.Second
			}
			stop, done := runInBackground(t, RunConf{Conn: c, Tree: tree, Profile: p, ClockTimeout: timeout})
			// Both publishers of /clock are connected to the controller.
			require.Eventually(t, func() bool {
				return inboundConns(t, c, "/clock") == 2
			}, 10*time.Second, 5*time.Millisecond, "two /clock connections")
			require.Eventually(t, func() bool { return !c.SimClock().LastSet().IsZero() }, 10*time.Second, 5*time.Millisecond, "the controller on /clock")
			if tc.clockLeaves {
				stopClock()
				clockSrc.Close()
			} else {
				tool.Close()
			}
			select {
			case <-done:
				require.True(t, tc.clockLeaves, "the run ended when a tool that advertised /clock left")
			case <-time.After(3 * time.Second):
				require.False(t, tc.clockLeaves, "the run goes on without its clock (ClockTimeout is 1 s)")
			}
			_, err = stop()
			if tc.clockLeaves {
				var cs *ros.ClockStoppedError
				require.ErrorAs(t, err, &cs)
				return
			}
			assert.NotErrorIs(t, err, ros.ErrLost)
		})
	}
}

// inboundConns counts the connections of the node's subscriber of topic,
// from its own slave API.
func inboundConns(t *testing.T, c *ros.Conn, topic string) int {
	u, err := url.Parse(c.SlaveURI())
	require.NoError(t, err)
	info, err := apislave.NewClient(u.Host, "/test", &http.Client{Timeout: time.Second}).GetBusInfo()
	require.NoError(t, err)
	n := 0
	for _, e := range info {
		if len(e) >= 6 && e[2] == "i" && e[4] == topic && e[5] == true {
			n++
		}
	}
	return n
}

// runClock sets /use_sim_time and publishes /clock from a node of its
// own (returned) from 1000 s, a step of simulated time every step of wall
// time, until the returned stop (safe to call more than once) is called.
func runClock(t *testing.T, uri string, step time.Duration) (src *ros.Conn, stop func()) {
	t.Helper()
	src = connect(t, uri, "clock_source")
	require.NoError(t, src.SetParam("/use_sim_time", true))
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: src, Topic: "/clock", Msg: &rosgraph_msgs.Clock{}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ticking := make(chan struct{})
	go func() {
		defer close(ticking)
		simNow := time.Unix(1000, 0)
		for ctx.Err() == nil {
			simNow = simNow.Add(step)
			pub.Publish(&rosgraph_msgs.Clock{Clock: simNow})
			time.Sleep(step)
		}
	}()
	var once sync.Once
	return src, func() { once.Do(func() { cancel(); <-ticking }) }
}
