package skills

import (
	"testing"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestMain fails the package if a test leaves a goroutine behind: every
// goal's work, every claim and every ROS connection must be gone when its
// tree and connection are.
func TestMain(m *testing.M) { rostest.VerifyTestMain(m) }
