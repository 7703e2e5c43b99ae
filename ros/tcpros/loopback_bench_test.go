package tcpros_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// BenchmarkLoopbackTwist: one Twist published and received over loopback
// TCP, the next published when the last has arrived (what a lockstep tick
// pays per message), btrobot's wire beside goroslib's.
func BenchmarkLoopbackTwist(b *testing.B) {
	msg := &geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.4}}
	b.Run("btrobot", func(b *testing.B) {
		s, err := tcpros.NewServer(tcpros.ServerConf{CallerID: "/bench"})
		require.NoError(b, err)
		defer s.Close()
		name, md5, def := typeOf(b, msg)
		p, err := s.Publish(tcpros.PublisherConf{Topic: "/cmd", Type: name, MD5: md5, Definition: def})
		require.NoError(b, err)
		got := make(chan struct{}, 1)
		sub, err := tcpros.Subscribe(context.Background(), tcpros.SubscriberConf{
			Addr: s.Addr().String(), CallerID: "/sub", Topic: "/cmd", Type: name, MD5: md5, Msg: msg, TCPNoDelay: true,
			OnMessage: func(any) { got <- struct{}{} },
		})
		require.NoError(b, err)
		defer sub.Close()
		require.Eventually(b, func() bool { return len(p.Subscribers()) == 1 }, 10*time.Second, time.Millisecond)
		b.ReportAllocs()
		for b.Loop() {
			require.NoError(b, p.Publish(msg))
			<-got
		}
	})
	b.Run("goroslib", func(b *testing.B) {
		u, err := url.Parse(rostest.StartMaster(b))
		require.NoError(b, err)
		newNode := func(name string) *goroslib.Node {
			n, err := goroslib.NewNode(goroslib.NodeConf{Name: name, MasterAddress: u.Host, Host: "127.0.0.1"})
			require.NoError(b, err)
			return n
		}
		pn, sn := newNode("bench_pub"), newNode("bench_sub")
		defer pn.Close()
		defer sn.Close()
		p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: pn, Topic: "/cmd", Msg: &geometry_msgs.Twist{}})
		require.NoError(b, err)
		defer p.Close()
		got := make(chan struct{}, 1)
		s, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: sn, Topic: "/cmd", Callback: func(*geometry_msgs.Twist) { got <- struct{}{} }})
		require.NoError(b, err)
		defer s.Close()
		// Connected once a message gets through.
		require.Eventually(b, func() bool {
			p.Write(msg)
			select {
			case <-got:
				return true
			case <-time.After(10 * time.Millisecond):
				return false
			}
		}, 10*time.Second, time.Millisecond)
		for len(got) > 0 {
			<-got
		}
		b.ReportAllocs()
		for b.Loop() {
			p.Write(msg)
			<-got
		}
	})
}
