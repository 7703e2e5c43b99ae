package ros

import (
	"testing"
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
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) > 0 {
		t.Fatalf("not ROS arguments: %v", rest)
	}
	conf.MasterURI = uri
	conf.Host = "127.0.0.1"
	conf.Wire = wire
	c, err := Connect(conf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
