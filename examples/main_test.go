package examples

import (
	"testing"

	"github.com/btrobot/btrobot/ros/rostest"
)

// Every example's goroutines (async work, simulator, studio) are gone
// when the examples end.
func TestMain(m *testing.M) {
	rostest.VerifyTestMain(m)
}
