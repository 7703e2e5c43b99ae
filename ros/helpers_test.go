package ros

import (
	"testing"
	"time"

	"github.com/btrobot/btrobot/ros/rostest"
)

// connect joins the graph at uri as a node called name and leaves when the
// test ends.
func connect(t testing.TB, uri, name string, args ...string) *Conn {
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
	c, err := Connect(conf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// eachMaster runs f as a subtest against the embedded master and Debian's
// rosmaster.
func eachMaster(t *testing.T, f func(t *testing.T, uri string)) {
	for _, m := range rostest.Masters() {
		t.Run(m.Name, func(t *testing.T) { f(t, m.Start(t)) })
	}
}

// eventually polls cond every few milliseconds until it holds or timeout
// passes, and fails the test with what then.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
