package rostest

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// HostilePublisher is a raw peer that registers with the master as n
// publishers of a topic (n nodes, each with a slave API of its own, all
// sending to one TCPROS port) and answers every subscriber that connects
// with send, after reading its header. Refused gets a value each time send
// reports that the subscriber closed a connection on it.
type HostilePublisher struct {
	Refused chan struct{}
}

// StartHostilePublisher starts the peer on loopback, registered with the
// master at masterURI; it closes when the test ends.
func StartHostilePublisher(t testing.TB, masterURI, topic, typ string, n int, send func(c net.Conn) (closedByPeer bool)) *HostilePublisher {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	h := &HostilePublisher{Refused: make(chan struct{}, max(n, 100))}
	port := ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, _, err := master.ReadCall(http.MaxBytesReader(w, r.Body, 1<<20))
		switch {
		case err != nil:
			master.WriteFault(w, 1, err.Error())
		case method == "requestTopic":
			master.WriteResponse(w, []any{1, "", []any{"TCPROS", "127.0.0.1", port}})
		default:
			master.WriteResponse(w, []any{1, "", 0})
		}
	})}
	var apis []net.Listener
	for range n {
		api, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		apis = append(apis, api)
		go srv.Serve(api) //nolint:errcheck
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := tcpros.ReadHeader(c, tcpros.HeaderLimits{}); err == nil && send(c) {
					select {
					case h.Refused <- struct{}{}:
					default:
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { srv.Close(); ln.Close(); <-done })
	for i, api := range apis {
		_, err = master.Call(context.Background(), &http.Client{Timeout: 5 * time.Second}, masterURI, "registerPublisher", 1<<20,
			"/hostile"+strconv.Itoa(i), topic, typ, "http://"+api.Addr().String()+"/")
		require.NoError(t, err)
	}
	return h
}

// Declare writes a length prefix of n bytes and then 16 bytes of them, and
// holds the connection open until the peer closes it (true) or for 30 s.
func Declare(c net.Conn, n uint32) bool {
	b := binary.LittleEndian.AppendUint32(nil, n)
	if _, err := c.Write(append(b, make([]byte, 16)...)); err != nil {
		return false
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second)) //nolint:errcheck
	var one [1]byte
	for {
		if _, err := c.Read(one[:]); err != nil {
			var ne net.Error
			return !errors.As(err, &ne) || !ne.Timeout()
		}
	}
}
