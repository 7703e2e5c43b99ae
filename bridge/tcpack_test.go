package bridge

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apislave"
	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/prototcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

// tcprosPort asks the node's own slave API for its TCPROS port, as a
// subscriber of topic would.
func tcprosPort(t *testing.T, c *ros.Conn, topic string) int {
	t.Helper()
	u, err := url.Parse(c.SlaveURI())
	require.NoError(t, err)
	res, err := apislave.NewClient(u.Host, "/stuck", &http.Client{Timeout: 5 * time.Second}).RequestTopic(topic, [][]any{{"TCPROS"}})
	require.NoError(t, err)
	require.Len(t, res, 3, "requestTopic's answer")
	switch p := res[2].(type) {
	case int:
		return p
	case int32:
		return int(p)
	}
	require.FailNow(t, fmt.Sprintf("requestTopic answered %v", res))
	return 0
}

// stuckSubscriber connects to the node's TCPROS port as a subscriber of
// topic, with a small receive buffer, and never reads: once the buffer is
// full, what the node writes stays unacknowledged in its send queue.
func stuckSubscriber(t *testing.T, c *ros.Conn, topic string) net.Conn {
	t.Helper()
	port := tcprosPort(t, c, topic)
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 2048)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	nc, err := d.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	md5, err := msgproc.MD5(geometry_msgs.Twist{})
	require.NoError(t, err)
	tc := prototcp.NewConn(nc)
	require.NoError(t, tc.WriteHeader(&prototcp.HeaderSubscriber{
		Callerid: "/stuck", Topic: topic, Type: "geometry_msgs/Twist", Md5sum: md5, TcpNodelay: 1,
	}))
	raw, err := tc.ReadHeaderRaw()
	require.NoError(t, err)
	require.NotContains(t, raw, "error", "the publisher refused the stuck subscriber: %v", raw)
	return nc
}

// TestStopCountsOnlySubscribersThatAcknowledged: the zero velocity counts
// as delivered to a subscriber only when the peers' TCP acknowledged it. A
// subscriber that never reads (its window full) is not counted: alone, the
// stop is NOT delivered; beside one that reads, it is delivered to at least
// that one, and the report says one connection did not acknowledge.
func TestStopCountsOnlySubscribersThatAcknowledged(t *testing.T) {
	cases := []struct {
		name      string
		reader    bool
		stuck     bool
		delivered bool
		want      string
	}{
		{"a subscriber that reads", true, false, true, "zero velocity sent on /cmd_vel and delivered to 1 subscriber"},
		{"a subscriber that never reads", false, true, false, "zero velocity NOT delivered on /cmd_vel: 1 of the node's connections did not acknowledge"},
		{"one of each", true, true, true, "zero velocity sent on /cmd_vel and delivered to at least 1 subscriber (1 of the node's connections did not acknowledge it)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			c := connect(t, uri, "btrobot")
			p := profile(t, velocityProfile)
			tree := buildTree(t, Deps{Conn: c, Profile: p}, `<root BTCPP_format="4"><BehaviorTree ID="M"><AlwaysSuccess/></BehaviorTree></root>`)
			b, err := NewBridge(BridgeConf{Conn: c, Profile: p, Tree: tree})
			require.NoError(t, err)
			defer b.Close()
			want := 0
			var log *twistLog
			if tc.reader {
				log = watchTwists(t, uri, "/cmd_vel")
				want++
			}
			if tc.stuck {
				stuckSubscriber(t, c, "/cmd_vel")
				want++
			}
			waitSubscribers(t, c, "/cmd_vel", want)
			if tc.stuck {
				// Fill the stuck subscriber's window: the node's send
				// queue to it stays full.
				pub, err := ros.NewPublisher(ros.PublisherConf{Conn: c, Topic: "/cmd_vel", Msg: geometry_msgs.Twist{}})
				require.NoError(t, err)
				defer pub.Close()
				require.EventuallyWithT(t, func(ct *assert.CollectT) {
					for i := 0; i < 50; i++ {
						pub.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.5}}) //nolint:errcheck
					}
					time.Sleep(20 * time.Millisecond)
					n, ok := c.Unacknowledged("/cmd_vel", time.Now())
					require.True(ct, ok, "the kernel's TCP table cannot be read")
					assert.Positive(ct, n)
				}, 20*time.Second, 5*time.Millisecond, "a send queue of the node stays full")
			}
			start := time.Now()
			rep := b.Stop()
			took := time.Since(start)
			assert.Equal(t, tc.delivered, rep.Delivered, "%v", rep)
			assert.True(t, strings.HasPrefix(rep.String(), tc.want), "%q does not begin with %q", rep.String(), tc.want)
			assert.Less(t, took, stopTimeout+time.Second, "Stop is bounded")
			if tc.reader {
				require.Eventually(t, func() bool {
					last, ok := log.last()
					return ok && last.x == 0
				}, 5*time.Second, 5*time.Millisecond, "the reading subscriber receives the zero velocity")
			}
		})
	}
}
