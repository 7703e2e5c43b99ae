package mission_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every run's goroutines (loops, connections, displays) are gone when the
// tests end; but zmq4 v0.17.0's PUB socket never stops its writer
// goroutine (Close does not reach pubMWriter.Close): one idle goroutine
// per closed Groot2 server.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/go-zeromq/zmq4.(*pubMWriter).run"))
}
