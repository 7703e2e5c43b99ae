package master

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// externalIP returns an IPv4 address of this machine that is not loopback,
// or "" when it has none (then only the listener's address is checked).
func externalIP(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

// TestMain fails the package if any test leaves a goroutine behind: Close
// must stop everything the master started.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestNewRejectsBadConf(t *testing.T) {
	tests := []struct {
		name string
		conf Conf
	}{
		{"negative port", Conf{Port: -1}},
		{"port too large", Conf{Port: 70000}},
	}
	for _, tc := range tests {
		_, err := New(tc.conf)
		assert.Error(t, err, "%s: New(%+v) succeeded", tc.name, tc.conf)
	}
}

func TestLifecycle(t *testing.T) {
	t.Run("URI names the host and the port chosen", func(t *testing.T) {
		m := startTestMaster(t)
		assert.True(t, strings.HasPrefix(m.URI(), "http://127.0.0.1:") && strings.HasSuffix(m.URI(), "/") && !strings.HasSuffix(m.URI(), ":0/"), "URI() = %q", m.URI())
	})
	t.Run("the host decides who reaches the master", func(t *testing.T) {
		hostName, _ := os.Hostname()
		external := externalIP(t)
		tests := []struct {
			name       string
			host       string
			listen     func(net.IP) bool // what the listener's address must be
			advertised string            // the host of URI(), "" for the name given
			fromAfar   bool              // answers on a non-loopback address
		}{
			{"empty: loopback only", "", net.IP.IsLoopback, "127.0.0.1", false},
			{"127.0.0.1: loopback only", "127.0.0.1", net.IP.IsLoopback, "", false},
			{"localhost: loopback only", "localhost", net.IP.IsLoopback, "", false},
			{"0.0.0.0: every interface, advertised by host name", "0.0.0.0", net.IP.IsUnspecified, hostName, true},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				m, err := New(Conf{Host: tc.host})
				require.NoError(t, err)
				require.NoError(t, m.Start())
				defer m.Close()
				assert.True(t, tc.listen(m.ln.Addr().(*net.TCPAddr).IP), "listening on %v", m.ln.Addr())
				host, port, err := net.SplitHostPort(hostOf(t, m.URI()))
				require.NoError(t, err)
				want := tc.advertised
				if want == "" {
					want = tc.host
				}
				assert.Equal(t, want, host, "host of URI() %q", m.URI())
				assert.NoError(t, Probe(context.Background(), "http://127.0.0.1:"+port+"/"), "no answer on loopback")
				if external != "" {
					err := Probe(context.Background(), "http://"+net.JoinHostPort(external, port)+"/")
					assert.Equal(t, tc.fromAfar, err == nil, "answer on %s: %v", external, err)
				}
			})
		}
	})
	t.Run("a taken port is an error", func(t *testing.T) {
		first := startTestMaster(t)
		_, port, _ := net.SplitHostPort(hostOf(t, first.URI()))
		n, _ := strconv.Atoi(port)
		second, err := New(Conf{Host: "127.0.0.1", Port: n})
		require.NoError(t, err)
		defer second.Close()
		assert.Error(t, second.Start(), "a second master started on a taken port")
	})
	t.Run("Start twice is an error", func(t *testing.T) {
		m := startTestMaster(t)
		assert.Error(t, m.Start(), "second Start succeeded")
	})
	t.Run("Close is idempotent, concurrent, and refuses a later Start", func(t *testing.T) {
		m := startTestMaster(t)
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				m.Close()
			}()
		}
		wg.Wait()
		select {
		case <-m.Done():
		default:
			assert.Fail(t, "Done() not closed after Close")
		}
		assert.Error(t, m.Start(), "Start after Close succeeded")
		assert.Error(t, Probe(context.Background(), m.URI()), "the master still answers after Close")
	})
	t.Run("Close of a master never started", func(t *testing.T) {
		m, err := New(Conf{})
		require.NoError(t, err)
		assert.NoError(t, m.Close())
	})
	t.Run("Close abandons pushes to a hung node", func(t *testing.T) {
		m := startTestMaster(t)
		hung := hungNodeURI(t)
		masterClient(t, m, "/frozen").RegisterSubscriber("/scan", "sensor_msgs/LaserScan", hung) //nolint:errcheck
		for i := 0; i < 5; i++ {
			masterClient(t, m, "/lidar").RegisterPublisher("/scan", "sensor_msgs/LaserScan", "http://127.0.0.1:40051/") //nolint:errcheck
		}
		start := time.Now()
		m.Close()
		d := time.Since(start)
		assert.LessOrEqual(t, d, 2*time.Second, "Close took %v with a hung node", d)
	})
}

func TestAuto(t *testing.T) {
	t.Run("uses a master that answers", func(t *testing.T) {
		m := startTestMaster(t)
		uri, closeMaster, err := Auto(context.Background(), m.URI())
		require.NoError(t, err)
		assert.Equal(t, m.URI(), uri, "Auto = %q, want the running master %q", uri, m.URI())
		assert.NoError(t, closeMaster())
		assert.NoError(t, Probe(context.Background(), m.URI()), "the closer of Auto stopped a master it did not start")
	})
	t.Run("starts one where none answers", func(t *testing.T) {
		uri := deadNodeURI(t) // a free port
		got, closeMaster, err := Auto(context.Background(), uri)
		require.NoError(t, err)
		assert.Equal(t, uri, got, "Auto = %q, want %q", got, uri)
		assert.NoError(t, Probe(context.Background(), got), "no master answers after Auto")
		assert.NoError(t, closeMaster())
		assert.Error(t, Probe(context.Background(), got), "the started master still answers after its closer ran")
	})
	t.Run("listens on loopback whatever host the URI names", func(t *testing.T) {
		external := externalIP(t)
		if external == "" {
			external = "robot.invalid" // a name, which Auto never listens on either
		}
		_, port, _ := net.SplitHostPort(hostOf(t, deadNodeURI(t)))
		got, closeMaster, err := Auto(context.Background(), "http://"+net.JoinHostPort(external, port)+"/")
		require.NoError(t, err)
		defer closeMaster() //nolint:errcheck
		assert.Equal(t, "http://127.0.0.1:"+port+"/", got, "the URI of the master Auto started")
		assert.NoError(t, Probe(context.Background(), got))
		if net.ParseIP(external) != nil {
			assert.Error(t, Probe(context.Background(), "http://"+net.JoinHostPort(external, port)+"/"),
				"the master Auto started answers on %s", external)
		}
	})
	t.Run("the master started logs shutdown calls", func(t *testing.T) {
		var lines logLines
		uri, closeMaster, err := Auto(context.Background(), deadNodeURI(t), AutoConf{OnLog: lines.add})
		require.NoError(t, err)
		defer closeMaster() //nolint:errcheck
		code, _ := mustCall(t, uri, "shutdown", "/intruder", "testing")
		require.Equal(t, 1, code)
		assert.Eventually(t, func() bool {
			return strings.Contains(lines.all(), "shutdown requested by /intruder from 127.0.0.1:")
		}, pushTimeout, 10*time.Millisecond)
	})
	t.Run("bad URIs are errors", func(t *testing.T) {
		for _, uri := range []string{"", "localhost:11311", "http://localhost/", "http://:11311/", "http://localhost:0/", "ftp://h:1/", "http://h:x/"} {
			_, _, err := Auto(context.Background(), uri)
			assert.Error(t, err, "Auto(%q) succeeded", uri)
		}
	})
	t.Run("a port taken by something else is an error", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		// Something that is not a master: it closes every connection.
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		_, _, err = Auto(context.Background(), "http://"+ln.Addr().String()+"/")
		assert.Error(t, err, "Auto succeeded on a port taken by something that is not a master")
	})
}
