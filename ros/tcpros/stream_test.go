package tcpros_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// inbox collects a subscription's messages.
type inbox struct {
	mu   sync.Mutex
	msgs []any
}

func (b *inbox) add(m any) { b.mu.Lock(); b.msgs = append(b.msgs, m); b.mu.Unlock() }
func (b *inbox) all() []any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]any(nil), b.msgs...)
}

func subscribe(t *testing.T, s *tcpros.Server, topic string, m any, conf tcpros.SubscriberConf) (*tcpros.Subscription, *inbox, error) {
	t.Helper()
	name, md5, def := typeOf(t, m)
	box := &inbox{}
	conf.Addr, conf.Topic, conf.Msg, conf.OnMessage = s.Addr().String(), topic, m, box.add
	if conf.CallerID == "" {
		conf.CallerID = "/listener"
	}
	if conf.Type == "" {
		conf.Type, conf.MD5, conf.Definition = name, md5, def
	}
	sub, err := tcpros.Subscribe(context.Background(), conf)
	if err == nil {
		t.Cleanup(sub.Close)
	}
	return sub, box, err
}

// TestTopicStream: what a publisher publishes reaches each subscriber, in
// order, decoded; the headers carry what ROS peers read.
func TestTopicStream(t *testing.T) {
	for _, c := range []struct {
		name    string
		latch   bool
		before  int // messages published before the subscriber connects
		after   int
		want    []float64
		latched string
	}{
		{"plain", false, 0, 3, []float64{1, 2, 3}, "0"},
		{"latched: the last one first", true, 2, 2, []float64{2, 3, 4}, "1"},
		{"not latched: nothing from before", false, 2, 1, []float64{3}, "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, tcpros.ServerConf{})
			p := publish(t, s, "/cmd_vel", &geometry_msgs.Twist{}, c.latch)
			n := 0.0
			pub := func(k int) {
				for range k {
					n++
					require.NoError(t, p.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: n}}))
				}
			}
			pub(c.before)
			sub, box, err := subscribe(t, s, "/cmd_vel", &geometry_msgs.Twist{}, tcpros.SubscriberConf{TCPNoDelay: true})
			require.NoError(t, err)
			assert.Equal(t, c.latched, sub.Header()["latching"])
			assert.Equal(t, "/btrobot_test", sub.Header()["callerid"])
			require.Eventually(t, func() bool { return len(p.Subscribers()) == 1 }, 10*time.Second, time.Millisecond)
			pub(c.after)
			require.Eventually(t, func() bool { return len(box.all()) == len(c.want) }, 10*time.Second, time.Millisecond)
			var got []float64
			for _, m := range box.all() {
				got = append(got, m.(*geometry_msgs.Twist).Linear.X)
			}
			assert.Equal(t, c.want, got)
			assert.Equal(t, []string{"/listener"}, p.Subscribers())
		})
	}
}

// TestTopicRefused: a subscriber asking for another type, an unknown
// topic or without a name is refused with the reason in its error.
func TestTopicRefused(t *testing.T) {
	s := newServer(t, tcpros.ServerConf{})
	publish(t, s, "/cmd_vel", &geometry_msgs.Twist{}, false)
	_, md5, _ := typeOf(t, &std_msgs.String{})
	for _, c := range []struct {
		name  string
		topic string
		conf  tcpros.SubscriberConf
		err   string
	}{
		{"another md5sum", "/cmd_vel", tcpros.SubscriberConf{Type: "std_msgs/String", MD5: md5}, `refused: topic /cmd_vel: md5sum "992ce8a1687cec8c8bd883ec73ca41d1", this node's is "9f195f881246fdfa2798d1d3eebca84a"`},
		{"another type, any md5", "/cmd_vel", tcpros.SubscriberConf{Type: "std_msgs/String", MD5: "*"}, `refused: topic /cmd_vel: type "std_msgs/String", this node's is "geometry_msgs/Twist"`},
		{"unknown topic", "/odom", tcpros.SubscriberConf{}, `refused: node /btrobot_test does not publish "/odom"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := subscribe(t, s, c.topic, &geometry_msgs.Twist{}, c.conf)
			assert.ErrorContains(t, err, c.err)
		})
	}
}

// TestSlowSubscriber: a subscriber that reads nothing loses its oldest
// messages and is closed after the write timeout, while another one gets
// every message and the publisher never waits. (The one that reads must
// not be starved of the CPU for a write timeout: half a second, not
// 300 ms, on a loaded machine.)
func TestSlowSubscriber(t *testing.T) {
	s := newServer(t, tcpros.ServerConf{WriteTimeout: 500 * time.Millisecond})
	name, md5, def := typeOf(t, &std_msgs.String{})
	p, err := s.Publish(tcpros.PublisherConf{Topic: "/big", Type: name, MD5: md5, Definition: def, Queue: 1000})
	require.NoError(t, err)

	// The slow one: handshakes, then never reads.
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, tcpros.WriteHeader(c, tcpros.Header{"callerid": "/slow", "topic": "/big", "md5sum": md5, "type": name}))
	_, err = tcpros.ReadHeader(c, tcpros.HeaderLimits{})
	require.NoError(t, err)
	_, box, err := subscribe(t, s, "/big", &std_msgs.String{}, tcpros.SubscriberConf{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(p.Subscribers()) == 2 }, 10*time.Second, time.Millisecond)

	big := string(make([]byte, 256<<10))
	published := 0
	start := time.Now()
	// Publish until the slow subscriber has been dropped: far more than
	// the socket buffers hold.
	for len(p.Subscribers()) == 2 {
		require.NoError(t, p.Publish(&std_msgs.String{Data: big}))
		published++
		require.Less(t, time.Since(start), 30*time.Second, "the slow subscriber is closed")
		for len(box.all()) < published-900 { // keep the good one within its queue
			time.Sleep(time.Millisecond)
		}
	}
	assert.Equal(t, []string{"/listener"}, p.Subscribers())
	require.Eventually(t, func() bool { return len(box.all()) == published }, 20*time.Second, time.Millisecond, "the reading subscriber got all %d", published)
}

// TestASlowReaderOfABigMessageIsNotClosed: a subscriber that reads a
// message of 32 MB slowly (64 kB every 10 ms at most: five seconds or more
// for the message, more than twice the write timeout) is not closed: it
// takes some of the message within each timeout, and gets it whole. (The
// kernel wakes a blocked writer once half of the socket's send buffer has
// drained, up to 2 MB here: the reader must read that much within a
// timeout. At 32 kB every 10 ms and a 500 ms timeout it did not, on a
// doubled suite.)
func TestASlowReaderOfABigMessageIsNotClosed(t *testing.T) {
	const timeout = 2 * time.Second
	p, c := rawSubscriber(t, tcpros.ServerConf{WriteTimeout: timeout}, "/map", 1, "/slow_link")

	const size = 32 << 20
	require.NoError(t, p.Publish(&std_msgs.String{Data: string(make([]byte, size))}))
	start := time.Now()
	want := 4 + 4 + size // the frame's length, the string's, the bytes
	got := 0
	buf := make([]byte, 64<<10)
	for got < want {
		n, err := c.Read(buf[:min(len(buf), want-got)])
		got += n
		if err != nil {
			require.NoError(t, err, "closed after %d of %d bytes, %v after the publish", got, want, time.Since(start))
		}
		time.Sleep(10 * time.Millisecond) // a slow link
	}
	took := time.Since(start)
	t.Logf("read %d bytes in %v", got, took)
	assert.Greater(t, took, timeout, "the message took longer than the write timeout to read")
	assert.Equal(t, []string{"/slow_link"}, p.Subscribers())
}

// rawSubscriber starts a server with conf publishing std_msgs/String on
// topic with a queue of queue messages, and subscribes to it as callerID
// over a bare connection that reads nothing unless the test does (closed
// when the test ends).
func rawSubscriber(t *testing.T, conf tcpros.ServerConf, topic string, queue int, callerID string) (*tcpros.Publisher, net.Conn) {
	t.Helper()
	s := newServer(t, conf)
	name, md5, def := typeOf(t, &std_msgs.String{})
	p, err := s.Publish(tcpros.PublisherConf{Topic: topic, Type: name, MD5: md5, Definition: def, Queue: queue})
	require.NoError(t, err)
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, tcpros.WriteHeader(c, tcpros.Header{"callerid": callerID, "topic": topic, "md5sum": md5, "type": name}))
	_, err = tcpros.ReadHeader(c, tcpros.HeaderLimits{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(p.Subscribers()) == 1 }, 10*time.Second, time.Millisecond)
	return p, c
}

// TestQueueDropsOldest: messages beyond a subscriber's queue drop the
// oldest, counted.
func TestQueueDropsOldest(t *testing.T) {
	p, _ := rawSubscriber(t, tcpros.ServerConf{WriteTimeout: time.Minute}, "/big", 2, "/slow")
	big := string(make([]byte, 1<<20))
	for range 50 { // 50 MiB: more than loopback's buffers hold
		require.NoError(t, p.Publish(&std_msgs.String{Data: big}))
	}
	assert.Greater(t, p.Dropped(), uint64(0))
}

// TestCloseWritesWhatWasPublished: what was published before Close reaches
// a subscriber that reads (a goodbye published last is heard), a
// subscriber that reads nothing holds Close for CloseLinger at most, and
// Close may be called twice at once.
func TestCloseWritesWhatWasPublished(t *testing.T) {
	const published = 50
	for _, c := range []struct {
		name  string
		reads bool
	}{
		{"a subscriber that reads gets every message, then the end", true},
		{"a subscriber that reads nothing does not hold Close", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, tcpros.ServerConf{WriteTimeout: time.Minute})
			name, md5, def := typeOf(t, &std_msgs.String{})
			p, err := s.Publish(tcpros.PublisherConf{Topic: "/bye", Type: name, MD5: md5, Definition: def, Queue: published})
			require.NoError(t, err)
			var sub *tcpros.Subscription
			var box *inbox
			if c.reads {
				sub, box, err = subscribe(t, s, "/bye", &std_msgs.String{}, tcpros.SubscriberConf{})
				require.NoError(t, err)
			} else {
				conn, err := net.Dial("tcp", s.Addr().String())
				require.NoError(t, err)
				defer conn.Close()
				require.NoError(t, tcpros.WriteHeader(conn, tcpros.Header{"callerid": "/deaf", "topic": "/bye", "md5sum": md5, "type": name}))
				_, err = tcpros.ReadHeader(conn, tcpros.HeaderLimits{})
				require.NoError(t, err)
			}
			require.Eventually(t, func() bool { return len(p.Subscribers()) == 1 }, 10*time.Second, time.Millisecond)
			data := "goodbye"
			if !c.reads {
				data = string(make([]byte, 1<<20)) // more than the socket buffers hold
			}
			for range published {
				require.NoError(t, p.Publish(&std_msgs.String{Data: data}))
			}
			// Closed twice at once, as a node's close and a timed-out
			// unregistration's may.
			closed := make(chan struct{}, 2)
			for range 2 {
				go func() { p.Close(); closed <- struct{}{} }()
			}
			for range 2 {
				select {
				case <-closed:
				case <-time.After(tcpros.CloseLinger + 10*time.Second):
					require.FailNow(t, "Close never returned")
				}
			}
			if !c.reads {
				return
			}
			select {
			case <-sub.Done():
			case <-time.After(10 * time.Second):
				require.FailNow(t, "the subscription never saw the publisher close")
			}
			assert.Len(t, box.all(), published, "messages published before Close")
		})
	}
}
