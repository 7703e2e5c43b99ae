package mission_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every run's goroutines (loops, connections, displays, Groot2 servers)
// are gone when the tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
