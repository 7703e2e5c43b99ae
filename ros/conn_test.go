package ros

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

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
				if err == nil {
					t.Fatal("no error")
				}
				lines := strings.Split(err.Error(), "\n")
				if len(lines) != len(c.wantErr) {
					t.Fatalf("got %d errors, want %d:\n%v", len(lines), len(c.wantErr), err)
				}
				for i, w := range c.wantErr {
					if !strings.HasPrefix(lines[i], w) {
						t.Errorf("error %d:\n got %s\nwant %s", i, lines[i], w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("conf:\n got %+v\nwant %+v", got, c.want)
			}
			if !reflect.DeepEqual(rest, c.wantRest) {
				t.Errorf("rest %q, want %q", rest, c.wantRest)
			}
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
		if got := c.Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
	if c.Name() != "/robot1/bt" || c.Namespace() != "/robot1" {
		t.Errorf("name %s namespace %s", c.Name(), c.Namespace())
	}
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
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Connect(%+v): error %v, want %q", c.conf, err, c.want)
		}
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
			if !strings.Contains(out, want) {
				t.Errorf("rosparam get /robot1/bt: no %q in\n%s", want, out)
			}
		}
		rostest.Run(t, uri, 20*time.Second, "rosparam", "set", "/robot1/speed", "0.7")
		rostest.Run(t, uri, 20*time.Second, "rosparam", "set", "/global_flag", "false")
		if v, err := c.ParamFloat64("speed"); err != nil || v != 0.7 {
			t.Errorf("ParamFloat64(speed) = %v, %v", v, err)
		}
		if v, err := c.ParamInt("~rate"); err != nil || v != 20 {
			t.Errorf("ParamInt(~rate) = %v, %v", v, err)
		}
		if v, err := c.ParamFloat64("~rate"); err != nil || v != 20 {
			t.Errorf("ParamFloat64(~rate) = %v, %v", v, err)
		}
		if v, err := c.ParamBool("/global_flag"); err != nil || v {
			t.Errorf("ParamBool(/global_flag) = %v, %v", v, err)
		}
		if ok, err := c.HasParam("~missing"); err != nil || ok {
			t.Errorf("HasParam(~missing) = %v, %v", ok, err)
		}
		if err := c.SetParam("~list", []int{1}); err == nil || !strings.Contains(err.Error(), "cannot be set") {
			t.Errorf("SetParam of a list: %v", err)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	sub2, err := NewSubscriber(SubscriberConf{Conn: b, Topic: "chatter", Msg: std_msgs.Float64{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Subscribe[std_msgs.String](b, "chatter", nil); err == nil || !strings.Contains(err.Error(), "already subscribes to it as std_msgs/Float64") {
		t.Errorf("type clash: %v", err)
	}
	pub, err := NewPublisher(PublisherConf{Conn: a, Topic: "chatter", Msg: &std_msgs.Float64{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(geometry_msgs.Twist{}); err == nil || !strings.Contains(err.Error(), "want a std_msgs/Float64, got geometry_msgs.Twist") {
		t.Errorf("wrong type: %v", err)
	}
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		pub.Publish(&std_msgs.Float64{Data: 2.5})
		select {
		case v := <-got:
			if v != 2.5 {
				t.Fatalf("got %v", v)
			}
			done = true
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("no message")
		}
	}
	m, at, n := sub2.Newest()
	if m.(*std_msgs.Float64).Data != 2.5 || at.IsZero() || n == 0 {
		t.Errorf("Newest = %v %v %d", m, at, n)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Subscribe[std_msgs.Bool](c, "flag", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := NewPublisher(PublisherConf{Conn: c, Topic: "cmd_vel", Msg: geometry_msgs.Twist{}}); err != nil {
			t.Fatal(err)
		}
		if _, err := NewActionClient(ActionClientConf{Conn: c, Name: "move_base", Action: MoveBaseAction{}}); err != nil {
			t.Fatal(err)
		}
		c.Close()
	})
}

// TestNamespaceArgumentBeatsEnvironment: __ns:= wins over ROS_NAMESPACE, as
// in ROS, although goroslib reads the variable itself.
func TestNamespaceArgumentBeatsEnvironment(t *testing.T) {
	uri := rostest.StartMaster(t)
	t.Setenv("ROS_NAMESPACE", "/from_env")
	conf, _, err := ConfFromArgs("bt", []string{"__ns:=/from_arg"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	conf.MasterURI, conf.Host = uri, "127.0.0.1"
	c, err := Connect(conf)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Name() != "/from_arg/bt" {
		t.Errorf("name %s", c.Name())
	}
	if _, err := NewPublisher(PublisherConf{Conn: c, Topic: "status", Msg: std_msgs.String{}}); err != nil {
		t.Fatal(err)
	}
	other := connectWire(t, uri, WireGoroslib, "observer") // goroslib's master client
	nodes, err := other.wire.(*rosWire).node.MasterGetNodes()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := nodes["/from_arg/bt"]; !ok {
		t.Errorf("the master knows nodes %v, not /from_arg/bt", nodes)
	}
	topics, err := other.wire.(*rosWire).node.MasterGetTopics()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := topics["/from_arg/status"]; !ok {
		t.Errorf("the master knows topics %v, not /from_arg/status", topics)
	}
	if got := os.Getenv("ROS_NAMESPACE"); got != "/from_env" {
		t.Errorf("ROS_NAMESPACE left as %q", got)
	}
}

// TestRosout: the node's log lines reach /rosout under its name.
func TestRosout(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connect(t, uri, "bt", "__ns:=/robot1")
	lines := make(chan *rosgraph_msgs.Log, 100)
	watcher := connect(t, uri, "rosout_watcher")
	if _, err := Subscribe(watcher, "/rosout", func(m *rosgraph_msgs.Log) { lines <- m }); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		c.Logf(LogWarn, "battery low: %d%%", i)
		select {
		case m := <-lines:
			if m.Name != "/robot1/bt" || !strings.HasPrefix(m.Msg, "battery low: ") || m.Level != rosgraph_msgs.Log_WARN {
				t.Fatalf("/rosout got %+v", m)
			}
			return
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("nothing on /rosout")
		}
	}
}
