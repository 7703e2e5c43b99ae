package studio_test

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// TestSlowPeersAreCutOffButStreamsAreNot: a peer that sends a request's
// header or body slower than Conf.ReadTimeout allows is cut off (a
// slowloris holds no connection for long), while a page's stream of
// events, a request long read, lives on past it.
func TestSlowPeersAreCutOffButStreamsAreNot(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	for _, tc := range []struct {
		name string
		send string // then nothing more
	}{
		{"a header never finished", "GET /api/runs HTTP/1.1\r\nHost: %s\r\nX-Slow: "},
		{"a body never finished", "POST /api/check HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"path\":"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{ReadTimeout: readTimeout, Dir: t.TempDir()})
			c, err := net.Dial("tcp", srv.Addr())
			require.NoError(t, err)
			defer c.Close()
			_, err = fmt.Fprintf(c, tc.send, srv.Addr())
			require.NoError(t, err)
			require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Second)))
			start := time.Now()
			_, err = io.ReadAll(c) // an answer, if any, then the close
			assert.NoError(t, err, "closed by the server, not by the test's deadline")
			assert.Less(t, time.Since(start), 20*time.Second)
		})
	}
	t.Run("a stream of events outlives it", func(t *testing.T) {
		srv := newServer(t, studio.Conf{ReadTimeout: readTimeout})
		tree := bigTree(t, 12)
		dbg, detach := attach(srv, tree)
		defer detach()
		ev := openEvents(t, srv, "")
		require.Equal(t, "snapshot", ev.next().name)
		time.Sleep(4 * readTimeout) // the read deadline has passed
		tick(t, tree, dbg, 1)
		e, err := ev.nextErr()
		require.NoError(t, err, "the stream still open past the read timeout")
		assert.NotEmpty(t, e.name)
	})
}
