package tcpros_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// FuzzServerConn: whatever a peer sends to a node's port before it stops
// sending, the server answers or closes the connection (never panics,
// never holds it), and goes on serving.
func FuzzServerConn(f *testing.F) {
	s, err := tcpros.NewServer(tcpros.ServerConf{CallerID: "/fuzzed", HandshakeTimeout: 2 * time.Second})
	require.NoError(f, err)
	f.Cleanup(func() { s.Close() })
	name, md5, def := typeOf(f, &geometry_msgs.Twist{})
	p, err := s.Publish(tcpros.PublisherConf{Topic: "/t", Type: name, MD5: md5, Definition: def, Latch: true})
	require.NoError(f, err)
	require.NoError(f, p.Publish(&geometry_msgs.Twist{}))
	provideSetBool(f, s, tcpros.ServiceConf{})
	for _, h := range []tcpros.Header{
		{"callerid": "/a", "topic": "/t", "md5sum": "*", "type": "*"},
		{"callerid": "/a", "service": "/set", "md5sum": "*", "persistent": "1"},
		{"callerid": "/a", "service": "/set", "md5sum": "*", "probe": "1"},
	} {
		b, err := tcpros.AppendHeader(nil, h)
		require.NoError(f, err)
		f.Add(b)
		f.Add(append(b, 1, 0, 0, 0, 1))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := net.Dial("tcp", s.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		c.Write(data)
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = io.Copy(io.Discard, c)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			require.FailNow(t, "the server ends the connection within 10 s of the peer's last byte")
		}
	})
}
