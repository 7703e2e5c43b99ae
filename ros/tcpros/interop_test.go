package tcpros_test

// Interop with Debian's rospy and ros* tools. The master and the slave
// XML-RPC API a ROS node needs around TCPROS (registration, requestTopic)
// are scaffolding here — btrobot's embedded master, and goroslib's XML-RPC
// slave API and master client — since this package is the wire only; every
// TCPROS connection in these tests is btrobot's.

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/apislave"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// testNode is a ROS node made of a tcpros.Server and a slave API that
// answers requestTopic with its address.
type testNode struct {
	name   string
	tcp    *tcpros.Server
	master *apimaster.Client
	slave  *apislave.Server
}

func newTestNode(t *testing.T, masterURI, name string) *testNode {
	t.Helper()
	tcp := newServer(t, tcpros.ServerConf{CallerID: name})
	u, err := url.Parse(masterURI)
	require.NoError(t, err)
	slave, err := apislave.NewServer("127.0.0.1:0", net.ParseIP("127.0.0.1"), "", 5*time.Second)
	require.NoError(t, err)
	host, port, err := net.SplitHostPort(tcp.Addr().String())
	require.NoError(t, err)
	p, err := strconv.Atoi(port)
	require.NoError(t, err)
	served := make(chan struct{})
	go func() {
		defer close(served)
		slave.Serve(func(req apislave.Request) apislave.Response {
			switch req.(type) {
			case *apislave.RequestRequestTopic:
				return apislave.ResponseRequestTopic{Code: 1, Protocol: []any{"TCPROS", host, p}}
			case *apislave.RequestGetPid:
				return apislave.ResponseGetPid{Code: 1, Pid: os.Getpid()}
			case *apislave.RequestPublisherUpdate:
				return apislave.ResponsePublisherUpdate{Code: 1}
			case *apislave.RequestGetBusInfo:
				return apislave.ResponseGetBusInfo{Code: 1, BusInfo: [][]any{}}
			case *apislave.RequestGetPublications:
				return apislave.ResponseGetPublications{Code: 1, TopicList: [][]string{}}
			}
			return apislave.ResponseShutdown{Code: 1}
		})
	}()
	t.Cleanup(func() { slave.Close(); <-served })
	return &testNode{name: name, tcp: tcp, slave: slave, master: apimaster.NewClient(u.Host, name, xmlrpcClient())}
}

// xmlrpcClient makes no keep-alive connections, so that none outlives a
// test (the leak check).
func xmlrpcClient() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
}

// publisherAddr asks the master who publishes topic and that node's
// slave API for its TCPROS address, as a subscribing node does.
func (n *testNode) publisherAddr(t *testing.T, topic string) string {
	t.Helper()
	var nodes []string
	require.Eventually(t, func() bool {
		st, err := n.master.GetSystemState()
		if err != nil {
			return false
		}
		for _, e := range st.PublishedTopics {
			if e.Name == topic {
				nodes = e.Nodes
			}
		}
		return len(nodes) > 0
	}, 20*time.Second, 50*time.Millisecond, "a publisher of %s registers", topic)
	api, err := n.master.LookupNode(nodes[0])
	require.NoError(t, err)
	u, err := url.Parse(api)
	require.NoError(t, err)
	proto, err := apislave.NewClient(u.Host, n.name, xmlrpcClient()).RequestTopic(topic, [][]any{{"TCPROS"}})
	require.NoError(t, err)
	require.Len(t, proto, 3)
	return net.JoinHostPort(proto[1].(string), strconv.Itoa(proto[2].(int)))
}

// TestInteropRospy: btrobot's TCPROS with rospy and the ros* tools, both
// ways, for topics and services, with btrobot's master and Debian's.
func TestInteropRospy(t *testing.T) {
	rostest.Require(t, "rospy", "rostopic", "rosservice", "std_srvs", "sensor_msgs", "geometry_msgs")
	for _, m := range rostest.Masters() {
		t.Run(m.Name, func(t *testing.T) {
			// Registered first, so run last: once the master is closed and
			// the peer killed, no goroutine of theirs (the master's
			// connections to the peer, which newServer lets outlive a
			// subtest) is left.
			ignore := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
			interopRospy(t, m.Start(t))
		})
	}
}

func interopRospy(t *testing.T, uri string) {
	// One rospy node plays every role of the subtests (see peer.py): a
	// rospy start costs ~0.3 core-s, and no subtest needs a fresh node.
	peer := rostest.Python(t, uri, "testdata/peer.py")
	peer.WaitLine(t, "ready", 20*time.Second)

	t.Run("rostopic pub to our subscriber", func(t *testing.T) {
		rostest.Start(t, uri, "rostopic", "pub", "-r", "20", "/cmd", "geometry_msgs/Twist", "{linear: {x: 1.5}, angular: {z: -0.25}}")
		n := newTestNode(t, uri, "/btrobot_sub")
		got := make(chan *geometry_msgs.Twist, 100)
		name, md5, def := typeOf(t, &geometry_msgs.Twist{})
		sub, err := tcpros.Subscribe(context.Background(), tcpros.SubscriberConf{
			Addr: n.publisherAddr(t, "/cmd"), CallerID: n.name, Topic: "/cmd", Type: name, MD5: md5, Definition: def,
			Msg: &geometry_msgs.Twist{}, OnMessage: func(m any) {
				select {
				case got <- m.(*geometry_msgs.Twist):
				default:
				}
			},
		})
		require.NoError(t, err)
		defer sub.Close()
		select {
		case m := <-got:
			assert.Equal(t, &geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 1.5}, Angular: geometry_msgs.Vector3{Z: -0.25}}, m)
		case <-time.After(20 * time.Second):
			require.FailNow(t, "a message within 20 s")
		}
		assert.Contains(t, sub.Header()["callerid"], "/rostopic_")
	})

	t.Run("rospy LaserScan to our subscriber", func(t *testing.T) {
		n := newTestNode(t, uri, "/btrobot_scan")
		got := make(chan *sensor_msgs.LaserScan, 100)
		name, md5, def := typeOf(t, &sensor_msgs.LaserScan{})
		sub, err := tcpros.Subscribe(context.Background(), tcpros.SubscriberConf{
			Addr: n.publisherAddr(t, "/scan"), CallerID: n.name, Topic: "/scan", Type: name, MD5: md5, Definition: def,
			Msg: &sensor_msgs.LaserScan{}, OnMessage: func(m any) {
				select {
				case got <- m.(*sensor_msgs.LaserScan):
				default:
				}
			},
		})
		require.NoError(t, err)
		defer sub.Close()
		select {
		case m := <-got:
			assert.Equal(t, "laser", m.Header.FrameId)
			assert.Equal(t, time.Unix(5, 7).UTC(), m.Header.Stamp)
			assert.Equal(t, float32(-1.5), m.AngleMin)
			assert.Equal(t, []float32{1, 2.5, float32(math.Inf(1))}, m.Ranges)
			assert.Nil(t, m.Intensities)
		case <-time.After(20 * time.Second):
			require.FailNow(t, "a message within 20 s")
		}
	})

	t.Run("our latched publisher to rostopic echo and rospy", func(t *testing.T) {
		n := newTestNode(t, uri, "/btrobot_pub")
		p := publish(t, n.tcp, "/out", &geometry_msgs.Twist{}, true)
		require.NoError(t, p.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 2.5}, Angular: geometry_msgs.Vector3{Z: 0.75}}))
		_, err := n.master.RegisterPublisher("/out", "geometry_msgs/Twist", n.slave.URL())
		require.NoError(t, err)
		out := rostest.Run(t, uri, 30*time.Second, "rostopic", "echo", "-n", "1", "/out")
		assert.Contains(t, out, "x: 2.5")
		assert.Contains(t, out, "z: 0.75")

		// The peer subscribed before we registered, but after we
		// published: it gets the message only because it is latched.
		peer.WaitLine(t, "twist 2.50 0.75", 20*time.Second)
		require.NoError(t, p.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: -1}}))
		peer.WaitLine(t, "twist -1.00 0.00", 20*time.Second)

		// The peer's rospy.AnyMsg subscriber is on a topic of its own (one
		// subscription per topic in a rospy node), published only now, so
		// that its line comes after the twists WaitLine passed.
		pa := publish(t, n.tcp, "/out_any", &geometry_msgs.Twist{}, true)
		require.NoError(t, pa.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 2.5}}))
		_, err = n.master.RegisterPublisher("/out_any", "geometry_msgs/Twist", n.slave.URL())
		require.NoError(t, err)
		peer.WaitLine(t, "any 48 geometry_msgs/Twist", 20*time.Second) // the latched one, as raw bytes
	})

	t.Run("rosservice call and rospy to our service", func(t *testing.T) {
		n := newTestNode(t, uri, "/btrobot_srv")
		req, res, err := serviceproc.RequestResponse(std_srvs.SetBool{})
		require.NoError(t, err)
		md5, err := serviceproc.MD5(std_srvs.SetBool{})
		require.NoError(t, err)
		_, err = n.tcp.Provide(tcpros.ServiceConf{
			Service: "/btrobot_set", Type: "std_srvs/SetBool", MD5: md5,
			RequestType: "std_srvs/SetBoolRequest", ResponseType: "std_srvs/SetBoolResponse", Request: req,
			Handler: func(r any) (any, error) {
				if !r.(*std_srvs.SetBoolReq).Data {
					return nil, assert.AnError
				}
				return &std_srvs.SetBoolRes{Success: true, Message: "btrobot got it"}, nil
			},
		})
		require.NoError(t, err)
		require.IsType(t, std_srvs.SetBoolRes{}, res)
		require.NoError(t, n.master.RegisterService("/btrobot_set", "rosrpc://"+n.tcp.Addr().String(), n.slave.URL()))
		out := rostest.Run(t, uri, 30*time.Second, "rosservice", "call", "/btrobot_set", "data: true")
		assert.Contains(t, out, "success: True")
		assert.Contains(t, out, `message: "btrobot got it"`)

		// The peer calls as soon as the master lists /btrobot_set.
		for range 2 {
			assert.Equal(t, "reply True btrobot got it", peer.WaitLine(t, "reply ", 30*time.Second))
		}
		assert.Contains(t, peer.WaitLine(t, "error ", 30*time.Second), "error service [/btrobot_set] responded with an error: b'"+assert.AnError.Error())
		peer.WaitLine(t, "done", 30*time.Second)
	})

	t.Run("our client to rospy's service", func(t *testing.T) {
		n := newTestNode(t, uri, "/btrobot_client")
		rosrpc, err := n.master.LookupService("/rospy_set")
		require.NoError(t, err)
		u, err := url.Parse(rosrpc)
		require.NoError(t, err)
		md5, err := serviceproc.MD5(std_srvs.SetBool{})
		require.NoError(t, err)
		for _, persistent := range []bool{false, true} {
			c := tcpros.NewServiceClient(tcpros.ServiceClientConf{Addr: u.Host, CallerID: n.name, Service: "/rospy_set", MD5: md5, Persistent: persistent})
			for range 2 {
				var res std_srvs.SetBoolRes
				require.NoError(t, c.Call(context.Background(), &std_srvs.SetBoolReq{Data: true}, &res))
				assert.Equal(t, std_srvs.SetBoolRes{Success: true, Message: "rospy got True"}, res)
			}
			var res std_srvs.SetBoolRes
			err := c.Call(context.Background(), &std_srvs.SetBoolReq{Data: false}, &res)
			require.ErrorIs(t, err, tcpros.ErrServiceFailed)
			assert.ErrorContains(t, err, "refused")
			c.Close()
		}
	})
}
