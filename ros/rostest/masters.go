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
		port, err := freePorts(1)
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

// waitForMaster polls getPid until the rosmaster started as p answers (a
// master of another process on the port does not count), its process exits
// or the start timeout passes.
func waitForMaster(uri string, p *Process) error {
	deadline := time.Now().Add(rosmasterStartTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		pid, err := master.ProbePid(ctx, uri)
		cancel()
		if err == nil && pid == p.Pid() {
			return nil
		}
		if err == nil {
			// Another master holds the port (rosmaster cannot bind it):
			// its nodes are another test's.
			return fmt.Errorf("%s is answered by process %d, not by the rosmaster started (%d)", uri, pid, p.Pid())
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

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago,
// drawn below the kernel's ephemeral range (see freePorts).
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// FreePortPair returns a TCP port p on 127.0.0.1 such that p and p+1 were
// both free a moment ago (Groot2's server takes two ports in a row), drawn
// below the kernel's ephemeral range (see freePorts).
func FreePortPair(t testing.TB) int {
	t.Helper()
	port, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// freePorts returns a port p on 127.0.0.1 such that p to p+n-1 were free a
// moment ago, drawn at random below the kernel's ephemeral range. A port
// found free inside that range is what the kernel hands out next to any
// listener on port 0 (the embedded masters of the tests running beside
// this one) and to outgoing connections: a rosmaster started on it a
// moment later could find it taken, and its URI would then reach the other
// test's master. Inside the range, n free ports in a row are also rare on a
// machine busy with connections (tens of thousands in TIME_WAIT after a
// test suite).
func freePorts(n int) (int, error) {
	low := ephemeralLow()
	for range 500 {
		p := 10000 + rand.IntN(low-10000-n)
		var held []net.Listener
		for i := range n {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+i))
			if err != nil {
				break
			}
			held = append(held, ln)
		}
		for _, ln := range held {
			ln.Close()
		}
		if len(held) == n {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no %d free ports in a row between 10000 and %d", n, low)
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768
// where it cannot be read).
func ephemeralLow() int {
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil && v > 11000 {
				return v
			}
		}
	}
	return 32768
}

// EachMaster runs f as a subtest against each of Masters (the embedded
// master and Debian's rosmaster), with the URI of one it started.
func EachMaster(t *testing.T, f func(t *testing.T, uri string)) {
	for _, m := range Masters() {
		t.Run(m.Name, func(t *testing.T) { f(t, m.Start(t)) })
	}
}
