package studio_test

import (
	"testing"

	"github.com/btrobot/btrobot/ros/rostest"
)

// Every server's, run's and page stream's goroutines are gone when the
// tests end.
func TestMain(m *testing.M) {
	rostest.VerifyTestMain(m)
}
