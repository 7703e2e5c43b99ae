package bridge

import (
	"testing"

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
