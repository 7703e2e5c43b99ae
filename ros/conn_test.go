package ros

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

func TestConfFromArgs(t *testing.T) {
	env := map[string]string{
		"ROS_MASTER_URI": "http://master:11311/",
		"ROS_NAMESPACE":  "/env_ns",
		"ROS_HOSTNAME":   "robot.local",
	}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name     string
		args     []string
		want     Conf
		wantRest []string
		wantErr  []string
	}{
		{
			name:     "environment only",
			args:     []string{"--tree", "t.xml"},
			want:     Conf{Name: "btrobot", MasterURI: "http://master:11311/", Namespace: "/env_ns", Host: "robot.local"},
			wantRest: []string{"--tree", "t.xml"},
		},
		{
			name: "arguments win",
			args: []string{"__ns:=/robot1", "__name:=patrol", "__master:=http://10.0.0.1:11311/", "__ip:=10.0.0.7", "__hostname:=ignored", "__log:=/tmp/x.log"},
			want: Conf{Name: "patrol", MasterURI: "http://10.0.0.1:11311/", Namespace: "/robot1", Host: "10.0.0.7"},
		},
		{
			name: "remaps and private parameters",
			args: []string{"cmd_vel:=/mobile_base/cmd_vel", "_rate:=20", "_gain:=0.5", "_sim:=true", "_frame:=map", "-v", "~out:=/debug"},
			want: Conf{Name: "btrobot", MasterURI: "http://master:11311/", Namespace: "/env_ns", Host: "robot.local",
				Remap:  map[string]string{"cmd_vel": "/mobile_base/cmd_vel", "~out": "/debug"},
				Params: map[string]any{"rate": 20, "gain": 0.5, "sim": true, "frame": "map"}},
			wantRest: []string{"-v"},
		},
		{
			name: "every bad argument at once",
			args: []string{"__name:=a/b", "__nope:=1", "9lives:=x", "scan:=bad name", "_list:=[1, 2]", "_:=3"},
			wantErr: []string{
				`argument "__name:=a/b": a node name is a plain name without '/' or '~'`,
				`argument "__nope:=1": unknown special argument __nope`,
				`argument "9lives:=x": remapping from "9lives" is not a valid ROS name`,
				`argument "scan:=bad name": remapping to "bad name" is not a valid ROS name`,
				`argument "_list:=[1, 2]": parameter value "[1, 2]": only a bool, an integer, a number or a string`,
				`argument "_:=3": private parameter name "" is not a valid ROS name`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, rest, err := ConfFromArgs("btrobot", c.args, getenv)
			if len(c.wantErr) > 0 {
				require.Error(t, err, "no error")
				lines := strings.Split(err.Error(), "\n")
				require.Len(t, lines, len(c.wantErr), "got %d errors, want %d:\n%v", len(lines), len(c.wantErr), err)
				for i, w := range c.wantErr {
					assert.True(t, strings.HasPrefix(lines[i], w), "error %d:\n got %s\nwant %s", i, lines[i], w)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got, "conf")
			assert.Equal(t, c.wantRest, rest, "rest")
		})
	}
}

func TestResolve(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connect(t, uri, "bt", "__ns:=/robot1", "cmd_vel:=/mobile_base/cmd_vel", "~debug:=/dbg", "/tf:=tf_remapped")
	cases := map[string]string{
		"odom":            "/robot1/odom",
		"/odom":           "/odom",
		"~status":         "/robot1/bt/status",
		"cmd_vel":         "/mobile_base/cmd_vel",
		"/robot1/cmd_vel": "/mobile_base/cmd_vel",
		"~debug":          "/dbg",
		"/tf":             "/robot1/tf_remapped",
		"move_base/":      "/robot1/move_base",
	}
	for in, want := range cases {
		assert.Equal(t, want, c.Resolve(in), "Resolve(%q)", in)
	}
	assert.Equal(t, "/robot1/bt", c.Name(), "name")
	assert.Equal(t, "/robot1", c.Namespace(), "namespace")
}

func TestConnectErrors(t *testing.T) {
	cases := []struct {
		conf Conf
		want string
	}{
		{Conf{MasterURI: "localhost:11311"}, `master URI "localhost:11311": write it as http://HOST:PORT/`},
		{Conf{MasterURI: "http://localhost:99999/"}, `port "99999" is not a TCP port`},
		{Conf{MasterURI: "http://127.0.0.1:1/", Name: "a/b"}, `node name "a/b": a node name is a plain name`},
		{Conf{MasterURI: "http://127.0.0.1:1/", Namespace: "/bad ns"}, `namespace "/bad ns" is not a valid ROS namespace`},
		{Conf{MasterURI: "http://127.0.0.1:1/", Host: "127.0.0.1"}, `join the ROS graph as /btrobot through the master at http://127.0.0.1:1/`},
	}
	for _, c := range cases {
		_, err := Connect(c.conf)
		assert.ErrorContains(t, err, c.want, "Connect(%+v)", c.conf)
	}
}

// TestParameters: private parameters from the command line are set on the
// master, where rosparam sees them, and parameters rosparam sets are read.
func TestParameters(t *testing.T) {
	rostest.Require(t, "rosparam")
	rostest.EachMaster(t, func(t *testing.T, uri string) {
		c := connect(t, uri, "bt", "__ns:=/robot1", "_rate:=20", "_frame:=map", "_gain:=0.25", "_enabled:=true")
		out := rostest.Run(t, uri, 20*time.Second, "rosparam", "get", "/robot1/bt")
		for _, want := range []string{"rate: 20", "frame: map", "gain: 0.25", "enabled: true"} {
			assert.Contains(t, out, want, "rosparam get /robot1/bt")
		}
		rostest.Run(t, uri, 20*time.Second, "rosparam", "set", "/robot1/speed", "0.7")
		rostest.Run(t, uri, 20*time.Second, "rosparam", "set", "/global_flag", "false")
		if v, err := c.ParamFloat64("speed"); assert.NoError(t, err, "ParamFloat64(speed)") {
			assert.Equal(t, 0.7, v, "ParamFloat64(speed)")
		}
		if v, err := c.ParamInt("~rate"); assert.NoError(t, err, "ParamInt(~rate)") {
			assert.Equal(t, 20, v, "ParamInt(~rate)")
		}
		if v, err := c.ParamFloat64("~rate"); assert.NoError(t, err, "ParamFloat64(~rate)") {
			assert.Equal(t, 20.0, v, "ParamFloat64(~rate)")
		}
		if v, err := c.ParamBool("/global_flag"); assert.NoError(t, err, "ParamBool(/global_flag)") {
			assert.False(t, v, "ParamBool(/global_flag)")
		}
		if ok, err := c.HasParam("~missing"); assert.NoError(t, err, "HasParam(~missing)") {
			assert.False(t, ok, "HasParam(~missing)")
		}
		assert.ErrorContains(t, c.SetParam("~list", []int{1}), "cannot be set", "SetParam of a list")
	})
}

// TestTopicsBetweenNodes: two nodes share topics both ways, a node
// subscribing twice to a topic shares one subscriber, and type clashes are
// errors.
func TestTopicsBetweenNodes(t *testing.T) {
	uri := rostest.StartMaster(t)
	a := connect(t, uri, "a")
	b := connect(t, uri, "b")
	got := make(chan float64, 10)
	sub1, err := Subscribe(b, "/chatter", func(m *std_msgs.Float64) { got <- m.Data })
	require.NoError(t, err)
	sub2, err := NewSubscriber(SubscriberConf{Conn: b, Topic: "chatter", Msg: std_msgs.Float64{}})
	require.NoError(t, err)
	_, err = Subscribe[std_msgs.String](b, "chatter", nil)
	assert.ErrorContains(t, err, "already subscribes to it as std_msgs/Float64", "type clash")
	pub, err := NewPublisher(PublisherConf{Conn: a, Topic: "chatter", Msg: &std_msgs.Float64{}})
	require.NoError(t, err)
	assert.ErrorContains(t, pub.Publish(geometry_msgs.Twist{}), "want a std_msgs/Float64, got geometry_msgs.Twist", "wrong type")
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		pub.Publish(&std_msgs.Float64{Data: 2.5})
		select {
		case v := <-got:
			require.Equal(t, 2.5, v, "got")
			done = true
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			require.FailNow(t, "no message")
		}
	}
	m, at, n := sub2.Newest()
	if assert.IsType(t, &std_msgs.Float64{}, m, "Newest") {
		assert.Equal(t, 2.5, m.(*std_msgs.Float64).Data, "Newest = %v %v %d", m, at, n)
	}
	assert.False(t, at.IsZero(), "Newest = %v %v %d", m, at, n)
	assert.NotZero(t, n, "Newest = %v %v %d", m, at, n)
	sub1.Close()
	sub2.Close()
	pub.Close()
}

// TestNoLeaks: connecting, using every kind of endpoint and closing leaves
// no goroutine behind.
func TestNoLeaks(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	// In a subtest, so that the master's cleanup has run before the check.
	t.Run("session", func(t *testing.T) {
		uri := rostest.StartMaster(t)
		c, err := Connect(Conf{MasterURI: uri, Host: "127.0.0.1", Name: "leak"})
		require.NoError(t, err)
		_, err = Subscribe[std_msgs.Bool](c, "flag", nil)
		require.NoError(t, err)
		_, err = NewPublisher(PublisherConf{Conn: c, Topic: "cmd_vel", Msg: geometry_msgs.Twist{}})
		require.NoError(t, err)
		_, err = NewActionClient(ActionClientConf{Conn: c, Name: "move_base", Action: MoveBaseAction{}})
		require.NoError(t, err)
		c.Close()
	})
}

// TestNamespaceArgumentBeatsEnvironment: __ns:= wins over ROS_NAMESPACE, as
// in ROS, although goroslib reads the variable itself.
func TestNamespaceArgumentBeatsEnvironment(t *testing.T) {
	uri := rostest.StartMaster(t)
	t.Setenv("ROS_NAMESPACE", "/from_env")
	conf, _, err := ConfFromArgs("bt", []string{"__ns:=/from_arg"}, nil)
	require.NoError(t, err)
	conf.MasterURI, conf.Host = uri, "127.0.0.1"
	c, err := Connect(conf)
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, "/from_arg/bt", c.Name(), "name")
	_, err = NewPublisher(PublisherConf{Conn: c, Topic: "status", Msg: std_msgs.String{}})
	require.NoError(t, err)
	other := connectWire(t, uri, WireGoroslib, "observer") // goroslib's master client
	nodes, err := other.wire.(*rosWire).node.MasterGetNodes()
	require.NoError(t, err)
	assert.Contains(t, nodes, "/from_arg/bt", "the master knows nodes %v, not /from_arg/bt", nodes)
	topics, err := other.wire.(*rosWire).node.MasterGetTopics()
	require.NoError(t, err)
	assert.Contains(t, topics, "/from_arg/status", "the master knows topics %v, not /from_arg/status", topics)
	assert.Equal(t, "/from_env", os.Getenv("ROS_NAMESPACE"), "ROS_NAMESPACE left")
}

// TestRosout: the node's log lines reach /rosout under its name.
func TestRosout(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connect(t, uri, "bt", "__ns:=/robot1")
	lines := make(chan *rosgraph_msgs.Log, 100)
	watcher := connect(t, uri, "rosout_watcher")
	_, err := Subscribe(watcher, "/rosout", func(m *rosgraph_msgs.Log) { lines <- m })
	require.NoError(t, err)
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		c.Logf(LogWarn, "battery low: %d%%", i)
		select {
		case m := <-lines:
			require.Equal(t, "/robot1/bt", m.Name, "/rosout got %+v", m)
			require.True(t, strings.HasPrefix(m.Msg, "battery low: "), "/rosout got %+v", m)
			require.Equal(t, rosgraph_msgs.Log_WARN, m.Level, "/rosout got %+v", m)
			return
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			require.FailNow(t, "nothing on /rosout")

		}
	}
}
