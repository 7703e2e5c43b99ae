package view

import (
	"testing"

	"go.uber.org/goleak"
)

// Every view's drawing goroutine is gone once it is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
