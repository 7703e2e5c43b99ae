package examples

import (
	"testing"

	"go.uber.org/goleak"
)

// Every example's goroutines (async work, simulator, studio) are gone
// when the examples end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
