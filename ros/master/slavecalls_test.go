package master

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bluenviron/goroslib/v2/pkg/apislave"
)

// TestSlaveCallsToASlowNode checks what a node that is slow to answer gets
// once it answers again: every call in order, except those overtaken by a
// newer full state of the same topic or parameter.
func TestSlaveCallsToASlowNode(t *testing.T) {
	pubUpdate := func(topic string, pubs ...string) slaveCall {
		return slaveCall{
			method:     "publisherUpdate",
			params:     apislave.RequestPublisherUpdate{CallerID: "/master", Topic: topic, PublisherURLs: pubs},
			supersedes: "publisherUpdate " + topic,
		}
	}
	paramUpdate := func(key string, v any) slaveCall {
		return slaveCall{
			method:     "paramUpdate",
			params:     requestParamUpdate{CallerID: "/master", Key: key, Value: v},
			supersedes: "paramUpdate " + key,
		}
	}
	shutdown := slaveCall{method: "shutdown", params: apislave.RequestShutdown{CallerID: "/master", Reason: "bye"}}

	tests := []struct {
		name   string
		queued []slaveCall // sent while the first call is held up
		want   []any       // second parameter (topic or key) and third of each call received after the first
	}{
		{
			name:   "newer publishers of a topic replace older queued ones",
			queued: []slaveCall{pubUpdate("/scan", "a", "b"), pubUpdate("/odom", "x"), pubUpdate("/scan", "b")},
			want:   []any{"/odom", []any{"x"}, "/scan", []any{"b"}},
		},
		{
			name:   "a parameter set again moves behind what came between",
			queued: []slaveCall{paramUpdate("/a/", map[string]any{"b": 1}), paramUpdate("/a/b/", 2), paramUpdate("/a/", map[string]any{"b": 3})},
			want:   []any{"/a/b/", 2, "/a/", map[string]any{"b": 3}},
		},
		{
			name:   "calls without a state keep their order",
			queued: []slaveCall{shutdown, pubUpdate("/scan"), shutdown},
			want:   []any{"bye", nil, "/scan", []any{}, "bye", nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node, release := startHeldNode(t)
			ctx, cancel := context.WithCancel(context.Background())
			s := newSlaveCaller(ctx)
			defer func() {
				cancel()
				s.close()
			}()
			s.send(node.uri, pubUpdate("/first"))
			c := node.next(t)
			require.True(t, c.params[1] == "/first", "first call %v", c.params)
			for _, c := range tc.queued {
				s.send(node.uri, c)
			}
			close(release)
			var got []any
			for len(got) < len(tc.want) {
				c := node.next(t)
				if len(c.params) == 3 {
					got = append(got, c.params[1], c.params[2])
				} else {
					got = append(got, c.params[1], nil)
				}
			}
			assert.Equal(t, tc.want, got, "node received %#v, want %#v", got, tc.want)
			node.none(t)
		})
	}
}

// startHeldNode starts a node that records each call and holds up its
// answer to the first one until release is closed.
func startHeldNode(t testing.TB) (*fakeNode, chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	release := make(chan struct{})
	var once sync.Once
	n := &fakeNode{uri: "http://" + ln.Addr().String() + "/", calls: make(chan slaveCallRecord, 100)}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call, err := decodeMethodCall(r.Body)
		if !assert.NoError(t, err, "node received a bad call") {
			return
		}
		n.calls <- slaveCallRecord{call.Method, call.Params}
		once.Do(func() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
		var out bytes.Buffer
		encodeMethodResponse(&out, []any{1, "", 0}) //nolint:errcheck
		w.Write(out.Bytes())                        //nolint:errcheck
	})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		srv.Serve(ln) //nolint:errcheck
	}()
	t.Cleanup(func() {
		srv.Close()
		wg.Wait()
	})
	return n, release
}
