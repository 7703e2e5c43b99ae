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
		got := resolveName(tc.name, tc.callerID)
		assert.Equal(t, tc.want, got, "resolveName(%q, %q) = %q, want %q", tc.name, tc.callerID, got, tc.want)
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
			_, err := c.RegisterPublisher(tc.topic, "std_msgs/String", "http://127.0.0.1:1/")
			require.NoError(t, err)
			topics, err := c.GetPublishedTopics("")
			require.NoError(t, err)
			want := [][]string{{tc.want, "std_msgs/String"}}
			assert.Equal(t, want, topics, "getPublishedTopics = %v, want %v", topics, want)
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
			require.NoError(t, err, "registerPublisher = %v, %v; want no subscribers", subs, err)
			require.Empty(t, subs, "registerPublisher = %v, %v; want no subscribers", subs, err)
			pubs, err := sub.RegisterSubscriber("/scan", "sensor_msgs/LaserScan", subAPI)
			require.NoError(t, err, "registerSubscriber = %v, %v; want [%s]", pubs, err, pubAPI)
			require.Equal(t, []string{pubAPI}, pubs, "registerSubscriber = %v, %v; want [%s]", pubs, err, pubAPI)
			subs, err = masterClient(t, m, "/lidar2").RegisterPublisher("/scan", "sensor_msgs/LaserScan", "http://127.0.0.1:40004/")
			require.NoError(t, err, "second registerPublisher = %v, %v; want [%s]", subs, err, subAPI)
			require.Equal(t, []string{subAPI}, subs, "second registerPublisher = %v, %v; want [%s]", subs, err, subAPI)
			state, err := sub.GetSystemState()
			require.NoError(t, err)
			want := &apimaster.SystemState{
				PublishedTopics:  []apimaster.SystemStateEntry{{Name: "/scan", Nodes: []string{"/lidar", "/lidar2"}}},
				SubscribedTopics: []apimaster.SystemStateEntry{{Name: "/scan", Nodes: []string{"/mapper"}}},
				// goroslib decodes an empty array as a nil slice.
				ProvidedServices: nil,
			}
			assert.Equal(t, want, state, "getSystemState = %+v, want %+v", state, want)
		}},
		{"registering twice lists a node once", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/lidar")
			for i := 0; i < 2; i++ {
				_, err := c.RegisterPublisher("/scan", "sensor_msgs/LaserScan", pubAPI)
				require.NoError(t, err)
			}
			state, err := c.GetSystemState()
			require.NoError(t, err)
			require.NotEmpty(t, state.PublishedTopics, "getSystemState = %+v", state)
			got := state.PublishedTopics[0].Nodes
			assert.Equal(t, []string{"/lidar"}, got, "publishers of /scan = %v, want [/lidar]", got)
		}},
		{"unregistering counts 1 then 0 and forgets an empty node", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/lidar")
			_, err := c.RegisterPublisher("/scan", "sensor_msgs/LaserScan", pubAPI)
			require.NoError(t, err)
			api, err := c.LookupNode("/lidar")
			require.NoError(t, err, "lookupNode = %q, %v; want %q", api, err, pubAPI)
			require.Equal(t, pubAPI, api, "lookupNode = %q, %v; want %q", api, err, pubAPI)
			for _, want := range []int{1, 0} {
				code, n := mustCall(t, m.URI(), "unregisterPublisher", "/lidar", "/scan", pubAPI)
				assert.Equal(t, [2]any{1, want}, [2]any{code, n}, "unregisterPublisher = [%d, _, %v], want [1, _, %d]", code, n, want)
			}
			_, err = c.LookupNode("/lidar")
			assert.Error(t, err, "lookupNode found a node that unregistered everything")
			topics, _ := c.GetPublishedTopics("")
			assert.Empty(t, topics, "getPublishedTopics = %v after the only publisher left", topics)
		}},
		{"unregistering from another URI removes nothing", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/lidar")
			c.RegisterPublisher("/scan", "sensor_msgs/LaserScan", pubAPI) //nolint:errcheck
			code, n := mustCall(t, m.URI(), "unregisterPublisher", "/lidar", "/scan", "http://127.0.0.1:9/")
			assert.Equal(t, [2]any{1, 0}, [2]any{code, n}, "unregisterPublisher from another URI = [%d, _, %v], want [1, _, 0]", code, n)
			_, err := c.LookupNode("/lidar")
			assert.NoError(t, err, "lookupNode")
		}},
		{"topic types: a subscriber names a type only while none is known, * never overrides", func(t *testing.T, m *Master) {
			masterClient(t, m, "/echo").RegisterSubscriber("/odom", "*", subAPI)                   //nolint:errcheck
			masterClient(t, m, "/viewer").RegisterSubscriber("/odom", "nav_msgs/Odometry", subAPI) //nolint:errcheck
			masterClient(t, m, "/viewer2").RegisterSubscriber("/odom", "std_msgs/String", subAPI)  //nolint:errcheck
			masterClient(t, m, "/anypub").RegisterPublisher("/odom", "*", pubAPI)                  //nolint:errcheck
			types, err := masterClient(t, m, "/x").GetTopicTypes()
			require.NoError(t, err)
			want := []apimaster.TopicType{{Name: "/odom", Type: "nav_msgs/Odometry"}}
			assert.Equal(t, want, types, "getTopicTypes = %v, want %v", types, want)
		}},
		{"getPublishedTopics filters by a subgraph resolved against the caller", func(t *testing.T, m *Master) {
			for _, topic := range []string{"/robot1/odom", "/robot1/scan", "/robot2/odom", "/robot10/odom"} {
				masterClient(t, m, "/pub").RegisterPublisher(topic, "nav_msgs/Odometry", pubAPI) //nolint:errcheck
			}
			topics, err := masterClient(t, m, "/robot1/planner").GetPublishedTopics("/robot1")
			require.NoError(t, err)
			want := [][]string{{"/robot1/odom", "nav_msgs/Odometry"}, {"/robot1/scan", "nav_msgs/Odometry"}}
			assert.Equal(t, want, topics, "getPublishedTopics(/robot1) = %v, want %v", topics, want)
		}},
		{"services: register, lookup, unregister only by the current URI", func(t *testing.T, m *Master) {
			c := masterClient(t, m, "/map_server")
			require.NoError(t, c.RegisterService("static_map", srvAPI, pubAPI))
			uri, err := masterClient(t, m, "/planner").LookupService("/static_map")
			require.NoError(t, err, "lookupService = %q, %v; want %q", uri, err, srvAPI)
			require.Equal(t, srvAPI, uri, "lookupService = %q, %v; want %q", uri, err, srvAPI)
			code, n := mustCall(t, m.URI(), "unregisterService", "/map_server", "/static_map", "rosrpc://127.0.0.1:1")
			assert.Equal(t, [2]any{1, 0}, [2]any{code, n}, "unregisterService with a stale URI = [%d, _, %v], want [1, _, 0]", code, n)
			code, n = mustCall(t, m.URI(), "unregisterService", "/map_server", "/static_map", srvAPI)
			assert.Equal(t, [2]any{1, 1}, [2]any{code, n}, "unregisterService = [%d, _, %v], want [1, _, 1]", code, n)
			_, err = c.LookupService("/static_map")
			assert.Error(t, err, "lookupService found an unregistered service")
		}},
		{"a second provider takes a service over", func(t *testing.T, m *Master) {
			masterClient(t, m, "/old").RegisterService("/reset", "rosrpc://127.0.0.1:1", pubAPI) //nolint:errcheck
			masterClient(t, m, "/new").RegisterService("/reset", srvAPI, subAPI)                 //nolint:errcheck
			uri, _ := masterClient(t, m, "/x").LookupService("/reset")
			assert.Equal(t, srvAPI, uri, "lookupService = %q, want the newer provider %q", uri, srvAPI)
			state, err := masterClient(t, m, "/x").GetSystemState()
			require.NoError(t, err)
			want := []apimaster.SystemStateEntry{{Name: "/reset", Nodes: []string{"/new"}}}
			assert.Equal(t, want, state.ProvidedServices, "services = %v, want %v", state.ProvidedServices, want)
		}},
		{"getUri and getPid describe the master", func(t *testing.T, m *Master) {
			uri, err := masterClient(t, m, "/x").GetURI()
			assert.NoError(t, err, "getUri = %q, %v; want %q", uri, err, m.URI())
			assert.Equal(t, m.URI(), uri, "getUri = %q, %v; want %q", uri, err, m.URI())
			code, pid := mustCall(t, m.URI(), "getPid", "/x")
			assert.Equal(t, [2]any{1, os.Getpid()}, [2]any{code, pid}, "getPid = [%d, _, %v], want [1, _, %d]", code, pid, os.Getpid())
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
			require.Equal(t, "shutdown", c.method, "old node got %s%v, want shutdown from /master", c.method, c.params)
			require.Len(t, c.params, 2, "old node got %s%v, want shutdown from /master", c.method, c.params)
			assert.Equal(t, "/master", c.params[0], "old node got %s%v, want shutdown from /master", c.method, c.params)
			assert.Contains(t, c.params[1], "new node registered with same name", "old node got %s%v, want shutdown from /master", c.method, c.params)
			expectPublisherUpdate(t, sub, "/scan")
			api, _ := masterClient(t, m, "/x").LookupNode("/lidar")
			assert.Equal(t, newAPI, api, "lookupNode(/lidar) = %q, want the new URI %q", api, newAPI)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := startTestMaster(t)
			sub := startSlaveNode(t)
			pubs, err := masterClient(t, m, "/mapper").RegisterSubscriber("/scan", "sensor_msgs/LaserScan", sub.uri)
			require.NoError(t, err, "registerSubscriber = %v, %v", pubs, err)
			require.Empty(t, pubs, "registerSubscriber = %v, %v", pubs, err)
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
	require.True(t, c.method == "publisherUpdate" && c.params[0] == "/master" && c.params[1] == topic && reflect.DeepEqual(got, pubs),
		"node got %s%v, want publisherUpdate[/master %s %v]", c.method, c.params, topic, pubs)
}

// TestDeadNodes checks that nodes which died without unregistering neither
// break lookups nor slow the master down.
func TestDeadNodes(t *testing.T) {
	m := startTestMaster(t)
	dead := deadNodeURI(t)
	c := masterClient(t, m, "/crashed_driver")
	_, err := c.RegisterSubscriber("/cmd_vel", "geometry_msgs/Twist", dead)
	require.NoError(t, err)
	require.NoError(t, c.RegisterService("/crashed_driver/reset", "rosrpc://127.0.0.1:1", dead))
	// A node that hangs instead of dying: each push to it takes the full
	// slave call timeout.
	_, err = masterClient(t, m, "/frozen_viewer").RegisterSubscriber("/cmd_vel", "geometry_msgs/Twist", hungNodeURI(t))
	require.NoError(t, err)

	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"lookupNode returns the stale URI, as rosmaster does", func(t *testing.T) {
			api, err := masterClient(t, m, "/x").LookupNode("/crashed_driver")
			assert.NoError(t, err, "lookupNode = %q, %v; want %q", api, err, dead)
			assert.Equal(t, dead, api, "lookupNode = %q, %v; want %q", api, err, dead)
		}},
		{"lookupNode of a node never seen fails cleanly", func(t *testing.T) {
			code, _ := mustCall(t, m.URI(), "lookupNode", "/x", "/never_started")
			assert.Equal(t, -1, code, "lookupNode of an unknown node: code %d, want -1", code)
		}},
		{"publishers keep registering fast while pushes to dead and hung nodes fail", func(t *testing.T) {
			for i := 0; i < 20; i++ {
				start := time.Now()
				_, err := masterClient(t, m, "/teleop").RegisterPublisher("/cmd_vel", "geometry_msgs/Twist", "http://127.0.0.1:40021/")
				require.NoError(t, err)
				d := time.Since(start)
				require.LessOrEqual(t, d, slaveCallTimeout/2, "registerPublisher took %v with dead and hung subscribers", d)
				masterClient(t, m, "/teleop").UnregisterPublisher("/cmd_vel", "http://127.0.0.1:40021/") //nolint:errcheck
			}
		}},
		{"the master keeps serving", func(t *testing.T) {
			state, err := masterClient(t, m, "/x").GetSystemState()
			require.NoError(t, err)
			assert.True(t, len(state.SubscribedTopics) == 1 && len(state.SubscribedTopics[0].Nodes) == 2 && len(state.ProvidedServices) == 1,
				"getSystemState = %+v, want the dead node's subscription and service", state)
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
			require.NoError(t, err, tc.method)
			items, _ := v.([]any)
			require.Len(t, items, 3, "%s%v = %#v, want [-1, \"...%s...\", _]", tc.method, tc.params, v, tc.want)
			assert.Equal(t, -1, items[0], "%s%v = %#v, want [-1, \"...%s...\", _]", tc.method, tc.params, v, tc.want)
			assert.Contains(t, items[1], tc.want, "%s%v = %#v, want [-1, \"...%s...\", _]", tc.method, tc.params, v, tc.want)
		})
	}

	t.Run("unknown method is a fault", func(t *testing.T) {
		_, err := rawCall(t, m.URI(), "fly", "/n")
		var f *fault
		require.ErrorAs(t, err, &f, "unknown method: %v, want a fault naming it", err)
		assert.Contains(t, f.Message, "fly", "unknown method: %v, want a fault naming it", err)
	})
	t.Run("malformed XML is a fault and the master keeps serving", func(t *testing.T) {
		for _, body := range []string{"", "<methodCall>", "not xml", "<methodCall><methodName>getPid</methodName><params><param><value><int>x</int></value></param></params></methodCall>"} {
			res, err := testHTTPClient(t).Post(m.URI(), "text/xml", strings.NewReader(body))
			require.NoError(t, err)
			_, err = decodeMethodResponse(res.Body)
			res.Body.Close()
			assert.IsType(t, &fault{}, err, "body %q: got %v, want a fault", body, err)
		}
		_, err := masterClient(t, m, "/x").GetURI()
		assert.NoError(t, err, "getUri after bad requests")
	})
	t.Run("GET and other paths are refused", func(t *testing.T) {
		res, err := testHTTPClient(t).Get(m.URI())
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, 405, res.StatusCode, "GET: HTTP %d, want 405", res.StatusCode)
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
	require.NoError(t, err)
	results, ok := v.([]any)
	require.True(t, ok, "multicall = %#v, want 3 results", v)
	require.Len(t, results, 3, "multicall = %#v, want 3 results", v)
	for i := 0; i < 2; i++ {
		res, _ := results[i].([]any)
		require.Len(t, res, 1, "result %d = %#v, want [[1, _, 1]]", i, results[i])
		inner, _ := res[0].([]any)
		require.Len(t, inner, 3, "result %d = %#v, want [[1, _, 1]]", i, results[i])
		assert.Equal(t, 1, inner[2], "result %d = %#v, want [[1, _, 1]]", i, results[i])
	}
	f, _ := results[2].(map[string]any)
	assert.Equal(t, 1, f["faultCode"], "result 2 = %#v, want a fault struct", results[2])
	_, err = c.LookupNode("/talker")
	assert.Error(t, err, "/talker is still known after unregistering everything in a multicall")
}

func TestRemoteShutdown(t *testing.T) {
	m := startTestMaster(t)
	code, _ := mustCall(t, m.URI(), "shutdown", "/roslaunch", "mission over")
	require.Equal(t, 1, code, "shutdown: code %d", code)
	select {
	case <-m.Done():
	case <-time.After(pushTimeout):
		require.FailNow(t, "master still running after a shutdown request")
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
