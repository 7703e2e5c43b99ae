package mission_test

import (
	"testing"

	"github.com/btrobot/btrobot/ros/rostest"
)

// Every run's goroutines (loops, connections, displays, Groot2 servers)
// are gone when the tests end.
func TestMain(m *testing.M) {
	rostest.VerifyTestMain(m)
}
