package studio_test

import (
	"testing"

	"github.com/btrobot/btrobot/ros/rostest"
)

// Every server's, run's and page stream's goroutines are gone when the
// tests end, and the chromium they shared has ended.
func TestMain(m *testing.M) {
	rostest.VerifyTestMain(closingChromium{m})
}

// closingChromium runs the tests, then ends the chromium they shared.
type closingChromium struct{ m *testing.M }

func (c closingChromium) Run() int {
	code := c.m.Run()
	sharedChromium.mu.Lock()
	defer sharedChromium.mu.Unlock()
	sharedChromium.close()
	return code
}
