package bridge

import (
	"context"
	"testing"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/stretchr/testify/require"
)

// connect joins the graph at uri as a node called name and leaves when the
// test ends.
func connect(t testing.TB, uri, name string, args ...string) *ros.Conn {
	t.Helper()
	conf, rest, err := ros.ConfFromArgs(name, args, func(string) string { return "" })
	require.NoError(t, err)
	require.Empty(t, rest, "not ROS arguments: %v", rest)
	conf.MasterURI = uri
	conf.Host = "127.0.0.1"
	c, err := ros.Connect(conf)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// waitSubscribers waits until c's publisher of topic has n subscribers,
// failing the test after 20 s (a subscriber that never connects is a
// defect to see, not a test to hang).
func waitSubscribers(t testing.TB, c *ros.Conn, topic string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, c.WaitSubscribers(ctx, topic, n))
}
