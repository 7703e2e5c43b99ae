package tcpros_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// provideSetBool serves /set (std_srvs/SetBool) on s, with conf's
// handler or one where true succeeds ("yes") and false fails ("no").
func provideSetBool(t testing.TB, s *tcpros.Server, conf tcpros.ServiceConf) string {
	t.Helper()
	md5, err := serviceproc.MD5(std_srvs.SetBool{})
	require.NoError(t, err)
	req, _, err := serviceproc.RequestResponse(std_srvs.SetBool{})
	require.NoError(t, err)
	conf.Service, conf.Type, conf.MD5, conf.Request = "/set", "std_srvs/SetBool", md5, req
	conf.RequestType, conf.ResponseType = "std_srvs/SetBoolRequest", "std_srvs/SetBoolResponse"
	if conf.Handler == nil {
		conf.Handler = func(r any) (any, error) {
			if !r.(*std_srvs.SetBoolReq).Data {
				return nil, errors.New("no")
			}
			return std_srvs.SetBoolRes{Success: true, Message: "yes"}, nil
		}
	}
	_, err = s.Provide(conf)
	require.NoError(t, err)
	return md5
}

func TestService(t *testing.T) {
	for _, c := range []struct {
		name       string
		persistent bool
		handler    func(any) (any, error)
		req        bool
		want       std_srvs.SetBoolRes
		err        string
	}{
		{"ok", false, nil, true, std_srvs.SetBoolRes{Success: true, Message: "yes"}, ""},
		{"ok, persistent", true, nil, true, std_srvs.SetBoolRes{Success: true, Message: "yes"}, ""},
		{"the handler's error", false, nil, false, std_srvs.SetBoolRes{}, "tcpros: service /set: the service failed: no"},
		{"the handler's error, persistent", true, nil, false, std_srvs.SetBoolRes{}, "the service failed: no"},
		{"a panicking handler", true, func(any) (any, error) { panic("boom") }, true, std_srvs.SetBoolRes{}, "the handler panicked: boom"},
		{"a response the codec refuses", false, func(any) (any, error) { return 42, nil }, true, std_srvs.SetBoolRes{}, "the response: tcpros: a message is a struct"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, tcpros.ServerConf{})
			md5 := provideSetBool(t, s, tcpros.ServiceConf{Handler: c.handler})
			cl := tcpros.NewServiceClient(tcpros.ServiceClientConf{Addr: s.Addr().String(), CallerID: "/me", Service: "/set", MD5: md5, Persistent: c.persistent})
			defer cl.Close()
			for range 3 { // the same answer each time, over one connection when persistent
				var res std_srvs.SetBoolRes
				err := cl.Call(context.Background(), &std_srvs.SetBoolReq{Data: c.req}, &res)
				if c.err != "" {
					require.ErrorIs(t, err, tcpros.ErrServiceFailed)
					assert.ErrorContains(t, err, c.err)
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, c.want, res)
			}
			if c.persistent {
				open, _ := s.Conns()
				assert.Equal(t, 1, open, "one connection for every call")
			}
		})
	}
}

// TestServiceRefused: a client with another md5sum, or for an unknown
// service, is refused with the reason; rosservice's probe gets the type.
func TestServiceRefused(t *testing.T) {
	s := newServer(t, tcpros.ServerConf{})
	md5 := provideSetBool(t, s, tcpros.ServiceConf{})
	for _, c := range []struct {
		name, service, md5, err string
	}{
		{"another md5sum", "/set", "0123456789abcdef0123456789abcdef", `refused: service /set: md5sum "0123456789abcdef0123456789abcdef", this node's is "` + md5 + `"`},
		{"unknown", "/get", md5, `refused: node /btrobot_test does not provide service "/get"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := tcpros.NewServiceClient(tcpros.ServiceClientConf{Addr: s.Addr().String(), CallerID: "/me", Service: c.service, MD5: c.md5})
			var res std_srvs.SetBoolRes
			err := cl.Call(context.Background(), &std_srvs.SetBoolReq{Data: true}, &res)
			assert.ErrorContains(t, err, c.err)
		})
	}
	t.Run("probe", func(t *testing.T) {
		c, err := net.Dial("tcp", s.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		require.NoError(t, tcpros.WriteHeader(c, tcpros.Header{"callerid": "/rosservice", "service": "/set", "md5sum": "*", "probe": "1"}))
		h, err := tcpros.ReadHeader(c, tcpros.HeaderLimits{})
		require.NoError(t, err)
		assert.Equal(t, "std_srvs/SetBool", h["type"])
		assert.Equal(t, md5, h["md5sum"])
		_, err = c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "then closed")
	})
}

// TestServiceHostileClient: a request over the bound, or one that never
// ends, closes the connection without calling the handler.
func TestServiceHostileClient(t *testing.T) {
	for _, c := range []struct {
		name string
		wire []byte
	}{
		{"a request of 1 GiB declared", binary.LittleEndian.AppendUint32(nil, 1<<30)},
		{"a request cut short", append(binary.LittleEndian.AppendUint32(nil, 100), 1)},
		{"a request that does not decode (bytes left over)", append(binary.LittleEndian.AppendUint32(nil, 4), 0xff, 0xff, 0xff, 0xff)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, tcpros.ServerConf{HandshakeTimeout: time.Second})
			called := make(chan struct{}, 1)
			md5 := provideSetBool(t, s, tcpros.ServiceConf{MaxRequest: 1 << 10, Handler: func(any) (any, error) {
				called <- struct{}{}
				return std_srvs.SetBoolRes{}, nil
			}})
			conn, err := net.Dial("tcp", s.Addr().String())
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, tcpros.WriteHeader(conn, tcpros.Header{"callerid": "/evil", "service": "/set", "md5sum": md5}))
			_, err = tcpros.ReadHeader(conn, tcpros.HeaderLimits{})
			require.NoError(t, err)
			_, err = conn.Write(c.wire)
			require.NoError(t, err)
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, err := io.ReadAll(conn)
			require.NoError(t, err, "closed by the server within 10 s")
			if len(b) > 0 { // a request that decoded wrong is answered with the reason
				assert.Equal(t, byte(0), b[0])
				assert.Contains(t, string(b), "bad message")
			}
			assert.Empty(t, called, "the handler is not called")
		})
	}
}

// TestServicePersistentTrickle: a persistent client may stay idle between
// requests, but a request it has begun arrives whole within the handshake
// timeout, or the connection is closed.
func TestServicePersistentTrickle(t *testing.T) {
	s := newServer(t, tcpros.ServerConf{HandshakeTimeout: time.Second})
	md5 := provideSetBool(t, s, tcpros.ServiceConf{})
	conn, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, tcpros.WriteHeader(conn, tcpros.Header{"callerid": "/slow", "service": "/set", "md5sum": md5, "persistent": "1"}))
	_, err = tcpros.ReadHeader(conn, tcpros.HeaderLimits{})
	require.NoError(t, err)

	// Idle for twice the timeout: still open, and a request is answered.
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "idle is allowed")
	_, err = conn.Write([]byte{1, 0, 0, 0, 1})
	require.NoError(t, err)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	reply := make([]byte, 1+4+1+4+3) // ok, the frame's length, success, message
	_, err = io.ReadFull(conn, reply)
	require.NoError(t, err)
	assert.Equal(t, []byte{1, 8, 0, 0, 0, 1, 3, 0, 0, 0, 'y', 'e', 's'}, reply)

	// A request begun and never finished: closed.
	_, err = conn.Write([]byte{1, 0})
	require.NoError(t, err)
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "closed within 10 s")
	t.Logf("closed %v after the request began", time.Since(start).Round(100*time.Millisecond))
}

// TestServiceCloseEndsPersistentConnections: once a service is closed, a
// persistent client's held connection is closed too: no call reaches the
// handler after Close (the client's next call fails and it may look the
// service up again), and a new connection is refused.
func TestServiceCloseEndsPersistentConnections(t *testing.T) {
	for _, c := range []struct {
		name       string
		persistent bool
	}{
		{"persistent", true},
		{"one call per connection", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, tcpros.ServerConf{})
			md5, err := serviceproc.MD5(std_srvs.SetBool{})
			require.NoError(t, err)
			req, _, err := serviceproc.RequestResponse(std_srvs.SetBool{})
			require.NoError(t, err)
			var calls atomic.Int32
			svc, err := s.Provide(tcpros.ServiceConf{Service: "/set", Type: "std_srvs/SetBool", MD5: md5, Request: req,
				Handler: func(any) (any, error) { calls.Add(1); return std_srvs.SetBoolRes{Success: true}, nil }})
			require.NoError(t, err)
			cl := tcpros.NewServiceClient(tcpros.ServiceClientConf{Addr: s.Addr().String(), CallerID: "/me", Service: "/set", MD5: md5, Persistent: c.persistent})
			defer cl.Close()
			var res std_srvs.SetBoolRes
			require.NoError(t, cl.Call(context.Background(), &std_srvs.SetBoolReq{Data: true}, &res))
			svc.Close()
			require.Eventually(t, func() bool { open, _ := s.Conns(); return open == 0 }, 10*time.Second, 5*time.Millisecond,
				"the service's connections are closed")
			err = cl.Call(context.Background(), &std_srvs.SetBoolReq{Data: true}, &res)
			require.Error(t, err)
			assert.NotErrorIs(t, err, tcpros.ErrServiceFailed)
			assert.Equal(t, int32(1), calls.Load(), "calls that reached the handler")
		})
	}
}
