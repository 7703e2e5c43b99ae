package master_test

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/btrobot/btrobot/ros/rostest"
)

// toolTimeout bounds one run of a ros* command-line tool; they take about
// a second to start on this hardware.
const toolTimeout = 30 * time.Second

// nodeTimeout bounds how long a rospy node takes to come up or to deliver.
const nodeTimeout = 30 * time.Second

// interopCase is a scenario run with Debian's unchanged ROS tools and rospy
// against a master whose URI it is given.
type interopCase struct {
	name  string
	tools []string
	// rosmaster: the case states how a master behaves where it has a
	// choice (a dictionary merged key by key, a paramUpdate pushed, a node
	// gone or killed), so it runs against Debian's rosmaster too, which
	// shows the statement is rosmaster's behaviour and not only ours. The
	// other cases show Debian's tools and peers working through the
	// embedded master; through rosmaster they are Debian's own business.
	rosmaster bool
	run       func(t *testing.T, uri string)
}

// interopCases run against the embedded master, and those marked rosmaster
// against Debian's rosmaster too, so that each of those shows both masters
// behave the same.
var interopCases = []interopCase{
	{
		name:  "rostopic pub reaches rostopic echo",
		tools: []string{"rostopic", "std_msgs"},
		run: func(t *testing.T, uri string) {
			echo := rostest.Start(t, uri, "rostopic", "echo", "-n", "1", "/cmd_status")
			rostest.Start(t, uri, "rostopic", "pub", "-r", "5", "/cmd_status", "std_msgs/String", "data: docking")
			echo.WaitLine(t, `data: "docking"`, nodeTimeout)
			require.NoError(t, echo.WaitExit(t, toolTimeout), "rostopic echo -n 1 exited with")
		},
	},
	{
		name:      "rostopic and rosnode list and info show a rospy publisher and subscriber",
		rosmaster: true,
		tools:     []string{"rostopic", "rosnode", "rospy", "std_msgs"},
		run: func(t *testing.T, uri string) {
			rostest.Python(t, uri, "testdata/talker.py", "/chatter").WaitLine(t, "ready", nodeTimeout)
			rostest.Python(t, uri, "testdata/listener.py", "/chatter").WaitLine(t, "heard hello", nodeTimeout)

			runs := runTools(t, uri, []string{"rostopic", "list"}, []string{"rostopic", "info", "/chatter"},
				[]string{"rosnode", "list"}, []string{"rosnode", "info", "/talker"})
			requireLines(t, runs[0].ok(t), "/chatter", "/rosout")
			requireContains(t, runs[1].ok(t), "Type: std_msgs/String", "Publishers:", " * /talker (http://127.0.0.1:",
				"Subscribers:", " * /listener (http://127.0.0.1:")
			requireLines(t, runs[2].ok(t), "/talker", "/listener")
			requireContains(t, runs[3].ok(t), "Node [/talker]", "Publications:", " * /chatter [std_msgs/String]", "Pid:")
		},
	},
	{
		name:  "rostopic hz measures a rospy publisher",
		tools: []string{"rostopic", "rospy", "std_msgs"},
		run: func(t *testing.T, uri string) {
			rostest.Python(t, uri, "testdata/talker.py", "/chatter").WaitLine(t, "ready", nodeTimeout)
			hz := rostest.Start(t, uri, "rostopic", "hz", "/chatter")
			line := hz.WaitLine(t, "average rate:", nodeTimeout)
			text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "average rate:"))
			rate, err := strconv.ParseFloat(text, 64)
			require.NoError(t, err, "rostopic hz printed %q, not a rate", line)
			// The talker publishes at 10 Hz; the first window is short.
			assert.GreaterOrEqual(t, rate, 5.0, "rostopic hz measured %v Hz, want about 10", rate)
			assert.LessOrEqual(t, rate, 20.0, "rostopic hz measured %v Hz, want about 10", rate)
		},
	},
	{
		name:      "rosparam set, get, list and dump with namespaces",
		rosmaster: true,
		tools:     []string{"rosparam"},
		run: func(t *testing.T, uri string) {
			// One process runs the eleven command lines (see runTools);
			// rosparam's own process sets parameters in the next case.
			steps := []struct {
				argv     []string
				equal    string   // the whole output, trimmed, if not ""
				contains []string // in the output
				lines    []string // lines of the output
				fails    bool
			}{
				{argv: []string{"rosparam", "set", "/robot/max_speed", "0.5"}},
				{argv: []string{"rosparam", "set", "/robot/name", "turtle & co <1>"}},
				{argv: []string{"rosparam", "set", "/robot/base", "{radius: 0.2, wheels: [left, right], lidar: {hz: 10}}"}},
				{argv: []string{"rosparam", "get", "/robot/max_speed"}, equal: "0.5"},
				{argv: []string{"rosparam", "get", "/robot/name"}, equal: "turtle & co <1>"},
				{argv: []string{"rosparam", "get", "/robot/base"}, contains: []string{"radius: 0.2", "hz: 10", "- left", "- right"}},
				{argv: []string{"rosparam", "list"}, lines: []string{"/robot/max_speed", "/robot/name",
					"/robot/base/radius", "/robot/base/wheels", "/robot/base/lidar/hz"}},
				// rosparam merges a dictionary into the namespace key by
				// key (the Master API's setParam replaces it: see the API
				// tests).
				{argv: []string{"rosparam", "set", "/robot/base", "{radius: 0.3}"}},
				{argv: []string{"rosparam", "dump"}, contains: []string{"radius: 0.3", "max_speed: 0.5", "hz: 10"}},
				{argv: []string{"rosparam", "delete", "/robot/name"}},
				{argv: []string{"rosparam", "get", "/robot/name"}, fails: true},
			}
			argvs := make([][]string, len(steps))
			for i, step := range steps {
				argvs[i] = step.argv
			}
			for i, run := range runTools(t, uri, argvs...) {
				step := steps[i]
				if step.fails {
					assert.NotEqual(t, 0, run.Code, "%q succeeded:\n%s", step.argv, run.Out)
					continue
				}
				out := run.ok(t)
				if step.equal != "" {
					assert.Equal(t, step.equal, strings.TrimSpace(out), "%q", step.argv)
				}
				requireContains(t, out, step.contains...)
				requireLines(t, out, step.lines...)
			}
		},
	},
	{
		name:      "rosparam set reaches a rospy parameter cache through paramUpdate",
		rosmaster: true,
		tools:     []string{"rosparam", "rospy"},
		run: func(t *testing.T, uri string) {
			rostest.Run(t, uri, toolTimeout, "rosparam", "set", "/robot/max_speed", "1.0")
			watcher := rostest.Python(t, uri, "testdata/param_watcher.py")
			watcher.WaitLine(t, "max_speed 1.0", nodeTimeout)
			// The watcher reads only its cache now: the new value can only
			// arrive as a paramUpdate from the master.
			rostest.Run(t, uri, toolTimeout, "rosparam", "set", "/robot/max_speed", "0.7")
			watcher.WaitLine(t, "max_speed 0.7", nodeTimeout)
			rostest.Run(t, uri, toolTimeout, "rosparam", "set", "/robot", "{max_speed: 0.4, name: turtle}")
			watcher.WaitLine(t, "max_speed 0.4", nodeTimeout)
		},
	},
	{
		name:  "rosservice list and call reach a rospy service",
		tools: []string{"rosservice", "rospy"},
		run: func(t *testing.T, uri string) {
			server := rostest.Python(t, uri, "testdata/service_server.py")
			server.WaitLine(t, "ready", nodeTimeout)
			runs := runTools(t, uri, []string{"rosservice", "list"}, []string{"rosservice", "info", "/reset_odometry"})
			requireLines(t, runs[0].ok(t), "/reset_odometry", "/odometry/get_loggers")
			requireContains(t, runs[1].ok(t), "Node: /odometry", "Type: roscpp/Empty")
			rostest.Run(t, uri, toolTimeout, "rosservice", "call", "/reset_odometry")
			server.WaitLine(t, "called", nodeTimeout)
		},
	},
	{
		name:  "rospy publisher reaches goroslib subscriber",
		tools: []string{"rospy", "std_msgs"},
		run: func(t *testing.T, uri string) {
			node := newGoroslibNode(t, uri, "base_controller")
			heard := make(chan string, 100)
			sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{
				Node:  node,
				Topic: "/chatter",
				Callback: func(msg *std_msgs.String) {
					select {
					case heard <- msg.Data:
					default:
					}
				},
			})
			require.NoError(t, err)
			defer sub.Close()
			rostest.Python(t, uri, "testdata/talker.py", "/chatter").WaitLine(t, "ready", nodeTimeout)
			select {
			case msg := <-heard:
				assert.True(t, strings.HasPrefix(msg, "hello "), "goroslib heard %q, want hello N", msg)
			case <-time.After(nodeTimeout):
				require.Fail(t, "goroslib subscriber heard nothing from the rospy publisher")
			}
		},
	},
	{
		name:  "goroslib publisher reaches rospy subscriber",
		tools: []string{"rospy", "std_msgs"},
		run: func(t *testing.T, uri string) {
			node := newGoroslibNode(t, uri, "mission_control")
			pub, err := goroslib.NewPublisher(goroslib.PublisherConf{
				Node:  node,
				Topic: "/chatter",
				Msg:   &std_msgs.String{},
			})
			require.NoError(t, err)
			defer pub.Close()
			listener := rostest.Python(t, uri, "testdata/listener.py", "/chatter")
			listener.WaitLine(t, "ready", nodeTimeout)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						pub.Write(&std_msgs.String{Data: "patrol started"})
					}
				}
			}()
			defer wg.Wait()
			defer close(stop)
			listener.WaitLine(t, "heard patrol started", nodeTimeout)
		},
	},
	{
		name:  "rospy actionlib client drives a rospy actionlib server",
		tools: []string{"rospy", "actionlib", "move_base_msgs"},
		run: func(t *testing.T, uri string) {
			server := rostest.Python(t, uri, "testdata/action_server.py")
			server.WaitLine(t, "ready", nodeTimeout)
			client := rostest.Python(t, uri, "testdata/action_client.py", "1.5", "-2.0")
			server.WaitLine(t, "goal 1.50 -2.00", nodeTimeout)
			client.WaitLine(t, "feedback", nodeTimeout)
			client.WaitLine(t, "result 3", nodeTimeout)
			require.NoError(t, client.WaitExit(t, nodeTimeout), "action client exited with")
		},
	},
	{
		name:      "a rospy node that shuts down leaves the graph",
		rosmaster: true,
		tools:     []string{"rosnode", "rostopic", "rospy", "std_msgs"},
		run: func(t *testing.T, uri string) {
			talker := rostest.Python(t, uri, "testdata/talker.py", "/chatter")
			talker.WaitLine(t, "ready", nodeTimeout)
			requireLines(t, rostest.Run(t, uri, toolTimeout, "rosnode", "list"), "/talker")
			// rospy unregisters in one system.multicall on SIGINT.
			talker.Interrupt()
			talker.WaitExit(t, nodeTimeout)
			runs := runTools(t, uri, []string{"rosnode", "list"}, []string{"rostopic", "list"})
			list, topics := runs[0].ok(t), runs[1].ok(t)
			assert.False(t, hasLine(list, "/talker"), "rosnode list still shows /talker after it shut down:\n%s", list)
			assert.False(t, hasLine(topics, "/chatter"), "rostopic list still shows /chatter after its publisher shut down:\n%s", topics)
		},
	},
	{
		name:      "a killed node stays listed and the master keeps serving",
		rosmaster: true,
		tools:     []string{"rosnode", "rostopic", "rospy", "std_msgs"},
		run: func(t *testing.T, uri string) {
			talker := rostest.Python(t, uri, "testdata/talker.py", "/chatter")
			talker.WaitLine(t, "ready", nodeTimeout)
			talker.Kill()
			talker.WaitExit(t, nodeTimeout)
			// Like rosmaster, the master cannot know the node is gone.
			requireLines(t, rostest.Run(t, uri, toolTimeout, "rosnode", "list"), "/talker")
			// A new subscriber gets the dead publisher, fails to reach it,
			// and everything else keeps working.
			listener := rostest.Python(t, uri, "testdata/listener.py", "/chatter")
			listener.WaitLine(t, "ready", nodeTimeout)
			rostest.Python(t, uri, "testdata/talker.py", "/chatter", "talker2").WaitLine(t, "ready", nodeTimeout)
			listener.WaitLine(t, "heard hello", nodeTimeout)
			requireLines(t, rostest.Run(t, uri, toolTimeout, "rosnode", "list"), "/talker", "/talker2", "/listener")
		},
	},
}

func TestInteropWithDebianTools(t *testing.T) {
	for _, m := range rostest.Masters() {
		t.Run(m.Name, func(t *testing.T) {
			for _, tc := range interopCases {
				if m.Name == "rosmaster" && !tc.rosmaster {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					rostest.Require(t, tc.tools...)
					uri := m.Start(t)
					tc.run(t, uri)
				})
			}
		})
	}
}

// toolRun is what one command line run by runTools printed, and the
// status the tool would have exited with.
type toolRun struct {
	Argv []string `json:"argv"`
	Out  string   `json:"out"`
	Err  string   `json:"err"`
	Code int      `json:"code"`
}

// ok returns what the command line printed, failing the test unless it
// succeeded.
func (r toolRun) ok(t *testing.T) string {
	t.Helper()
	require.Equal(t, 0, r.Code, "%q exited with %d:\n%s%s", r.Argv, r.Code, r.Out, r.Err)
	return r.Out
}

// runTools runs command lines of rosparam, rosnode, rostopic and
// rosservice one after another in one Python process, by the main
// functions their scripts call (testdata/ros_cli.py), and returns what
// each printed: the tools' own code against the master, without a Python
// start and the tools' imports for each command (a third of a core-second
// each). Each tool still runs as a process of its own somewhere here
// (rostopic echo, pub and hz; rosparam set; rosnode list; rosservice call).
func runTools(t *testing.T, uri string, argvs ...[]string) []toolRun {
	t.Helper()
	arg, err := json.Marshal(argvs)
	require.NoError(t, err)
	out := rostest.Run(t, uri, toolTimeout, rostest.PythonPath, "testdata/ros_cli.py", string(arg))
	var runs []toolRun
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r toolRun
		require.NoError(t, json.Unmarshal([]byte(line), &r), "ros_cli.py printed %q", line)
		runs = append(runs, r)
	}
	require.Len(t, runs, len(argvs), "ros_cli.py ran %d of %d command lines", len(runs), len(argvs))
	return runs
}

// newGoroslibNode starts a goroslib node on the master at uri, closed when
// the test ends.
func newGoroslibNode(t testing.TB, uri, name string) *goroslib.Node {
	t.Helper()
	u, err := url.Parse(uri)
	require.NoError(t, err)
	node, err := goroslib.NewNode(goroslib.NodeConf{
		Name:            name,
		MasterAddress:   u.Host,
		Host:            "127.0.0.1",
		LogDestinations: goroslib.LogDestinationCallback,
		OnLog:           func(_ goroslib.LogLevel, msg string) { t.Logf("%s: %s", name, msg) },
	})
	require.NoError(t, err)
	t.Cleanup(node.Close)
	return node
}

func hasLine(out, want string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == want {
			return true
		}
	}
	return false
}

func requireLines(t testing.TB, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		assert.True(t, hasLine(out, w), "no line %q in:\n%s", w, out)
	}
}

func requireContains(t testing.TB, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		assert.Contains(t, out, w, "no %q in:\n%s", w, out)
	}
}
