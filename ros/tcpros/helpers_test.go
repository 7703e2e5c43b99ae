package tcpros_test

import (
	"reflect"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// typeOf returns a message's ROS name, MD5 sum and definition, from
// goroslib's msgproc (as ros.Messages computes them).
func typeOf(t testing.TB, m any) (name, md5, def string) {
	m = reflect.ValueOf(m).Elem().Interface()
	name, err := msgproc.Type(m)
	require.NoError(t, err)
	md5, err = msgproc.MD5(m)
	require.NoError(t, err)
	def, err = msgproc.Definition(m)
	require.NoError(t, err)
	return name, md5, def
}

// newServer starts a server that the test closes, checking that no
// goroutine outlives it.
func newServer(t *testing.T, conf tcpros.ServerConf) *tcpros.Server {
	t.Helper()
	// The embedded master of interop tests serves the ROS tools' HTTP
	// connections as long as they last, and keeps its connections to the
	// rospy peer's slave API (publisherUpdate) as long as it lives, past a
	// subtest (TestInteropRospy checks they end with it); this package has
	// no HTTP.
	opts := []goleak.Option{
		goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
	}
	if conf.CallerID == "" {
		conf.CallerID = "/btrobot_test"
	}
	s, err := tcpros.NewServer(conf)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, s.Close())
		goleak.VerifyNone(t, opts...)
	})
	return s
}

// publish serves a topic of m's type on s.
func publish(t *testing.T, s *tcpros.Server, topic string, m any, latch bool) *tcpros.Publisher {
	t.Helper()
	name, md5, def := typeOf(t, m)
	p, err := s.Publish(tcpros.PublisherConf{Topic: topic, Type: name, MD5: md5, Definition: def, Latch: latch})
	require.NoError(t, err)
	return p
}
