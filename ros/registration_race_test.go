package ros

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
)

// heldReplies stands between a node and a real master: it passes every call
// through and holds the reply to registerSubscriber of one topic until
// release is closed, as a loaded master or network may.
type heldReplies struct {
	master, topic string
	method        string // the call held: registerSubscriber when empty
	before        bool   // hold the request before the master sees it, not its reply
	release       chan struct{}
	held          chan struct{} // closed once the call is held
	answered      chan struct{} // closed once the held call is answered (nil: not told)
}

func (h *heldReplies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	method := h.method
	if method == "" {
		method = "registerSubscriber"
	}
	hold := bytes.Contains(body, []byte(method)) && bytes.Contains(body, []byte(h.topic))
	if hold && h.before {
		close(h.held)
		<-h.release // the master sees the call late, whether or not the caller still waits
	}
	resp, err := http.Post(h.master, "text/xml", bytes.NewReader(body))
	if hold && h.answered != nil {
		defer close(h.answered)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if hold && !h.before {
		close(h.held)
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Write(reply) //nolint:errcheck
}

// TestARegistrationReplyAfterAnUpdate: a subscriber registers while no one
// publishes, a publisher registers at once after, and the master's
// publisherUpdate (naming the publisher) reaches the subscriber before the
// reply to its registration (naming no one) does. The reply is older than
// the update and must not undo it: the subscription stays connected and
// receives (it used to drop the connection for good — bridge's
// TestStaleInputs waited ten minutes for a subscriber that never came).
func TestARegistrationReplyAfterAnUpdate(t *testing.T) {
	const topic = "/beat"
	uri := rostest.StartMaster(t)
	proxy := &heldReplies{master: uri, topic: topic, release: make(chan struct{}), held: make(chan struct{})}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	t.Cleanup(func() {
		select {
		case <-proxy.release:
		default:
			close(proxy.release)
		}
	})

	sub := connectWire(t, front.URL+"/", WireTCPROS, "listener")
	pubConn := connect(t, uri, "talker")
	got := make(chan int32, 100)
	subscribed := make(chan error, 1)
	go func() {
		_, err := Subscribe(sub, topic, func(m *std_msgs.Int32) {
			select {
			case got <- m.Data:
			default:
			}
		})
		subscribed <- err
	}()
	select {
	case <-proxy.held:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the subscriber did not register")
	}
	pub, err := NewPublisher(PublisherConf{Conn: pubConn, Topic: topic, Msg: std_msgs.Int32{}})
	require.NoError(t, err)
	// The master's publisherUpdate has reached the subscriber once it is
	// connected to the publisher.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, pubConn.WaitSubscribers(ctx, topic, 1), "the update did not connect the subscriber")
	close(proxy.release)
	require.NoError(t, <-subscribed)

	// The stale reply arrived: the subscription must still receive.
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := int32(1); ; i++ {
		pub.Publish(&std_msgs.Int32{Data: i})
		select {
		case v := <-got:
			assert.Positive(t, v)
			n, err := pubConn.Subscribers(topic)
			require.NoError(t, err)
			assert.Equal(t, 1, n, "the publisher's subscribers after the reply")
			return
		case <-tick.C:
		case <-deadline:
			n, _ := pubConn.Subscribers(topic)
			require.FailNow(t, "no message after the registration's reply", "the publisher has %d subscribers; the reply undid the publisherUpdate", n)
		}
	}
}

// TestNoRegistrationLeftInFlightAfterConnect: under /use_sim_time a node
// subscribes to /clock. That registration must be made before Connect
// returns: one still in flight when the node closed could reach the master
// after a new node of the same name registered, and the master would shut
// the new node down as replaced by the old (btrobot run reads its
// parameters as a short-lived node of its own name before the run's node
// joins: under load, roslaunch's btrobot was shut down at its start, proof
// run 65).
func TestNoRegistrationLeftInFlightAfterConnect(t *testing.T) {
	uri := rostest.StartMaster(t)
	setter := connect(t, uri, "setter")
	require.NoError(t, setter.SetParam("/use_sim_time", true))
	proxy := &heldReplies{master: uri, topic: "/clock", before: true,
		release: make(chan struct{}), held: make(chan struct{}), answered: make(chan struct{})}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	released := false
	release := func() {
		if !released {
			released = true
			close(proxy.release)
		}
	}
	t.Cleanup(release)

	// The first node's /clock registration reaches the master late.
	firstDone := make(chan error, 1)
	go func() {
		c, err := Connect(Conf{MasterURI: front.URL + "/", Host: "127.0.0.1", Namespace: "/robot1", Name: "btrobot"})
		if err == nil {
			c.Close()
		}
		firstDone <- err
	}()
	select {
	case <-proxy.held:
	case err := <-firstDone:
		require.FailNow(t, "the first node did not register /clock", "Connect: %v", err)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "the first node did not register /clock")
	}
	select {
	case err := <-firstDone:
		// Connect returned and the node closed while its registration was
		// still on its way: the new node registers, then the late call
		// arrives.
		require.NoError(t, err)
		second := connect(t, uri, "btrobot", "__ns:=/robot1")
		release()
		<-proxy.answered
		assert.Equal(t, second.SlaveURI(), lookupNode(t, uri, "/robot1/btrobot"),
			"the master took the closed node's late /clock registration for the node of that name")
		return
	case <-time.After(500 * time.Millisecond):
	}
	release() // Connect waits for its registration, as it must
	require.NoError(t, <-firstDone)
	second := connect(t, uri, "btrobot", "__ns:=/robot1")
	assert.Equal(t, second.SlaveURI(), lookupNode(t, uri, "/robot1/btrobot"))
}

// lookupNode asks the master at uri for node's slave API.
func lookupNode(t *testing.T, uri, node string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := master.Call(ctx, http.DefaultClient, uri, "lookupNode", 1<<16, "/test", node)
	require.NoError(t, err)
	a, ok := v.([]any)
	require.True(t, ok && len(a) == 3, "lookupNode answered %v", v)
	api, _ := a[2].(string)
	return api
}
