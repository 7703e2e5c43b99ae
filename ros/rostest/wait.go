package rostest

import (
	"testing"
	"time"
)

// Eventually polls cond every few milliseconds until it holds or timeout
// passes, and fails the test with what then.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
