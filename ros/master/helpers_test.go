package master

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/apiparam"
	"github.com/bluenviron/goroslib/v2/pkg/apislave"
)

// pushTimeout bounds how long a test waits for a push from the master.
const pushTimeout = 5 * time.Second

// startTestMaster starts a master on a free loopback port for one test.
func startTestMaster(t testing.TB) *Master {
	t.Helper()
	m, err := New(Conf{Host: "127.0.0.1"})
	require.NoError(t, err)
	require.NoError(t, m.Start())
	t.Cleanup(func() { m.Close() })
	return m
}

func hostOf(t testing.TB, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	require.NoError(t, err)
	return u.Host
}

// testHTTPClient is closed at the end of the test so no connection outlives
// it (goleak checks).
func testHTTPClient(t testing.TB) *http.Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	// A bound for liveness, not speed: at four times the suite's load a
	// multicall of megabytes took longer than 5 s (proof run 78).
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// masterClient is goroslib's Master API client calling as callerID.
func masterClient(t testing.TB, m *Master, callerID string) *apimaster.Client {
	t.Helper()
	return apimaster.NewClient(hostOf(t, m.URI()), callerID, testHTTPClient(t))
}

// paramClient is goroslib's Parameter API client calling as callerID.
func paramClient(t testing.TB, m *Master, callerID string) *apiparam.Client {
	t.Helper()
	return apiparam.NewClient(hostOf(t, m.URI()), callerID, testHTTPClient(t))
}

// rawCall makes an XML-RPC call with any parameters, for what goroslib's
// typed clients cannot express (dictionaries, wrong types, multicall). It
// returns the decoded response or the fault.
func rawCall(t testing.TB, uri, method string, params ...any) (any, error) {
	t.Helper()
	var body bytes.Buffer
	require.NoError(t, encodeMethodCall(&body, method, params...))
	res, err := testHTTPClient(t).Post(uri, "text/xml", &body)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "%s: HTTP %d", method, res.StatusCode)
	return decodeMethodResponse(res.Body)
}

// mustCall is rawCall for calls that must answer [code, message, value]; it
// returns code and value.
func mustCall(t testing.TB, uri, method string, params ...any) (int, any) {
	t.Helper()
	v, err := rawCall(t, uri, method, params...)
	require.NoError(t, err, "%s", method)
	items, ok := v.([]any)
	require.True(t, ok, "%s answered %#v, want [code, message, value]", method, v)
	require.Len(t, items, 3, "%s answered %#v, want [code, message, value]", method, v)
	code, ok := items[0].(int)
	require.True(t, ok, "%s answered code %#v", method, items[0])
	return code, items[2]
}

// slaveCallRecord is one call a node received from the master.
type slaveCallRecord struct {
	method string
	params []any
}

// fakeNode is a node's slave API as a real XML-RPC server that records what
// the master pushes to it: goroslib's apislave.Server for publisherUpdate
// and shutdown (so the master's calls are checked against goroslib's
// decoder), and this package's codec for paramUpdate, which goroslib's
// server does not know.
type fakeNode struct {
	uri   string
	calls chan slaveCallRecord
}

// startSlaveNode starts goroslib's slave API server on a free port.
func startSlaveNode(t testing.TB) *fakeNode {
	t.Helper()
	return startHoldingSlaveNode(t, nil)
}

// startHoldingSlaveNode is startSlaveNode whose answer to a shutdown call
// waits until hold is closed (a nil hold does not wait), as btrobot's
// controller does while it stops its robot.
func startHoldingSlaveNode(t testing.TB, hold chan struct{}) *fakeNode {
	t.Helper()
	srv, err := apislave.NewServer("127.0.0.1:0", net.ParseIP("127.0.0.1"), "", 5*time.Second)
	require.NoError(t, err)
	n := &fakeNode{uri: srv.URL() + "/", calls: make(chan slaveCallRecord, 100)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		srv.Serve(func(req apislave.Request) apislave.Response {
			switch r := req.(type) {
			case *apislave.RequestPublisherUpdate:
				n.calls <- slaveCallRecord{"publisherUpdate", []any{r.CallerID, r.Topic, r.PublisherURLs}}
				return apislave.ResponsePublisherUpdate{Code: 1}
			case *apislave.RequestShutdown:
				n.calls <- slaveCallRecord{"shutdown", []any{r.CallerID, r.Reason}}
				if hold != nil {
					<-hold
				}
				return apislave.ResponseShutdown{Code: 1}
			}
			return apislave.ErrorRes{}
		})
	}()
	t.Cleanup(func() {
		srv.Close()
		wg.Wait()
	})
	return n
}

// startParamNode starts an XML-RPC server answering paramUpdate.
func startParamNode(t testing.TB) *fakeNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	n := &fakeNode{uri: "http://" + ln.Addr().String() + "/", calls: make(chan slaveCallRecord, 100)}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call, err := decodeMethodCall(r.Body)
		var out bytes.Buffer
		if err != nil {
			encodeFault(&out, &fault{Code: 1, Message: err.Error()})
		} else {
			n.calls <- slaveCallRecord{call.Method, call.Params}
			encodeMethodResponse(&out, []any{1, "", 0}) //nolint:errcheck
		}
		w.Write(out.Bytes()) //nolint:errcheck
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
	return n
}

// next returns the next call the node received, failing after pushTimeout.
func (n *fakeNode) next(t *testing.T) slaveCallRecord {
	t.Helper()
	select {
	case c := <-n.calls:
		return c
	case <-time.After(pushTimeout):
		require.Fail(t, fmt.Sprintf("node at %s received no call within %v", n.uri, pushTimeout))
		return slaveCallRecord{}
	}
}

// none checks that the node receives nothing for a short while.
func (n *fakeNode) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-n.calls:
		require.Fail(t, fmt.Sprintf("node at %s received an unexpected %s%v", n.uri, c.method, c.params))
	case <-time.After(200 * time.Millisecond):
	}
}

// deadNodeURI is the slave API URI of a node that died: nothing listens
// there.
func deadNodeURI(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	uri := "http://" + ln.Addr().String() + "/"
	ln.Close()
	return uri
}

// hungNodeURI is the slave API URI of a node that hangs: it accepts
// connections and never answers.
func hungNodeURI(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/"
}
