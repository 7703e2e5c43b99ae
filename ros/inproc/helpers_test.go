package inproc

import (
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Test messages shaped as goroslib generates them.
type header struct {
	Seq     uint32
	Stamp   time.Time
	FrameID string
}

type twist struct {
	Linear, Angular [3]float64
}

type scan struct {
	Header header
	Ranges []float32
	Labels []string
}

type path struct {
	Header header
	Poses  []scan
	Marks  map[string][]int
	Next   *path
	Fixed  [2][]byte
}

var (
	twistType = Type{Name: "geometry_msgs/Twist", MD5: "9f195f881246fdfa2798d1d3eebca84a", Go: reflect.TypeFor[twist]()}
	scanType  = Type{Name: "sensor_msgs/LaserScan", MD5: "90c7ef2dc6895d81024acba2ac42f369", Go: reflect.TypeFor[scan]()}
)

// received collects what a subscriber's callback gets.
type received struct {
	mu   sync.Mutex
	msgs []any
	lost []string
}

func (r *received) add(m any) {
	r.mu.Lock()
	r.msgs = append(r.msgs, m)
	r.mu.Unlock()
}

func (r *received) addLost(n string) {
	r.mu.Lock()
	r.lost = append(r.lost, n)
	r.mu.Unlock()
}

func (r *received) all() []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]any(nil), r.msgs...)
}

func (r *received) lostNodes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lost...)
}

// waitCount waits until r holds n messages.
func (r *received) waitCount(t *testing.T, n int) []any {
	t.Helper()
	require.Eventually(t, func() bool { return len(r.all()) >= n }, 10*time.Second, time.Millisecond, "want %d messages", n)
	return r.all()
}

func newNode(t *testing.T, g *Graph, name string) *Node {
	t.Helper()
	n, err := g.NewNode(NodeConf{Name: name})
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	return n
}

func subscribe(t *testing.T, n *Node, topic string, typ Type, queue int) (*Subscriber, *received) {
	t.Helper()
	r := &received{}
	s, err := n.NewSubscriber(SubscriberConf{Topic: topic, Type: typ, QueueSize: queue, Callback: r.add, OnPublisherLost: r.addLost})
	require.NoError(t, err)
	return s, r
}

func publisher(t *testing.T, n *Node, topic string, typ Type, latch bool) *Publisher {
	t.Helper()
	p, err := n.NewPublisher(PublisherConf{Topic: topic, Type: typ, Latch: latch})
	require.NoError(t, err)
	return p
}
