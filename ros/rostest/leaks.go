package rostest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// LeakSettle is how long a leak check waits for goroutines to end before
// it calls them leaked. ros.Conn.Close returns within a second and leaves
// the rest of goroslib's teardown of the node's own servers to end in the
// background: net/http gives a connection a peer opened and never used
// five seconds. Such a goroutine ends on its own in bounded time; one that
// is still there after LeakSettle is a leak.
const LeakSettle = 10 * time.Second

// VerifyTestMain runs a package's tests (m is a *testing.M, or what wraps
// one to end what the tests shared), then fails the package if a
// goroutine they started is still running LeakSettle later (goleak's
// VerifyTestMain, patient for what Conn.Close leaves to finish).
func VerifyTestMain(m interface{ Run() int }, opts ...goleak.Option) {
	code := m.Run()
	if code == 0 {
		if err := settled(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// VerifyNoLeaks checks, once t and its subtests (parallel ones too) are
// done, that every goroutine they started has ended within LeakSettle.
func VerifyNoLeaks(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		if err := settled(before); err != nil {
			t.Error(err)
		}
	})
}

func settled(opts ...goleak.Option) error {
	deadline := time.Now().Add(LeakSettle)
	for {
		err := goleak.Find(opts...) // itself retries for a moment
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
