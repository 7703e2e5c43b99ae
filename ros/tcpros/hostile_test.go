package tcpros_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// heap returns the bytes the Go heap holds now, after a collection.
func heap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// fakePublisher is a hostile publisher: it answers a subscriber's header
// with a valid one, then sends what the case says and holds the
// connection open until the test ends.
func fakePublisher(t *testing.T, m any, send func(c net.Conn)) string {
	t.Helper()
	name, md5, def := typeOf(t, m)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			if _, err := tcpros.ReadHeader(c, tcpros.HeaderLimits{}); err != nil {
				continue
			}
			tcpros.WriteHeader(c, tcpros.Header{"callerid": "/evil", "topic": "/t", "type": name, "md5sum": md5, "message_definition": def})
			send(c)
		}
	}()
	return ln.Addr().String()
}

// TestHostilePublisher: what a publisher sends cannot make a subscriber
// allocate beyond what arrives; the subscription ends with an error that
// says what was wrong.
func TestHostilePublisher(t *testing.T) {
	le := func(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }
	frame := func(body []byte) []byte { return append(le(uint32(len(body))), body...) }
	header := append(append(le(0), le(0)...), append(le(0), le(0)...)...) // seq, stamp, frame_id ""
	for _, c := range []struct {
		name string
		msg  any
		wire []byte
		err  string
	}{
		{"a frame of 4 GiB declared", &geometry_msgs.Twist{}, le(0xffffffff),
			"a frame declares 4294967295 bytes, over the bound of 67108864"},
		{"a path of 4 billion poses (some 600 GiB as Go structs)", &nav_msgs.Path{}, frame(append(header, le(0xffffffff)...)),
			"an array of geometry_msgs.PoseStamped declares 4294967295 elements (at least 309237645240 bytes), 0 bytes are left in the frame"},
		{"a string longer than its frame", &nav_msgs.Path{}, frame(append(le(0), append(le(0), append(le(0), le(1<<30)...)...)...)),
			"a string declares 1073741824 bytes (at least 1073741824 bytes), 0 bytes are left"},
		{"a frame cut short", &geometry_msgs.Twist{}, append(le(48), 1, 2, 3),
			"a frame cut at 3 of 48 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := fakePublisher(t, c.msg, func(conn net.Conn) {
				conn.Write(c.wire)
				if c.name == "a frame cut short" {
					conn.Close()
				}
			})
			before := heap()
			sub, err := tcpros.Subscribe(context.Background(), tcpros.SubscriberConf{
				Addr: addr, CallerID: "/me", Topic: "/t", Type: "*", MD5: "*", Msg: c.msg, OnMessage: func(any) { assert.Fail(t, "no message") },
			})
			require.NoError(t, err)
			defer sub.Close()
			select {
			case <-sub.Done():
			case <-time.After(10 * time.Second):
				require.FailNow(t, "the subscription ends within 10 s")
			}
			assert.ErrorContains(t, sub.Err(), c.err)
			assert.Less(t, heap()-before, int64(1<<20), "the heap grows by less than 1 MiB")
		})
	}
}

// TestFrameAllocatesAsBytesArrive: 64 publishers each declare a 60 MiB
// frame (under the 64 MiB bound) and send 16 bytes of it: the
// subscribers together hold less than 64 × 256 KiB, not 64 × 60 MiB.
func TestFrameAllocatesAsBytesArrive(t *testing.T) {
	const n = 64
	addr := fakePublisher(t, &geometry_msgs.Twist{}, func(c net.Conn) {
		c.Write(binary.LittleEndian.AppendUint32(nil, 60<<20))
		c.Write(make([]byte, 16))
	})
	before := heap()
	var subs []*tcpros.Subscription
	for range n {
		sub, err := tcpros.Subscribe(context.Background(), tcpros.SubscriberConf{
			Addr: addr, CallerID: "/me", Topic: "/t", Type: "*", MD5: "*", Msg: &geometry_msgs.Twist{}, OnMessage: func(any) {},
		})
		require.NoError(t, err)
		subs = append(subs, sub)
	}
	defer func() {
		for _, s := range subs {
			s.Close()
		}
	}()
	// Every connection holds its partial frame: wait until the bytes
	// are surely read (the subscriptions stay up, waiting for the rest).
	require.Eventually(t, func() bool { return heap()-before > n*frameChunkForTest/2 }, 10*time.Second, 10*time.Millisecond)
	grown := heap() - before
	t.Logf("%d connections, each with a 60 MiB frame declared and 16 bytes sent: heap +%d KiB", n, grown>>10)
	assert.Less(t, grown, int64(n*256<<10))
	for _, s := range subs {
		assert.NoError(t, s.Err(), "still waiting for the rest of the frame")
	}
}

// frameChunkForTest is what ReadFrame reserves for a frame before its bytes
// arrive (frame.go's frameChunk).
const frameChunkForTest = 64 << 10

// TestHostileSubscribers: peers that connect to a node's port and send a
// huge header, send one byte a second, or open 2,000 connections: each is
// closed within the bounds, the heap stays bounded, and a real subscriber
// gets through once they are gone.
func TestHostileSubscribers(t *testing.T) {
	t.Run("a header of 1 GiB declared", func(t *testing.T) {
		s := newServer(t, tcpros.ServerConf{})
		publish(t, s, "/cmd_vel", &geometry_msgs.Twist{}, false)
		c, err := net.Dial("tcp", s.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		_, err = c.Write(binary.LittleEndian.AppendUint32(nil, 1<<30))
		require.NoError(t, err)
		h, err := tcpros.ReadHeader(c, tcpros.HeaderLimits{})
		require.NoError(t, err)
		assert.Equal(t, "tcpros: bad connection header: declares 1073741824 bytes, over the bound of 65536", h["error"])
		_, err = c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, io.EOF, "then closed")
	})

	t.Run("one byte a second", func(t *testing.T) {
		s := newServer(t, tcpros.ServerConf{HandshakeTimeout: time.Second})
		publish(t, s, "/cmd_vel", &geometry_msgs.Twist{}, false)
		c, err := net.Dial("tcp", s.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		hdr, err := tcpros.AppendHeader(nil, tcpros.Header{"topic": "/cmd_vel", "callerid": "/slow", "md5sum": "*"})
		require.NoError(t, err)
		start := time.Now()
		var werr error
		for i := 0; i < len(hdr) && werr == nil; i++ {
			_, werr = c.Write(hdr[i : i+1])
			if werr == nil {
				c.SetReadDeadline(time.Now().Add(time.Second))
				_, werr = c.Read(make([]byte, 1))
				if ne, ok := werr.(net.Error); ok && ne.Timeout() {
					werr = nil
				}
			}
		}
		require.Error(t, werr, "the server closes the connection before the header is whole")
		assert.Less(t, time.Since(start), 10*time.Second, "within 10 s")
		require.Eventually(t, func() bool { open, _ := s.Conns(); return open == 0 }, 10*time.Second, 10*time.Millisecond)
	})

	t.Run("2,000 connections", func(t *testing.T) {
		// The handshakes time out after all 2,000 have connected: one
		// that timed out while the test still dialled made room for a
		// later one, which then was not refused (a doubled suite took
		// longer than the 2 s this was).
		const handshake = 10 * time.Second
		s := newServer(t, tcpros.ServerConf{HandshakeTimeout: handshake})
		p := publish(t, s, "/cmd_vel", &geometry_msgs.Twist{}, false)
		before := heap()
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		dialled := time.Now()
		for i := range 2000 {
			c, err := net.Dial("tcp", s.Addr().String())
			require.NoError(t, err, "connection %d", i)
			// Each declares a header of 60 KiB and sends 10 bytes of it.
			_, err = c.Write(append(binary.LittleEndian.AppendUint32(nil, 60<<10), make([]byte, 10)...))
			require.NoError(t, err)
			conns = append(conns, c)
		}
		took := time.Since(dialled)
		require.Less(t, took, handshake, "dialling 2,000 connections took %v: the first handshakes timed out meanwhile", took)
		require.Eventually(t, func() bool { _, refused := s.Conns(); return refused >= 2000-tcpros.DefaultMaxConns }, 10*time.Second, time.Millisecond)
		open, refused := s.Conns()
		assert.LessOrEqual(t, open, tcpros.DefaultMaxConns)
		grown := heap() - before
		t.Logf("2,000 connections: %d open, %d refused, heap +%d KiB", open, refused, grown>>10)
		assert.Less(t, grown, int64(tcpros.DefaultMaxConns*(64<<10)+8<<20), "bounded by MaxConns headers of 64 KiB")

		// When their handshakes time out, a real subscriber gets through.
		require.Eventually(t, func() bool { open, _ := s.Conns(); return open == 0 }, handshake+20*time.Second, 10*time.Millisecond)
		_, _, err := subscribe(t, s, "/cmd_vel", &geometry_msgs.Twist{}, tcpros.SubscriberConf{})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return len(p.Subscribers()) == 1 }, 10*time.Second, time.Millisecond)
	})
}

// TestTricklingPublisher: a publisher that sends a message one byte a
// second is closed once the frame timeout has passed since its first byte.
func TestTricklingPublisher(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	addr := fakePublisher(t, &geometry_msgs.Twist{}, func(c net.Conn) {
		go func() {
			frame := append(binary.LittleEndian.AppendUint32(nil, 48), make([]byte, 48)...)
			for _, b := range frame {
				select {
				case <-stop:
					return
				case <-time.After(time.Second):
				}
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
			}
		}()
	})
	sub, err := tcpros.Subscribe(context.Background(), tcpros.SubscriberConf{
		Addr: addr, CallerID: "/me", Topic: "/t", Type: "*", MD5: "*", Msg: &geometry_msgs.Twist{}, OnMessage: func(any) { assert.Fail(t, "no message") },
		FrameTimeout: 2 * time.Second,
	})
	require.NoError(t, err)
	defer sub.Close()
	start := time.Now()
	select {
	case <-sub.Done():
	case <-time.After(20 * time.Second):
		require.FailNow(t, "the subscription ends within 20 s")
	}
	assert.ErrorContains(t, sub.Err(), "i/o timeout")
	assert.ErrorContains(t, sub.Err(), "tcpros: topic /t from "+addr+": a frame begun did not arrive whole within 2s")
	t.Logf("closed %v after the first byte was due", time.Since(start).Round(100*time.Millisecond))
}
