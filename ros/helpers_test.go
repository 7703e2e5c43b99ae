package ros

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// connect joins the graph at uri as a node called name and leaves when the
// test ends.
func connect(t testing.TB, uri, name string, args ...string) *Conn {
	t.Helper()
	return connectWire(t, uri, "", name, args...)
}

// connectWire is connect on a chosen wire (Conf.Wire).
func connectWire(t testing.TB, uri, wire, name string, args ...string) *Conn {
	t.Helper()
	conf, rest, err := ConfFromArgs(name, args, func(string) string { return "" })
	require.NoError(t, err)
	require.Empty(t, rest, "not ROS arguments: %v", rest)

	conf.MasterURI = uri
	conf.Host = "127.0.0.1"
	conf.Wire = wire
	c, err := Connect(conf)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}
