package master

import (
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNameResolution(t *testing.T) {
	tests := []struct {
		name, callerID, want string
	}{
		{"chatter", "/talker", "/chatter"},
		{"chatter", "/robot1/talker", "/robot1/chatter"},
		{"base/odom", "/robot1/talker", "/robot1/base/odom"},
		{"~odom", "/robot1/talker", "/robot1/talker/odom"},
		{"~", "/robot1/talker", "/robot1/talker"},
		{"/cmd_vel", "/robot1/talker", "/cmd_vel"},
		{"//cmd_vel//", "/robot1/talker", "/cmd_vel"},
		{"a//b/", "/robot1/talker", "/robot1/a/b"},
		{"", "/robot1/talker", "/robot1/"},
		{"/", "/robot1/talker", "/"},
		{"scan", "talker", "/scan"},
	}
	for _, tc := range tests {
		if got := resolveName(tc.name, tc.callerID); got != tc.want {
			t.Errorf("resolveName(%q, %q) = %q, want %q", tc.name, tc.callerID, got, tc.want)
		}
	}
}

// TestTopicNamesResolveAgainstCaller checks resolution end to end: what a
// node registers under a relative or private name is listed globally.
func TestTopicNamesResolveAgainstCaller(t *testing.T) {
	tests := []struct {
		callerID, topic, want string
	}{
		{"/robot1/base", "odom", "/robot1/odom"},
		{"/robot1/base", "~cmd", "/robot1/base/cmd"},
		{"/robot1/base", "/tf", "/tf"},
		{"/base", "scan", "/scan"},
	}
	for _, tc := range tests {
		t.Run(tc.callerID+" "+tc.topic, func(t *testing.T) {
			m := startTestMaster(t)
			c := masterClient(t, m, tc.callerID)
			if _, err := c.RegisterPublisher(tc.topic, "std_msgs/String", "http://127.0.0.1:1/"); err != nil {
				t.Fatal(err)
			}
			topics, err := c.GetPublishedTopics("")
			if err != nil {
				t.Fatal(err)
			}
			want := [][]string{{tc.want, "std_msgs/String"}}
			if !reflect.DeepEqual(topics, want) {
				t.Errorf("getPublishedTopics = %v, want %v", topics, want)
			}
		})
	}
}

func TestRegistrations(t *testing.T) {
	const (
		pubAPI = "http://127.0.0.1:40001/"
		subAPI = "http://127.0.0.1:40002/"
		srvAPI = "rosrpc://127.0.0.1:40003"
	)
	tests := []struct {
		name string
		run  func(t *testing.T, m *Master)
	}{
		{"a subscriber learns the publishers and a publisher the subscribers", func(t *testing.T, m *Master) {
			pub := masterClient(t, m, "/lidar")
			sub := masterClient(t, m, "/mapper")
			subs, err := pub.RegisterPublisher("/scan", "sensor_msgs/LaserScan", pubAPI)
			if err != nil || len(subs) != 0 {
				t.Fatalf("registerPublisher = %v, %v; want no subscribers", subs, err)
			}
			pubs, err := sub.RegisterSubscriber("/scan", "sensor_msgs/LaserScan", subAPI)
			if err != nil || !reflect.DeepEqual(pubs, []string{pubAPI}) {
				t.Fatalf("registerSubscriber = %v, %v; want [%s]", pubs, err, pubAPI)
			}
			subs, err = masterClient(t, m, "/lidar2").RegisterPublisher("/scan", "sensor_msgs/LaserScan", "http://127.0.0.1:40004/")
			if err != nil || !reflect.DeepEqual(subs, []string{subAPI}) {
				t.Fatalf("second registerPublisher = %v, %v; want [%s]", subs, err, subAPI)
			}
			state, err := sub.GetSystemState()
			if err != nil {
				t.Fatal(err)
			}
			want := &apimaster.SystemState{
				PublishedTopics:  []apimaster.SystemStateEntry{{Name: "/scan", Nodes: []string{"/lidar", "/lidar2"}}},
				SubscribedTopics: []apimaster.SystemStateEntry{{Name: "/scan", Nodes: []string{"/mapper"}}},
				// goroslib decodes an empty array as a nil slice.
				ProvidedServices: nil,
			}
			if !reflect.DeepEqual(state, want) {
				t.Errorf("getSystemState = %+v, want %+v", state, want)
			}
		}},
		{"registering twice lists a node once", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/lidar")
			for i := 0; i < 2; i++ {
				if _, err := c.RegisterPublisher("/scan", "sensor_msgs/LaserScan", pubAPI); err != nil {
					t.Fatal(err)
				}
			}
			state, _ := c.GetSystemState()
			if got := state.PublishedTopics[0].Nodes; !reflect.DeepEqual(got, []string{"/lidar"}) {
				t.Errorf("publishers of /scan = %v, want [/lidar]", got)
			}
		}},
		{"unregistering counts 1 then 0 and forgets an empty node", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/lidar")
			if _, err := c.RegisterPublisher("/scan", "sensor_msgs/LaserScan", pubAPI); err != nil {
				t.Fatal(err)
			}
			if api, err := c.LookupNode("/lidar"); err != nil || api != pubAPI {
				t.Fatalf("lookupNode = %q, %v; want %q", api, err, pubAPI)
			}
			for _, want := range []int{1, 0} {
				code, n := mustCall(t, m.URI(), "unregisterPublisher", "/lidar", "/scan", pubAPI)
				if code != 1 || n != want {
					t.Errorf("unregisterPublisher = [%d, _, %v], want [1, _, %d]", code, n, want)
				}
			}
			if _, err := c.LookupNode("/lidar"); err == nil {
				t.Error("lookupNode found a node that unregistered everything")
			}
			topics, _ := c.GetPublishedTopics("")
			if len(topics) != 0 {
				t.Errorf("getPublishedTopics = %v after the only publisher left", topics)
			}
		}},
		{"unregistering from another URI removes nothing", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/lidar")
			c.RegisterPublisher("/scan", "sensor_msgs/LaserScan", pubAPI) //nolint:errcheck
			code, n := mustCall(t, m.URI(), "unregisterPublisher", "/lidar", "/scan", "http://127.0.0.1:9/")
			if code != 1 || n != 0 {
				t.Errorf("unregisterPublisher from another URI = [%d, _, %v], want [1, _, 0]", code, n)
			}
			if _, err := c.LookupNode("/lidar"); err != nil {
				t.Errorf("lookupNode: %v", err)
			}
		}},
		{"topic types: a subscriber names a type only while none is known, * never overrides", func(t *testing.T, m *Master) {
			masterClient(t, m, "/echo").RegisterSubscriber("/odom", "*", subAPI)                   //nolint:errcheck
			masterClient(t, m, "/viewer").RegisterSubscriber("/odom", "nav_msgs/Odometry", subAPI) //nolint:errcheck
			masterClient(t, m, "/viewer2").RegisterSubscriber("/odom", "std_msgs/String", subAPI)  //nolint:errcheck
			masterClient(t, m, "/anypub").RegisterPublisher("/odom", "*", pubAPI)                  //nolint:errcheck
			types, err := masterClient(t, m, "/x").GetTopicTypes()
			if err != nil {
				t.Fatal(err)
			}
			want := []apimaster.TopicType{{Name: "/odom", Type: "nav_msgs/Odometry"}}
			if !reflect.DeepEqual(types, want) {
				t.Errorf("getTopicTypes = %v, want %v", types, want)
			}
		}},
		{"getPublishedTopics filters by a subgraph resolved against the caller", func(t *testing.T, m *Master) {
			for _, topic := range []string{"/robot1/odom", "/robot1/scan", "/robot2/odom", "/robot10/odom"} {
				masterClient(t, m, "/pub").RegisterPublisher(topic, "nav_msgs/Odometry", pubAPI) //nolint:errcheck
			}
			topics, err := masterClient(t, m, "/robot1/planner").GetPublishedTopics("/robot1")
			if err != nil {
				t.Fatal(err)
			}
			want := [][]string{{"/robot1/odom", "nav_msgs/Odometry"}, {"/robot1/scan", "nav_msgs/Odometry"}}
			if !reflect.DeepEqual(topics, want) {
				t.Errorf("getPublishedTopics(/robot1) = %v, want %v", topics, want)
			}
		}},
		{"services: register, lookup, unregister only by the current URI", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/map_server")
			if err := c.RegisterService("static_map", srvAPI, pubAPI); err != nil {
				t.Fatal(err)
			}
			if uri, err := masterClient(t, m, "/planner").LookupService("/static_map"); err != nil || uri != srvAPI {
				t.Fatalf("lookupService = %q, %v; want %q", uri, err, srvAPI)
			}
			code, n := mustCall(t, m.URI(), "unregisterService", "/map_server", "/static_map", "rosrpc://127.0.0.1:1")
			if code != 1 || n != 0 {
				t.Errorf("unregisterService with a stale URI = [%d, _, %v], want [1, _, 0]", code, n)
			}
			code, n = mustCall(t, m.URI(), "unregisterService", "/map_server", "/static_map", srvAPI)
			if code != 1 || n != 1 {
				t.Errorf("unregisterService = [%d, _, %v], want [1, _, 1]", code, n)
			}
			if _, err := c.LookupService("/static_map"); err == nil {
				t.Error("lookupService found an unregistered service")
			}
		}},
		{"a second provider takes a service over", func(t *testing.T, m *Master) {
			masterClient(t, m, "/old").RegisterService("/reset", "rosrpc://127.0.0.1:1", pubAPI) //nolint:errcheck
			masterClient(t, m, "/new").RegisterService("/reset", srvAPI, subAPI)                 //nolint:errcheck
			if uri, _ := masterClient(t, m, "/x").LookupService("/reset"); uri != srvAPI {
				t.Errorf("lookupService = %q, want the newer provider %q", uri, srvAPI)
			}
			state, _ := masterClient(t, m, "/x").GetSystemState()
			want := []apimaster.SystemStateEntry{{Name: "/reset", Nodes: []string{"/new"}}}
			if !reflect.DeepEqual(state.ProvidedServices, want) {
				t.Errorf("services = %v, want %v", state.ProvidedServices, want)
			}
		}},
		{"getUri and getPid describe the master", func(t *testing.T, m *Master) {
			uri, err := masterClient(t, m, "/x").GetURI()
			if err != nil || uri != m.URI() {
				t.Errorf("getUri = %q, %v; want %q", uri, err, m.URI())
			}
			code, pid := mustCall(t, m.URI(), "getPid", "/x")
			if code != 1 || pid != os.Getpid() {
				t.Errorf("getPid = [%d, _, %v], want [1, _, %d]", code, pid, os.Getpid())
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, startTestMaster(t))
		})
	}
}

func TestPublisherUpdates(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, m *Master, sub *fakeNode)
	}{
		{"publishers coming and going are pushed in order", func(t *testing.T, m *Master, sub *fakeNode) {
			p1, p2 := "http://127.0.0.1:40011/", "http://127.0.0.1:40012/"
			masterClient(t, m, "/lidar_front").RegisterPublisher("/scan", "sensor_msgs/LaserScan", p1) //nolint:errcheck
			expectPublisherUpdate(t, sub, "/scan", p1)
			masterClient(t, m, "/lidar_rear").RegisterPublisher("/scan", "sensor_msgs/LaserScan", p2) //nolint:errcheck
			expectPublisherUpdate(t, sub, "/scan", p1, p2)
			masterClient(t, m, "/lidar_front").UnregisterPublisher("/scan", p1) //nolint:errcheck
			expectPublisherUpdate(t, sub, "/scan", p2)
			masterClient(t, m, "/lidar_rear").UnregisterPublisher("/scan", p2) //nolint:errcheck
			expectPublisherUpdate(t, sub, "/scan")
		}},
		{"other topics and stale unregistrations push nothing", func(t *testing.T, m *Master, sub *fakeNode) {
			masterClient(t, m, "/gps").RegisterPublisher("/fix", "sensor_msgs/NavSatFix", "http://127.0.0.1:40013/") //nolint:errcheck
			masterClient(t, m, "/gps").UnregisterPublisher("/scan", "http://127.0.0.1:40013/")                       //nolint:errcheck
			sub.none(t)
		}},
		{"a replaced node is told to shut down and its topics are updated", func(t *testing.T, m *Master, sub *fakeNode) {
			old := startSlaveNode(t)
			masterClient(t, m, "/lidar").RegisterPublisher("/scan", "sensor_msgs/LaserScan", old.uri) //nolint:errcheck
			expectPublisherUpdate(t, sub, "/scan", old.uri)
			// The same name comes back from another process (new URI) and
			// registers something else first.
			newAPI := "http://127.0.0.1:40014/"
			masterClient(t, m, "/lidar").RegisterPublisher("/points", "sensor_msgs/PointCloud2", newAPI) //nolint:errcheck
			c := old.next(t)
			if c.method != "shutdown" || c.params[0] != "/master" || !strings.Contains(c.params[1].(string), "new node registered with same name") {
				t.Errorf("old node got %s%v, want shutdown from /master", c.method, c.params)
			}
			expectPublisherUpdate(t, sub, "/scan")
			if api, _ := masterClient(t, m, "/x").LookupNode("/lidar"); api != newAPI {
				t.Errorf("lookupNode(/lidar) = %q, want the new URI %q", api, newAPI)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := startTestMaster(t)
			sub := startSlaveNode(t)
			pubs, err := masterClient(t, m, "/mapper").RegisterSubscriber("/scan", "sensor_msgs/LaserScan", sub.uri)
			if err != nil || len(pubs) != 0 {
				t.Fatalf("registerSubscriber = %v, %v", pubs, err)
			}
			tc.run(t, m, sub)
		})
	}
}

func expectPublisherUpdate(t *testing.T, n *fakeNode, topic string, pubs ...string) {
	t.Helper()
	c := n.next(t)
	if pubs == nil {
		pubs = []string{}
	}
	got, _ := c.params[2].([]string)
	if got == nil {
		got = []string{}
	}
	if c.method != "publisherUpdate" || c.params[0] != "/master" || c.params[1] != topic || !reflect.DeepEqual(got, pubs) {
		t.Fatalf("node got %s%v, want publisherUpdate[/master %s %v]", c.method, c.params, topic, pubs)
	}
}

// TestDeadNodes checks that nodes which died without unregistering neither
// break lookups nor slow the master down.
func TestDeadNodes(t *testing.T) {
	m := startTestMaster(t)
	dead := deadNodeURI(t)
	c := masterClient(t, m, "/crashed_driver")
	if _, err := c.RegisterSubscriber("/cmd_vel", "geometry_msgs/Twist", dead); err != nil {
		t.Fatal(err)
	}
	if err := c.RegisterService("/crashed_driver/reset", "rosrpc://127.0.0.1:1", dead); err != nil {
		t.Fatal(err)
	}
	// A node that hangs instead of dying: each push to it takes the full
	// slave call timeout.
	if _, err := masterClient(t, m, "/frozen_viewer").RegisterSubscriber("/cmd_vel", "geometry_msgs/Twist", hungNodeURI(t)); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"lookupNode returns the stale URI, as rosmaster does", func(t *testing.T) {
			if api, err := masterClient(t, m, "/x").LookupNode("/crashed_driver"); err != nil || api != dead {
				t.Errorf("lookupNode = %q, %v; want %q", api, err, dead)
			}
		}},
		{"lookupNode of a node never seen fails cleanly", func(t *testing.T) {
			code, _ := mustCall(t, m.URI(), "lookupNode", "/x", "/never_started")
			if code != -1 {
				t.Errorf("lookupNode of an unknown node: code %d, want -1", code)
			}
		}},
		{"publishers keep registering fast while pushes to dead and hung nodes fail", func(t *testing.T) {
			for i := 0; i < 20; i++ {
				start := time.Now()
				if _, err := masterClient(t, m, "/teleop").RegisterPublisher("/cmd_vel", "geometry_msgs/Twist", "http://127.0.0.1:40021/"); err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d > slaveCallTimeout/2 {
					t.Fatalf("registerPublisher took %v with dead and hung subscribers", d)
				}
				masterClient(t, m, "/teleop").UnregisterPublisher("/cmd_vel", "http://127.0.0.1:40021/") //nolint:errcheck
			}
		}},
		{"the master keeps serving", func(t *testing.T) {
			state, err := masterClient(t, m, "/x").GetSystemState()
			if err != nil {
				t.Fatal(err)
			}
			if len(state.SubscribedTopics) != 1 || len(state.SubscribedTopics[0].Nodes) != 2 || len(state.ProvidedServices) != 1 {
				t.Errorf("getSystemState = %+v, want the dead node's subscription and service", state)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.check)
	}
}

func TestBadCalls(t *testing.T) {
	m := startTestMaster(t)
	const api = "http://127.0.0.1:40031/"
	tests := []struct {
		name   string
		method string
		params []any
		want   string // in the status message
	}{
		{"wrong arity", "registerPublisher", []any{"/n", "/t", "std_msgs/String"}, "arity"},
		{"caller ID not a string", "getSystemState", []any{42}, "want a string"},
		{"type without package", "registerPublisher", []any{"/n", "/t", "String", api}, "package resource name"},
		{"caller API not a URI", "registerSubscriber", []any{"/n", "/t", "std_msgs/String", "localhost:1234"}, "RPC URI"},
		{"URI passed as topic", "registerPublisher", []any{"/n", "http://x:1/", "std_msgs/String", api}, "illegal chars"},
		{"topic is the root", "registerPublisher", []any{"/n", "/", "std_msgs/String", api}, "global namespace"},
		{"empty service", "lookupService", []any{"/n", ""}, "non-empty"},
		{"empty param key", "getParam", []any{"/n", ""}, "non-empty"},
		{"param key not a string", "setParam", []any{"/n", 5, "x"}, "want a string"},
		{"nil param value", "setParam", []any{"/n", "/x", nil}, "must be specified"},
		{"subscribeParam with bad API", "subscribeParam", []any{"/n", "nowhere", "/x"}, "URI"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := rawCall(t, m.URI(), tc.method, tc.params...)
			if err != nil {
				t.Fatalf("%s: %v", tc.method, err)
			}
			items, _ := v.([]any)
			if len(items) != 3 || items[0] != -1 || !strings.Contains(items[1].(string), tc.want) {
				t.Errorf("%s%v = %#v, want [-1, \"...%s...\", _]", tc.method, tc.params, v, tc.want)
			}
		})
	}

	t.Run("unknown method is a fault", func(t *testing.T) {
		_, err := rawCall(t, m.URI(), "fly", "/n")
		if f, ok := err.(*fault); !ok || !strings.Contains(f.Message, "fly") {
			t.Errorf("unknown method: %v, want a fault naming it", err)
		}
	})
	t.Run("malformed XML is a fault and the master keeps serving", func(t *testing.T) {
		for _, body := range []string{"", "<methodCall>", "not xml", "<methodCall><methodName>getPid</methodName><params><param><value><int>x</int></value></param></params></methodCall>"} {
			res, err := testHTTPClient(t).Post(m.URI(), "text/xml", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			_, err = decodeMethodResponse(res.Body)
			res.Body.Close()
			if _, ok := err.(*fault); !ok {
				t.Errorf("body %q: got %v, want a fault", body, err)
			}
		}
		if _, err := masterClient(t, m, "/x").GetURI(); err != nil {
			t.Errorf("getUri after bad requests: %v", err)
		}
	})
	t.Run("GET and other paths are refused", func(t *testing.T) {
		res, err := testHTTPClient(t).Get(m.URI())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 405 {
			t.Errorf("GET: HTTP %d, want 405", res.StatusCode)
		}
	})
}

// TestMulticall checks system.multicall, which rospy uses to unregister
// everything when a node shuts down.
func TestMulticall(t *testing.T) {
	m := startTestMaster(t)
	const api = "http://127.0.0.1:40041/"
	c := masterClient(t, m, "/talker")
	c.RegisterPublisher("/chatter", "std_msgs/String", api)    //nolint:errcheck
	c.RegisterSubscriber("/clock", "rosgraph_msgs/Clock", api) //nolint:errcheck
	call := func(method string, params ...any) map[string]any {
		return map[string]any{"methodName": method, "params": params}
	}
	v, err := rawCall(t, m.URI(), "system.multicall", []any{
		call("unregisterSubscriber", "/talker", "/clock", api),
		call("unregisterPublisher", "/talker", "/chatter", api),
		call("explode", "/talker"),
	})
	if err != nil {
		t.Fatal(err)
	}
	results, ok := v.([]any)
	if !ok || len(results) != 3 {
		t.Fatalf("multicall = %#v, want 3 results", v)
	}
	for i := 0; i < 2; i++ {
		res, _ := results[i].([]any)
		if len(res) != 1 || !reflect.DeepEqual(res[0].([]any)[2], 1) {
			t.Errorf("result %d = %#v, want [[1, _, 1]]", i, results[i])
		}
	}
	if f, _ := results[2].(map[string]any); f["faultCode"] != 1 {
		t.Errorf("result 2 = %#v, want a fault struct", results[2])
	}
	if _, err := c.LookupNode("/talker"); err == nil {
		t.Error("/talker is still known after unregistering everything in a multicall")
	}
}

func TestRemoteShutdown(t *testing.T) {
	m := startTestMaster(t)
	code, _ := mustCall(t, m.URI(), "shutdown", "/roslaunch", "mission over")
	if code != 1 {
		t.Fatalf("shutdown: code %d", code)
	}
	select {
	case <-m.Done():
	case <-time.After(pushTimeout):
		t.Fatal("master still running after a shutdown request")
	}
}

// TestReplacedNodeKeepsItsSubscribersUntilItAnswersShutdown: when another
// node takes a name, the old node is told to shut down, and the
// subscribers of its topics keep it in their publisher lists until it has
// answered: a controller stops its robot before it answers, and its zero
// velocity must travel on those connections. Then the subscribers are told
// it is gone.
func TestReplacedNodeKeepsItsSubscribersUntilItAnswersShutdown(t *testing.T) {
	newAPI := "http://127.0.0.1:40015/"
	cases := []struct {
		name string
		// register is what the new node of the same name registers first.
		register func(c *apimaster.Client) error
		// during is the publisher list the subscriber of /cmd_vel gets
		// while the old node has not answered (nil: no update).
		during []string
		after  []string
	}{
		{
			name: "the new node registers another topic",
			register: func(c *apimaster.Client) error {
				_, err := c.RegisterPublisher("/rosout", "rosgraph_msgs/Log", newAPI)
				return err
			},
			after: []string{},
		},
		{
			name: "the new node publishes the same topic",
			register: func(c *apimaster.Client) error {
				_, err := c.RegisterPublisher("/cmd_vel", "geometry_msgs/Twist", newAPI)
				return err
			},
			during: []string{newAPI, "OLD"},
			after:  []string{newAPI},
		},
		{
			name: "the new node subscribes to something",
			register: func(c *apimaster.Client) error {
				_, err := c.RegisterSubscriber("/odom", "nav_msgs/Odometry", newAPI)
				return err
			},
			after: []string{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := startTestMaster(t)
			hold := make(chan struct{})
			var once sync.Once
			release := func() { once.Do(func() { close(hold) }) }
			old := startHoldingSlaveNode(t, hold)
			t.Cleanup(release) // before the node's own cleanup
			sub := startSlaveNode(t)
			_, err := masterClient(t, m, "/base").RegisterSubscriber("/cmd_vel", "geometry_msgs/Twist", sub.uri)
			require.NoError(t, err)
			_, err = masterClient(t, m, "/robot1/btrobot").RegisterPublisher("/cmd_vel", "geometry_msgs/Twist", old.uri)
			require.NoError(t, err)
			expectPublisherUpdate(t, sub, "/cmd_vel", old.uri)

			require.NoError(t, tc.register(masterClient(t, m, "/robot1/btrobot")))
			c := old.next(t)
			require.Equal(t, "shutdown", c.method)
			if tc.during != nil {
				want := make([]string, len(tc.during))
				for i, u := range tc.during {
					want[i] = strings.Replace(u, "OLD", old.uri, 1)
				}
				expectPublisherUpdate(t, sub, "/cmd_vel", want...)
			}
			sub.none(t) // the old node has not answered: its subscribers keep it
			release()
			expectPublisherUpdate(t, sub, "/cmd_vel", tc.after...)
			api, err := masterClient(t, m, "/x").LookupNode("/robot1/btrobot")
			require.NoError(t, err)
			assert.Equal(t, newAPI, api)
		})
	}
}
