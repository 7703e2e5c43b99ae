package rostest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/btrobot/btrobot/ros/master"
)

// MasterKind is a ROS master implementation that tests can run against.
type MasterKind struct {
	// Name is "embedded" or "rosmaster", fit for t.Run.
	Name string
	// Start starts a master of this kind for the test and returns its URI.
	Start func(t testing.TB) string
}

// Masters lists the masters interop tests run against: ours, then Debian's
// reference, so that a table of cases shows both behave the same.
func Masters() []MasterKind {
	return []MasterKind{
		{Name: "embedded", Start: StartMaster},
		{Name: "rosmaster", Start: startRosmaster},
	}
}

// StartMaster starts the embedded master on 127.0.0.1 and a free port,
// closes it when the test ends, and returns its URI.
func StartMaster(t testing.TB) string {
	t.Helper()
	m, err := master.New(master.Conf{Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("close master: %v", err)
		}
	})
	return m.URI()
}

// rosmasterStartTimeout bounds how long Debian's rosmaster may take to
// answer after it was started.
const rosmasterStartTimeout = 20 * time.Second

// startRosmaster starts Debian's "rosmaster --core" on a free port, kills
// it when the test ends, and returns its URI. It requires rosmaster like
// Require does.
func startRosmaster(t testing.TB) string {
	t.Helper()
	Require(t, "rosmaster")
	var lastErr error
	// A free port can be taken between the check and rosmaster's bind:
	// try again on another.
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		uri := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
		p := start(t, Env(t, uri), "rosmaster", "--core", "-p", strconv.Itoa(port))
		if lastErr = waitForMaster(uri, p); lastErr == nil {
			return uri
		}
		p.kill(syscall.SIGKILL)
	}
	t.Fatalf("rosmaster did not start: %v", lastErr)
	return ""
}

// waitForMaster polls getPid until the master answers, its process exits
// or the start timeout passes.
func waitForMaster(uri string, p *Process) error {
	deadline := time.Now().Add(rosmasterStartTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := master.Probe(ctx, uri)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("rosmaster exited: %v", p.exitError())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer at %s within %v: %w", uri, rosmasterStartTimeout, err)
		}
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// FreePortPair returns a TCP port p on 127.0.0.1 such that p and p+1 were
// both free a moment ago (Groot2's server takes two ports in a row). The
// ports are drawn below the kernel's ephemeral range, where no outgoing
// connection takes its local port: on a machine busy with connections
// (tens of thousands in TIME_WAIT after a test suite) two free ports in a
// row are rare inside that range.
func FreePortPair(t testing.TB) int {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil && v > 11000 {
				low = v
			}
		}
	}
	for range 500 {
		p := 10000 + rand.IntN(low-10002)
		a, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+1))
		a.Close()
		if err != nil {
			continue
		}
		b.Close()
		return p
	}
	t.Fatalf("no two free ports in a row between 10000 and %d", low)
	return 0
}
