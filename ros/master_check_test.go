package ros

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
)

// masterFront stands between nodes and a real master: it forwards every
// call, until turned hostile; then it answers lookupNode (the master
// check's call) with answer.
type masterFront struct {
	uri     string
	hostile atomic.Bool
}

func startMasterFront(t *testing.T, masterURI string, answer func(w http.ResponseWriter, r *http.Request)) *masterFront {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &masterFront{uri: "http://" + ln.Addr().String() + "/"}
	client := &http.Client{Timeout: 10 * time.Second}
	done := make(chan struct{})
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			return
		}
		if method, _, _ := master.ReadCall(bytes.NewReader(body)); method == "lookupNode" && f.hostile.Load() {
			answer(w, r)
			return
		}
		res, err := client.Post(masterURI, "text/xml", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.Header().Set("Content-Type", "text/xml")
		io.Copy(w, res.Body) //nolint:errcheck
	})}
	go func() { defer close(done); srv.Serve(ln) }() //nolint:errcheck
	t.Cleanup(func() { srv.Close(); <-done })
	return f
}

// TestMasterCheckBounded: on btrobot's own wire, the master check's call
// is bounded in time and in size. Whatever answers at the master's URI —
// a master that hangs, one that forgot the node, one that streams an
// endless answer — the Conn is lost within a bound, saying why, and what
// it read of the answer stays small (goroslib's client, the check before,
// read the whole answer until its timeout: hundreds of MiB).
func TestMasterCheckBounded(t *testing.T) {
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		reason string
		silent bool
	}{
		{"an endless answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/xml")
			io.WriteString(w, `<?xml version="1.0"?><methodResponse><params><param><value><array><data><value><i4>1</i4></value><value><string>`) //nolint:errcheck
			for i := 0; i < 1<<14; i++ {                                                                                                          // 1 GiB, unless the reader stops
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "its answer to lookupNode is not a ROS master's", false},
		{"a refusal", func(w http.ResponseWriter, r *http.Request) {
			master.WriteResponse(w, []any{-1, "unknown node", ""})
		}, "it no longer knows /btrobot", false},
		{"no answer", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, "it does not answer", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			front := startMasterFront(t, rostest.StartMaster(t), tc.answer)
			conf := Conf{MasterURI: front.uri, Host: "127.0.0.1", Name: "btrobot", Wire: WireTCPROS,
				MasterCheck: 50 * time.Millisecond, MasterTimeout: time.Second}
			c, err := Connect(conf)
			require.NoError(t, err)
			defer c.Close()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			front.hostile.Store(true)
			select {
			case <-c.Lost():
			case <-time.After(15 * time.Second):
				require.Fail(t, "the Conn did not notice the master's answers within 15 s")
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			var ml *MasterLostError
			require.True(t, errors.As(c.Err(), &ml), "lost by %v", c.Err())
			assert.Contains(t, ml.Error(), tc.reason)
			assert.Equal(t, tc.silent, ml.silent, "silent")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated while the master check read the answers")
			closed := make(chan struct{})
			go func() { c.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				require.Fail(t, "Close did not end within 10 s")
			}
		})
	}
}
