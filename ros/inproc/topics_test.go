package inproc

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPublishSubscribe(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, g *Graph)
	}{
		{"each subscriber gets its own copy, in order", func(t *testing.T, g *Graph) {
			pub := publisher(t, newNode(t, g, "/sim"), "/scan", scanType, false)
			ctl := newNode(t, g, "/ctl")
			_, r1 := subscribe(t, ctl, "/scan", scanType, 0)
			_, r2 := subscribe(t, newNode(t, g, "/viewer"), "/scan", scanType, 0)
			msg := &scan{Ranges: []float32{1, 2, 3}}
			for i := range 50 {
				msg.Header.Seq = uint32(i)
				n, err := pub.Publish(msg)
				require.NoError(t, err)
				require.Equal(t, 2, n, "handed to both subscribers")
			}
			msg.Ranges[0] = 99 // the publisher reuses its message
			got1, got2 := r1.waitCount(t, 50), r2.waitCount(t, 50)
			for i := range 50 {
				a, b := got1[i].(*scan), got2[i].(*scan)
				assert.Equal(t, uint32(i), a.Header.Seq, "in order")
				assert.Equal(t, []float32{1, 2, 3}, a.Ranges, "copied when published")
				a.Ranges[1] = -1
				assert.Equal(t, float32(2), b.Ranges[1], "subscribers share nothing")
			}
		}},
		{"a value publishes as well as a pointer", func(t *testing.T, g *Graph) {
			pub := publisher(t, newNode(t, g, "/a"), "/cmd_vel", twistType, false)
			_, r := subscribe(t, newNode(t, g, "/b"), "/cmd_vel", twistType, 0)
			_, err := pub.Publish(twist{Linear: [3]float64{0.5}})
			require.NoError(t, err)
			assert.Equal(t, &twist{Linear: [3]float64{0.5}}, r.waitCount(t, 1)[0])
		}},
		{"a message of another type is refused", func(t *testing.T, g *Graph) {
			pub := publisher(t, newNode(t, g, "/a"), "/cmd_vel", twistType, false)
			_, err := pub.Publish(&scan{})
			require.ErrorContains(t, err, "publish on /cmd_vel: want a geometry_msgs/Twist (inproc.twist), got *inproc.scan")
			_, err = pub.Publish(nil)
			require.Error(t, err)
		}},
		{"latched: a late subscriber gets the last message, once", func(t *testing.T, g *Graph) {
			pub := publisher(t, newNode(t, g, "/map_server"), "/map", scanType, true)
			for i := range 3 {
				_, err := pub.Publish(&scan{Header: header{Seq: uint32(i)}})
				require.NoError(t, err)
			}
			_, r := subscribe(t, newNode(t, g, "/late"), "/map", scanType, 0)
			got := r.waitCount(t, 1)
			assert.Equal(t, uint32(2), got[0].(*scan).Header.Seq)
			n, err := pub.Publish(&scan{Header: header{Seq: 3}})
			require.NoError(t, err)
			require.Equal(t, 1, n)
			got = r.waitCount(t, 2)
			assert.Len(t, got, 2)
			assert.Equal(t, uint32(3), got[1].(*scan).Header.Seq)
		}},
		{"not latched: a late subscriber gets only what comes after", func(t *testing.T, g *Graph) {
			pub := publisher(t, newNode(t, g, "/a"), "/t", scanType, false)
			_, err := pub.Publish(&scan{Header: header{Seq: 1}})
			require.NoError(t, err)
			_, r := subscribe(t, newNode(t, g, "/b"), "/t", scanType, 0)
			_, err = pub.Publish(&scan{Header: header{Seq: 2}})
			require.NoError(t, err)
			got := r.waitCount(t, 1)
			assert.Equal(t, uint32(2), got[0].(*scan).Header.Seq)
		}},
		{"a latched message leaves with its publisher", func(t *testing.T, g *Graph) {
			pub := publisher(t, newNode(t, g, "/a"), "/t", scanType, true)
			_, err := pub.Publish(&scan{Header: header{Seq: 1}})
			require.NoError(t, err)
			pub.Close()
			pub2 := publisher(t, newNode(t, g, "/c"), "/t", scanType, false)
			_, r := subscribe(t, newNode(t, g, "/b"), "/t", scanType, 0)
			_, err = pub2.Publish(&scan{Header: header{Seq: 2}})
			require.NoError(t, err)
			assert.Equal(t, uint32(2), r.waitCount(t, 1)[0].(*scan).Header.Seq)
			_, err = pub.Publish(&scan{})
			require.ErrorContains(t, err, "the publisher is closed")
		}},
		{"the delivery count follows the live subscribers", func(t *testing.T, g *Graph) {
			pub := publisher(t, newNode(t, g, "/ctl"), "/cmd_vel", twistType, false)
			count := func() int {
				n, err := pub.Publish(&twist{})
				require.NoError(t, err)
				return n
			}
			require.Equal(t, 0, count(), "nobody listens")
			s1, _ := subscribe(t, newNode(t, g, "/base"), "/cmd_vel", twistType, 0)
			_, _ = subscribe(t, newNode(t, g, "/logger"), "/cmd_vel", twistType, 0)
			require.Equal(t, 2, count())
			require.Equal(t, 2, pub.Subscribers())
			require.ElementsMatch(t, []string{"/base", "/logger"}, pub.Peers())
			s1.Close()
			require.Equal(t, 1, count())
			dead := newNode(t, g, "/dead")
			_, _ = subscribe(t, dead, "/cmd_vel", twistType, 0)
			require.Equal(t, 2, count())
			dead.Kill()
			require.Equal(t, 1, count(), "a dead subscriber gets nothing")
			require.Equal(t, 1, pub.Subscribers())
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, NewGraph()) })
	}
}

func TestQueueDropsOldest(t *testing.T) {
	cases := []struct {
		name      string
		queue     int
		published int
		// want are the sequence numbers the callback sees, the first held
		// in the callback while the others are published.
		want    []uint32
		dropped uint64
	}{
		{"room for all", 10, 5, []uint32{0, 1, 2, 3, 4}, 0},
		{"queue of 2: the newest two are kept", 2, 6, []uint32{0, 4, 5}, 3},
		{"queue of 1: the newest is kept", 1, 4, []uint32{0, 3}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			pub := publisher(t, newNode(t, g, "/fast"), "/t", scanType, false)
			inCallback, release := make(chan struct{}), make(chan struct{})
			r := &received{}
			sub, err := newNode(t, g, "/slow").NewSubscriber(SubscriberConf{Topic: "/t", Type: scanType, QueueSize: tc.queue,
				Callback: func(m any) {
					if m.(*scan).Header.Seq == 0 {
						close(inCallback)
						<-release
					}
					r.add(m)
				}})
			require.NoError(t, err)
			for i := range tc.published {
				n, err := pub.Publish(&scan{Header: header{Seq: uint32(i)}})
				require.NoError(t, err)
				require.Equal(t, 1, n, "a full queue still takes the new message")
				if i == 0 {
					<-inCallback
				}
			}
			assert.Equal(t, tc.dropped, sub.Dropped())
			close(release)
			got := r.waitCount(t, len(tc.want))
			var seqs []uint32
			for _, m := range got {
				seqs = append(seqs, m.(*scan).Header.Seq)
			}
			assert.Equal(t, tc.want, seqs)
		})
	}
}

func TestTopicTypes(t *testing.T) {
	type twist2 twist
	otherGo := Type{Name: twistType.Name, MD5: twistType.MD5, Go: reflect.TypeFor[twist2]()}
	cases := []struct {
		name  string
		first Type
		then  Type
		err   string // "" when the second endpoint is accepted
	}{
		{"same type", twistType, twistType, ""},
		{"any md5", twistType, Type{Name: twistType.Name, MD5: "*", Go: twistType.Go}, ""},
		{"another ROS type", twistType, scanType, "as sensor_msgs/LaserScan (md5 90c7ef2dc6895d81024acba2ac42f369): type mismatch: the topic is geometry_msgs/Twist (md5 9f195f881246fdfa2798d1d3eebca84a)"},
		{"another md5sum", twistType, Type{Name: twistType.Name, MD5: "0123", Go: twistType.Go}, "type mismatch"},
		{"another Go type", twistType, otherGo, "held by Go type inproc.twist, not inproc.twist2"},
	}
	for _, tc := range cases {
		for _, order := range []string{"publisher first", "subscriber first"} {
			t.Run(tc.name+", "+order, func(t *testing.T) {
				g := NewGraph()
				a, b := newNode(t, g, "/a"), newNode(t, g, "/b")
				var err error
				if order == "publisher first" {
					publisher(t, a, "/t", tc.first, false)
					_, err = b.NewSubscriber(SubscriberConf{Topic: "/t", Type: tc.then})
				} else {
					subscribe(t, a, "/t", tc.first, 0)
					_, err = b.NewPublisher(PublisherConf{Topic: "/t", Type: tc.then})
				}
				if tc.err == "" {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, ErrTypeMismatch)
				assert.ErrorContains(t, err, tc.err)
			})
		}
	}
	t.Run("a topic forgets its type once nobody uses it", func(t *testing.T) {
		g := NewGraph()
		n := newNode(t, g, "/a")
		p := publisher(t, n, "/t", twistType, false)
		p.Close()
		publisher(t, n, "/t", scanType, false)
	})
}

func TestEndpointErrors(t *testing.T) {
	g := NewGraph()
	n := newNode(t, g, "/a")
	closed := newNode(t, g, "/closed")
	require.NoError(t, closed.Close())
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"relative topic", errOf(n.NewPublisher(PublisherConf{Topic: "cmd_vel", Type: twistType})), `topic name "cmd_vel": not a global name`},
		{"bad character", errOf(n.NewSubscriber(SubscriberConf{Topic: "/cmd vel", Type: twistType})), `' ' is not allowed`},
		{"no type name", errOf(n.NewPublisher(PublisherConf{Topic: "/t", Type: Type{Go: twistType.Go}})), "no ROS type name"},
		{"no Go type", errOf(n.NewPublisher(PublisherConf{Topic: "/t", Type: Type{Name: "x/Y"}})), "its Go type is a struct"},
		{"a type that cannot be copied", errOf(n.NewSubscriber(SubscriberConf{Topic: "/t", Type: Type{Name: "x/Y", Go: reflect.TypeFor[struct{ C chan int }]()}})), "a message holds no chan"},
		{"closed node publishes", errOf(closed.NewPublisher(PublisherConf{Topic: "/t", Type: twistType})), "the node is closed"},
		{"closed node subscribes", errOf(closed.NewSubscriber(SubscriberConf{Topic: "/t", Type: twistType})), "the node is closed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			assert.Contains(t, tc.err.Error(), tc.want)
		})
	}
}

func errOf[T any](_ T, err error) error { return err }

func TestPeerLoss(t *testing.T) {
	cases := []struct {
		name string
		// end ends the publisher's node.
		end func(*Node)
		// lost are the nodes the subscriber is told it lost.
		lost []string
		// registered: the master still lists the publisher.
		registered bool
		ping       string // Ping's error for the publisher's node, "" for none
	}{
		{"killed: the subscriber is told, the registration stays", (*Node).Kill, []string{"/sim"}, true, "node /sim does not answer: it died"},
		{"closed: the subscriber is told, the registration goes", func(n *Node) { n.Close() }, []string{"/sim"}, false, "no node named /sim is registered"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			simNode := newNode(t, g, "/sim")
			pub := publisher(t, simNode, "/clock", scanType, false)
			sub, r := subscribe(t, newNode(t, g, "/ctl"), "/clock", scanType, 0)
			_, err := pub.Publish(&scan{Header: header{Seq: 7}})
			require.NoError(t, err)
			require.Equal(t, 1, sub.Publishers())
			tc.end(simNode)
			<-simNode.Done()
			r.waitCount(t, 1) // the message before the loss is delivered first
			if tc.lost != nil {
				require.Eventually(t, func() bool { return len(r.lostNodes()) == len(tc.lost) }, 10*time.Second, time.Millisecond)
			}
			assert.Equal(t, tc.lost, r.lostNodes())
			assert.Equal(t, 0, sub.Publishers())
			_, err = pub.Publish(&scan{})
			require.Error(t, err)
			assert.Equal(t, tc.registered, len(g.Topics()["/clock"].Publishers) == 1, "registration of the publisher: %v", g.Topics())
			require.EqualError(t, g.Ping("/sim"), tc.ping)
			require.NoError(t, g.Ping("/ctl"))
		})
	}
}

func TestSameNameShutsTheFirstDown(t *testing.T) {
	g := NewGraph()
	sub, r := subscribe(t, newNode(t, g, "/base"), "/cmd_vel", twistType, 0)
	type shutdown struct {
		caller, reason string
		delivered      int
		err            error
	}
	got := make(chan shutdown, 1)
	var pub *Publisher
	first, err := g.NewNode(NodeConf{Name: "/robot1/btrobot", OnShutdown: func(caller, reason string) {
		// The robot is stopped over the still-live publisher.
		n, err := pub.Publish(&twist{})
		got <- shutdown{caller, reason, n, err}
	}})
	require.NoError(t, err)
	pub = publisher(t, first, "/cmd_vel", twistType, false)
	second := newNode(t, g, "/robot1/btrobot")
	s := <-got
	require.NoError(t, s.err)
	assert.Equal(t, shutdown{"/robot1/btrobot", "new node registered with same name", 1, nil}, s)
	<-first.Done()
	r.waitCount(t, 1)
	assert.Empty(t, g.Topics()["/cmd_vel"].Publishers, "the first node's registrations are gone")
	assert.Equal(t, []string{"/base", "/robot1/btrobot"}, g.Nodes())
	_, err = pub.Publish(&twist{})
	require.Error(t, err)
	_, err = second.NewPublisher(PublisherConf{Topic: "/cmd_vel", Type: twistType})
	require.NoError(t, err, "the second node lives")
	require.Equal(t, uint64(0), sub.Dropped())

	t.Run("ShutdownNode, as rosnode kill", func(t *testing.T) {
		reasons := make(chan string, 1)
		n, err := g.NewNode(NodeConf{Name: "/victim", OnShutdown: func(_, reason string) { reasons <- reason }})
		require.NoError(t, err)
		require.NoError(t, g.ShutdownNode("/victim", "user request"))
		assert.Equal(t, "user request", <-reasons)
		<-n.Done()
		require.EqualError(t, g.ShutdownNode("/victim", "again"), "no node named /victim is registered")
	})
	t.Run("a dead node's name taken: its registrations are dropped", func(t *testing.T) {
		dead := newNode(t, g, "/crashed")
		publisher(t, dead, "/odom", scanType, false)
		dead.Kill()
		require.Len(t, g.Topics()["/odom"].Publishers, 1)
		newNode(t, g, "/crashed")
		assert.Empty(t, g.Topics()["/odom"].Publishers)
		require.NoError(t, g.Ping("/crashed"))
	})
}

func TestNodeCloseWaitsForCallbacks(t *testing.T) {
	g := NewGraph()
	pub := publisher(t, newNode(t, g, "/a"), "/t", scanType, false)
	n := newNode(t, g, "/b")
	in, release := make(chan struct{}), make(chan struct{})
	finished := make(chan struct{})
	_, err := n.NewSubscriber(SubscriberConf{Topic: "/t", Type: scanType, Callback: func(any) {
		close(in)
		<-release
		close(finished)
	}})
	require.NoError(t, err)
	_, err = pub.Publish(&scan{})
	require.NoError(t, err)
	<-in
	closed := make(chan struct{})
	go func() { n.Close(); close(closed) }()
	select {
	case <-closed:
		require.FailNow(t, "Close returned while a callback ran")
	case <-n.Done(): // unregistered at once
	}
	close(release)
	<-closed
	select {
	case <-finished:
	default:
		require.FailNow(t, "the callback had not finished")
	}
}

func TestSubscriberCloseFromItsCallback(t *testing.T) {
	g := NewGraph()
	pub := publisher(t, newNode(t, g, "/a"), "/t", scanType, false)
	var sub *Subscriber
	calls := make(chan int, 10)
	n := 0
	sub, err := newNode(t, g, "/b").NewSubscriber(SubscriberConf{Topic: "/t", Type: scanType, Callback: func(any) {
		n++
		calls <- n
		sub.Close()
	}})
	require.NoError(t, err)
	for range 3 {
		_, err = pub.Publish(&scan{})
		require.NoError(t, err)
	}
	require.Equal(t, 1, <-calls)
	require.Eventually(t, func() bool { return pub.Subscribers() == 0 }, 10*time.Second, time.Millisecond)
	assert.Len(t, calls, 0, "no callback after Close")
}

// BenchmarkPublish hands messages from one publisher to one subscriber
// through the graph: copy, queue and callback.
func BenchmarkPublish(b *testing.B) {
	for _, bc := range []struct {
		name string
		typ  Type
		msg  any
	}{
		{"Twist", twistType, &twist{}},
		{"LaserScan360", scanType, &scan{Ranges: make([]float32, 360)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g := NewGraph()
			a, _ := g.NewNode(NodeConf{Name: "/a"})
			c, _ := g.NewNode(NodeConf{Name: "/b"})
			defer a.Close()
			defer c.Close()
			pub, _ := a.NewPublisher(PublisherConf{Topic: "/t", Type: bc.typ})
			got := make(chan struct{}, 1)
			_, err := c.NewSubscriber(SubscriberConf{Topic: "/t", Type: bc.typ, QueueSize: 1, Callback: func(any) { got <- struct{}{} }})
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pub.Publish(bc.msg); err != nil {
					require.NoError(b, err) // guarded: the loop pays for the check only on failure
				}
				<-got
			}
		})
	}
}
