package studio_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every server's, run's and page stream's goroutines are gone when the
// tests end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
