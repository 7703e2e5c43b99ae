package tcpros_test

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// TestOutOfFileDescriptors: when the process runs out of file descriptors
// the port's accept fails for a while; once descriptors are free again, a
// subscriber gets through (the port is not lost).
func TestOutOfFileDescriptors(t *testing.T) {
	var saved syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &saved))
	s := newServer(t, tcpros.ServerConf{})
	p := publish(t, s, "/cmd_vel", &geometry_msgs.Twist{}, false)

	var conns []net.Conn
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
		conns = nil
	}
	defer closeAll()
	// Use up the descriptors left under a low limit: dials until one fails.
	low := saved
	low.Cur = 256
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low))
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved)
	for range 1000 {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			break
		}
		conns = append(conns, c)
	}
	require.Less(t, len(conns), 256, "the limit was reached")
	// Let the server meet EMFILE on accept (its backlog holds dials it
	// could not accept), then free everything.
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", s.Addr().String(), time.Second)
		if err == nil {
			conns = append(conns, c)
		}
		return err == nil
	}, 10*time.Second, 10*time.Millisecond, "the backlog takes a dial the server cannot accept")
	closeAll()
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &saved))

	_, _, err := subscribe(t, s, "/cmd_vel", &geometry_msgs.Twist{}, tcpros.SubscriberConf{})
	require.NoError(t, err, "a subscriber gets through once descriptors are free")
	require.Eventually(t, func() bool { return len(p.Subscribers()) == 1 }, 10*time.Second, time.Millisecond)
}
