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

	"github.com/btrobot/btrobot/ros/rostest"
)

// heldReplies stands between a node and a real master: it passes every call
// through and holds the reply to registerSubscriber of one topic until
// release is closed, as a loaded master or network may.
type heldReplies struct {
	master, topic string
	release       chan struct{}
	held          chan struct{} // closed once the reply is held
}

func (h *heldReplies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := http.Post(h.master, "text/xml", bytes.NewReader(body))
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
	if bytes.Contains(body, []byte("registerSubscriber")) && bytes.Contains(body, []byte(h.topic)) {
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

