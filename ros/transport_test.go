package ros

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/inproc"
	"github.com/btrobot/btrobot/ros/rostest"
)

// The transport conformance suite: every behaviour a mission can see of
// its transport, run over TCPROS (btrobot's own wire, the default, on the
// embedded master and on Debian's rosmaster; goroslib's on the embedded
// master) and over the in-process graph, which must not be told apart.

// transport starts a graph of one kind for a test.
type transport struct {
	name string
	// start starts a graph and returns how nodes join it.
	start func(t *testing.T) *graph
}

// graph is one running graph of a transport.
type graph struct {
	// join connects a node called name with ROS arguments (__ns:=,
	// _param:=); it leaves when the test ends.
	join func(t testing.TB, name string, args ...string) *Conn
	// crashedPublisher starts a node that publishes std_msgs/Float64 on
	// topic until crash is called, which kills it as a crashed process
	// dies: without unregistering. node is its name.
	crashedPublisher func(t *testing.T, topic string) (node string, crash func())
}

var transports = append([]transport{
	{"goroslib", func(t *testing.T) *graph {
		uri := rostest.StartMaster(t)
		return &graph{
			join: func(t testing.TB, name string, args ...string) *Conn {
				return connectWire(t, uri, WireGoroslib, name, args...)
			},
			crashedPublisher: func(t *testing.T, topic string) (string, func()) {
				p := rostest.Start(t, uri, "rostopic", "pub", "-r", "20", topic, "std_msgs/Float64", "data: 1.0", "__name:=crasher")
				return "/crasher", p.Kill
			},
		}
	}},
	{"inproc", func(t *testing.T) *graph {
		g := inproc.NewGraph()
		gr := &graph{join: func(t testing.TB, name string, args ...string) *Conn { return joinGraph(t, g, name, args...) }}
		gr.crashedPublisher = func(t *testing.T, topic string) (string, func()) {
			c := gr.join(t, "crasher")
			pub, err := NewPublisher(PublisherConf{Conn: c, Topic: topic, Msg: &std_msgs.Float64{}})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				for t := time.NewTicker(50 * time.Millisecond); ctx.Err() == nil; <-t.C {
					pub.Publish(&std_msgs.Float64{Data: 1})
				}
			}()
			return "/crasher", func() {
				cancel()
				<-done
				c.wire.(*inprocWire).node.Kill()
			}
		}
		return gr
	}},
}, tcprosTransports()...)

// tcprosTransports are btrobot's own TCPROS wire (the default,
// Conf.Wire = "tcpros") on each master: the embedded one and Debian's
// rosmaster.
func tcprosTransports() []transport {
	var out []transport
	for _, m := range rostest.Masters() {
		out = append(out, transport{"tcpros/" + m.Name, func(t *testing.T) *graph {
			uri := m.Start(t)
			return &graph{
				join: func(t testing.TB, name string, args ...string) *Conn {
					return connectWire(t, uri, WireTCPROS, name, args...)
				},
				crashedPublisher: func(t *testing.T, topic string) (string, func()) {
					p := rostest.Start(t, uri, "rostopic", "pub", "-r", "20", topic, "std_msgs/Float64", "data: 1.0", "__name:=crasher")
					return "/crasher", p.Kill
				},
			}
		}})
	}
	return out
}

// joinGraph connects a node to an in-process graph.
func joinGraph(t testing.TB, g *inproc.Graph, name string, args ...string) *Conn {
	t.Helper()
	conf, rest, err := ConfFromArgs(name, args, func(string) string { return "" })
	require.NoError(t, err)
	require.Empty(t, rest, "not ROS arguments")
	conf.Graph = g
	c, err := Connect(conf)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestTransportConformance(t *testing.T) {
	// A case marked shared runs on one graph with the other shared cases
	// of its transport, for Debian's rosmaster 6 starts fewer (~0.5 core-s
	// each): those cases use topic, service and node names no other case
	// uses, and their nodes leave when the case ends, so none sees what
	// another left. A case that leaves state in the graph or reads the
	// whole of it gets a fresh one: parameters, /use_sim_time, a node
	// shut down by its namesake, a crashed publisher left registered,
	// what the graph offers.
	cases := []struct {
		name   string
		shared bool
		run    func(t *testing.T, g *graph)
	}{
		{"topics between nodes, shared per name, types checked", true, conformTopics},
		{"a latched topic reaches a late subscriber", true, conformLatch},
		{"parameters", false, conformParams},
		{"services: answered, unavailable, failed", true, conformServices},
		{"actions: succeeded, rejected, aborted, preempted, cancelled at once", true, conformActions},
		{"an action client is ready only once every server topic is connected", true, conformActionReady},
		{"/clock drives the SimClock under /use_sim_time", false, conformClock},
		{"a second node of the same name shuts the first down", false, conformSameName},
		{"the delivery check counts the subscribers connected", true, conformDelivery},
		{"a publisher that crashed is told and found dead", false, conformCrash},
		{"what the graph offers", false, conformOffered},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			shared := tr.start(t)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					g := shared
					if !tc.shared {
						g = tr.start(t)
					}
					tc.run(t, g)
				})
			}
		})
	}
}

func conformTopics(t *testing.T, g *graph) {
	a, b := g.join(t, "a"), g.join(t, "b")
	got := make(chan float64, 100)
	sub1, err := Subscribe(b, "/chatter", func(m *std_msgs.Float64) { got <- m.Data })
	require.NoError(t, err)
	sub2, err := NewSubscriber(SubscriberConf{Conn: b, Topic: "chatter", Msg: std_msgs.Float64{}})
	require.NoError(t, err)
	_, err = Subscribe[std_msgs.String](b, "chatter", nil)
	require.ErrorContains(t, err, "already subscribes to it as std_msgs/Float64")
	pub, err := NewPublisher(PublisherConf{Conn: a, Topic: "chatter", Msg: &std_msgs.Float64{}})
	require.NoError(t, err)
	require.ErrorContains(t, pub.Publish(std_msgs.String{}), "want a std_msgs/Float64, got std_msgs.String")
	require.NoError(t, b.WaitSubscribers(context.Background(), "/chatter", 0))
	require.Eventually(t, func() bool {
		n, err := a.Subscribers("/chatter")
		return err == nil && n == 1
	}, 10*time.Second, 5*time.Millisecond, "one subscriber connection for two users")
	for i := range 10 {
		require.NoError(t, pub.Publish(&std_msgs.Float64{Data: float64(i)}))
	}
	for i := range 10 {
		select {
		case v := <-got:
			require.Equal(t, float64(i), v, "in order")
		case <-time.After(10 * time.Second):
			require.FailNow(t, fmt.Sprintf("message %d never came", i))
		}
	}
	m, at, n := sub2.Newest()
	assert.Equal(t, 9.0, m.(*std_msgs.Float64).Data)
	assert.False(t, at.IsZero())
	assert.Equal(t, uint64(10), n)
	sub1.Close()
	sub2.Close()
	pub.Close()
}

func conformLatch(t *testing.T, g *graph) {
	a := g.join(t, "map_server")
	pub, err := NewPublisher(PublisherConf{Conn: a, Topic: "/map_name", Msg: &std_msgs.String{}, Latch: true})
	require.NoError(t, err)
	require.NoError(t, pub.PublishWait(context.Background(), &std_msgs.String{Data: "old"}))
	require.NoError(t, pub.PublishWait(context.Background(), &std_msgs.String{Data: "floor2"}))
	b := g.join(t, "late")
	got := make(chan string, 10)
	_, err = Subscribe(b, "/map_name", func(m *std_msgs.String) { got <- m.Data })
	require.NoError(t, err)
	select {
	case v := <-got:
		assert.Equal(t, "floor2", v)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the latched message never came")
	}
	select {
	case v := <-got:
		require.FailNow(t, fmt.Sprintf("a second message %q", v))
	default:
	}
}

func conformParams(t *testing.T, g *graph) {
	a := g.join(t, "bt", "__ns:=/robot1", "_rate:=20", "_gain:=0.25")
	b := g.join(t, "other")
	require.NoError(t, b.SetParam("/robot1/speed", 0.7))
	require.NoError(t, b.SetParam("/global_flag", false))
	require.NoError(t, b.SetParam("/label", "dock"))
	v, err := a.ParamFloat64("speed")
	require.NoError(t, err)
	assert.Equal(t, 0.7, v)
	r, err := a.ParamInt("~rate")
	require.NoError(t, err)
	assert.Equal(t, 20, r)
	f, err := a.ParamFloat64("~rate")
	require.NoError(t, err)
	assert.Equal(t, 20.0, f, "an integer reads as a number")
	gain, err := b.ParamFloat64("/robot1/bt/gain")
	require.NoError(t, err)
	assert.Equal(t, 0.25, gain)
	flag, err := a.ParamBool("/global_flag")
	require.NoError(t, err)
	assert.False(t, flag)
	s, err := a.ParamString("/label")
	require.NoError(t, err)
	assert.Equal(t, "dock", s)
	ok, err := a.HasParam("~missing")
	require.NoError(t, err)
	assert.False(t, ok)
	ok, err = a.HasParam("/robot1")
	require.NoError(t, err)
	assert.True(t, ok, "a namespace is set")
	_, err = a.ParamInt("~missing")
	require.Error(t, err)
	require.ErrorContains(t, a.SetParam("~list", []int{1}), "cannot be set")
}

func conformServices(t *testing.T, g *graph) {
	p := g.join(t, "provider")
	_, err := NewServiceServer(ServiceServerConf{Conn: p, Name: "/enable", Srv: std_srvs.SetBool{},
		Handler: func(req any) (any, error) {
			if !req.(*std_srvs.SetBoolReq).Data {
				return nil, errors.New("refused")
			}
			return std_srvs.SetBoolRes{Success: true, Message: "on"}, nil
		}})
	require.NoError(t, err)
	c := g.join(t, "caller")
	cl, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "enable", Srv: std_srvs.SetBool{}})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cl.Call(ctx, &std_srvs.SetBoolReq{Data: true})
	require.NoError(t, err)
	assert.Equal(t, &std_srvs.SetBoolRes{Success: true, Message: "on"}, res)
	_, err = cl.Call(ctx, std_srvs.SetBoolReq{Data: false})
	require.ErrorIs(t, err, ErrServiceFailed)
	_, err = cl.Call(ctx, &std_srvs.TriggerReq{})
	require.ErrorContains(t, err, "want a request of type")

	none, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "/nobody", Srv: std_srvs.Trigger{}})
	require.NoError(t, err)
	_, err = none.Call(ctx, &std_srvs.TriggerReq{})
	require.ErrorIs(t, err, ErrServiceUnavailable)
	assert.ErrorContains(t, err, "call /nobody: service unavailable")
}

func conformActions(t *testing.T, g *graph) {
	sc := g.join(t, "adder")
	var mu sync.Mutex
	received, cancelled := map[int64]bool{}, map[int64]bool{}
	release := make(chan struct{})
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "add", Action: actionlib.TwoIntsAction{}, Preempt: true,
		Accept: func(g any) bool { return g.(*actionlib.TwoIntsActionGoal).A >= 0 },
		Execute: func(ctx context.Context, g any, _ func(any)) (any, error) {
			goal := g.(*actionlib.TwoIntsActionGoal)
			if goal.B == 0 {
				return nil, errors.New("nothing to add")
			}
			if goal.A >= 7 { // hold until cancelled
				mu.Lock()
				received[goal.A] = true
				mu.Unlock()
				select {
				case <-ctx.Done():
					mu.Lock()
					cancelled[goal.A] = true
					mu.Unlock()
					return nil, ctx.Err()
				case <-release:
					return nil, nil
				}
			}
			return actionlib.TwoIntsActionResult{Sum: goal.A + goal.B}, nil
		},
	})
	require.NoError(t, err)
	defer close(release)
	c := g.join(t, "btrobot")
	client, err := NewActionClient(ActionClientConf{Conn: c, Name: "add", Action: actionlib.TwoIntsAction{}})
	require.NoError(t, err)
	require.NoError(t, client.WaitForServer(context.Background(), c.Clock(), 10*time.Second))
	run := func(ctx context.Context, goal actionlib.TwoIntsActionGoal) (GoalOutcome, error) {
		return client.Run(ctx, &goal, GoalConf{AckTimeout: 5 * time.Second})
	}
	bg := context.Background()
	for _, tc := range []struct {
		name  string
		goal  actionlib.TwoIntsActionGoal
		state GoalState
		sum   int64
	}{
		{"succeeded", actionlib.TwoIntsActionGoal{A: 2, B: 3}, GoalSucceeded, 5},
		{"rejected", actionlib.TwoIntsActionGoal{A: -1, B: 1}, GoalRejected, 0},
		{"aborted", actionlib.TwoIntsActionGoal{A: 1, B: 0}, GoalAborted, 0},
	} {
		o, err := run(bg, tc.goal)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.state, o.State, tc.name)
		if tc.sum != 0 {
			assert.Equal(t, tc.sum, o.Result.(*actionlib.TwoIntsActionResult).Sum, tc.name)
		}
	}

	// Preempted by a newer goal.
	first := make(chan GoalOutcome, 1)
	go func() {
		o, _ := run(bg, actionlib.TwoIntsActionGoal{A: 7, B: 1})
		first <- o
	}()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return received[7] }, 10*time.Second, 5*time.Millisecond)
	o, err := run(bg, actionlib.TwoIntsActionGoal{A: 1, B: 1})
	require.NoError(t, err)
	require.Equal(t, GoalSucceeded, o.State)
	select {
	case o := <-first:
		assert.Equal(t, GoalPreempted, o.State)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the first goal never ended")
	}

	// Cancelled at once: whatever reached the server is cancelled there.
	for id := int64(8); id < 18; id++ {
		ctx, cancel := context.WithCancel(bg)
		go cancel()
		_, err := run(ctx, actionlib.TwoIntsActionGoal{A: id, B: 1})
		require.ErrorIs(t, err, context.Canceled)
	}
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id := range received {
			if id >= 8 && !cancelled[id] {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond, "every goal that reached the server was cancelled there")
}

// conformActionReady: a client is not ready while the server's result or
// feedback publisher is not connected to it, however long the server has
// published its status and taken goals and cancels. A result is published
// once and not latched: a goal sent then could end unheard (bridge's
// TestGoActionServer waited 20 s for one under load).
func conformActionReady(t *testing.T, g *graph) {
	a := twoInts(t)
	for _, late := range []string{"result", "feedback"} {
		t.Run(late+" published late", func(t *testing.T) {
			name := "/adder_" + late
			sc, c := g.join(t, "server_"+late), g.join(t, "client_"+late)
			status, err := sc.publisher(name+"/status", reflect.TypeFor[actionlib_msgs.GoalStatusArray](), false)
			require.NoError(t, err)
			for _, topic := range []string{"goal", "cancel"} {
				typ := a.goalMsg
				if topic == "cancel" {
					typ = reflect.TypeFor[actionlib_msgs.GoalID]()
				}
				_, err = sc.subscribe(name+"/"+topic, typ, func(any, time.Time) {})
				require.NoError(t, err)
			}
			early, lateType := a.feedbackMsg, a.resultMsg
			earlyTopic := "feedback"
			if late == "feedback" {
				early, lateType, earlyTopic = a.resultMsg, a.feedbackMsg, "result"
			}
			_, err = sc.publisher(name+"/"+earlyTopic, early, false)
			require.NoError(t, err)
			client, err := NewActionClient(ActionClientConf{Conn: c, Name: name, Action: actionlib.TwoIntsAction{}})
			require.NoError(t, err)
			ac := client.ac
			connected := func(topic string, in bool) bool {
				conns, err := c.wire.bus() // in Eventually's goroutine: no FailNow here
				if err != nil {
					return false
				}
				for _, b := range conns {
					if b.topic == topic && b.in == in {
						return true
					}
				}
				return false
			}
			require.Eventually(t, func() bool {
				_ = status.Publish(&actionlib_msgs.GoalStatusArray{})
				select {
				case <-ac.statusSeen:
				default:
					return false
				}
				return connected(name+"/goal", false) && connected(name+"/cancel", false) && connected(name+"/"+earlyTopic, true)
			}, 10*time.Second, 5*time.Millisecond, "the server's status, goal, cancel and %s connections", earlyTopic)
			assert.False(t, ac.serverConnected(), "connected without the server's %s publisher", late)
			assert.False(t, client.Ready(), "ready without the server's %s publisher", late)

			_, err = sc.publisher(name+"/"+late, lateType, false)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, client.WaitForServer(ctx, c.Clock(), 0), "the client never saw the server once its %s publisher came", late)
		})
	}
}

func conformClock(t *testing.T, g *graph) {
	src := g.join(t, "clock_source")
	require.NoError(t, src.SetParam("/use_sim_time", true))
	pub, err := NewPublisher(PublisherConf{Conn: src, Topic: "/clock", Msg: &rosgraph_msgs.Clock{}})
	require.NoError(t, err)
	c := g.join(t, "btrobot")
	require.NotNil(t, c.SimClock(), "the node follows /clock")
	assert.Equal(t, time.Unix(0, 0), c.Clock().Now(), "time zero before the first /clock")
	want := time.Unix(1000, 500)
	require.Eventually(t, func() bool {
		pub.Publish(&rosgraph_msgs.Clock{Clock: want})
		return c.Clock().Now().Equal(want)
	}, 10*time.Second, 10*time.Millisecond)
	select {
	case <-c.SimClock().Started():
	default:
		require.FailNow(t, "the clock has not started")
	}
	assert.False(t, c.SimClock().LastSet().IsZero())
}

func conformSameName(t *testing.T, g *graph) {
	first := g.join(t, "btrobot", "__ns:=/robot1")
	g.join(t, "btrobot", "__ns:=/robot1")
	select {
	case <-first.Lost():
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the first node was not shut down")

	}
	var se *ShutdownError
	require.ErrorAs(t, first.Err(), &se)
	assert.Contains(t, se.Reason, "new node registered with same name")
	require.ErrorIs(t, first.Err(), ErrLost)
}

func conformDelivery(t *testing.T, g *graph) {
	c := g.join(t, "btrobot")
	pub, err := NewPublisher(PublisherConf{Conn: c, Topic: "/cmd_vel", Msg: &std_msgs.Float64{}})
	require.NoError(t, err)
	n, err := c.Subscribers("/cmd_vel")
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	base, logger := g.join(t, "base"), g.join(t, "logger")
	_, err = Subscribe[std_msgs.Float64](base, "/cmd_vel", nil)
	require.NoError(t, err)
	_, err = Subscribe[std_msgs.Float64](logger, "/cmd_vel", nil)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, c.WaitSubscribers(ctx, "/cmd_vel", 2))
	require.NoError(t, pub.PublishWait(ctx, &std_msgs.Float64{}))
	unacked, ok := c.Unacknowledged("/cmd_vel", time.Now().Add(5*time.Second))
	require.True(t, ok)
	assert.Equal(t, 0, unacked, "both subscribers took the zero velocity")
	logger.Close()
	require.Eventually(t, func() bool {
		n, err := c.Subscribers("/cmd_vel")
		return err == nil && n == 1
	}, 10*time.Second, 5*time.Millisecond, "a subscriber that left is not counted")
}

func conformCrash(t *testing.T, g *graph) {
	c := g.join(t, "btrobot")
	sub, err := Subscribe[std_msgs.Float64](c, "/chatter", nil)
	require.NoError(t, err)
	node, crash := g.crashedPublisher(t, "/chatter")
	require.Eventually(t, func() bool { _, _, n := sub.Newest(); return n > 0 }, 20*time.Second, 5*time.Millisecond)
	drops := c.PublisherDrops("/chatter")
	registered, dead, err := c.DeadPublishers("/chatter")
	require.NoError(t, err)
	assert.Equal(t, []string{node}, registered)
	assert.Empty(t, dead)
	crash()
	require.Eventually(t, func() bool { return c.PublisherDrops("/chatter") > drops }, 10*time.Second, 5*time.Millisecond,
		"the subscriber is told its publisher left")
	require.Eventually(t, func() bool {
		registered, dead, err := c.DeadPublishers("/chatter")
		return err == nil && len(registered) == 1 && len(dead) == 1
	}, 10*time.Second, 5*time.Millisecond, "the master still lists the crashed publisher, which does not answer")
}

func conformOffered(t *testing.T, g *graph) {
	sim := g.join(t, "sim")
	_, err := NewServiceServer(ServiceServerConf{Conn: sim, Name: "/fault/freeze", Srv: std_srvs.Trigger{},
		Handler: func(any) (any, error) { return std_srvs.TriggerRes{}, nil }})
	require.NoError(t, err)
	_, err = Subscribe[std_msgs.Float64](sim, "/fault/slip", nil)
	require.NoError(t, err)
	_, err = NewPublisher(PublisherConf{Conn: sim, Topic: "/fault/only_published", Msg: &std_msgs.Float64{}})
	require.NoError(t, err)
	c := g.join(t, "hil")
	for _, tc := range []struct {
		name string
		want bool
	}{{"/fault/freeze", true}, {"/fault/slip", true}, {"/fault/only_published", false}, {"/fault/none", false}} {
		got, err := c.Offered(tc.name)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, tc.name)
	}
}

// TestInprocNoLeaks: a node of the in-process graph that used every kind of
// endpoint leaves no goroutine behind once closed.
func TestInprocNoLeaks(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	t.Run("session", func(t *testing.T) {
		g := inproc.NewGraph()
		require.NoError(t, g.SetParam("/use_sim_time", true))
		c, err := Connect(Conf{Graph: g, Name: "leak"})
		require.NoError(t, err)
		_, err = Subscribe[std_msgs.Bool](c, "flag", nil)
		require.NoError(t, err)
		_, err = NewPublisher(PublisherConf{Conn: c, Topic: "cmd_vel", Msg: std_msgs.Float64{}})
		require.NoError(t, err)
		_, err = NewActionClient(ActionClientConf{Conn: c, Name: "move_base", Action: MoveBaseAction{}})
		require.NoError(t, err)
		_, err = NewServiceServer(ServiceServerConf{Conn: c, Name: "s", Srv: std_srvs.Trigger{},
			Handler: func(any) (any, error) { return std_srvs.TriggerRes{}, nil }})
		require.NoError(t, err)
		require.NoError(t, c.Close())
		assert.Empty(t, g.Nodes())
		assert.Empty(t, g.Topics())
	})
}
