package main

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// peakRSS is a process's peak resident set (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	require.FailNow(t, "no VmHWM in /proc/PID/status")
	return 0
}

// TestHostilePeerCannotKillTheController: `btrobot run` (the sim profile,
// against `btrobot sim` as a process of its own) while a raw peer
// registers as a publisher of the robot's odometry, which the controller
// subscribes to, and declares 1 GiB: as its connection header, or as a
// message after a valid header. On the default wire (btrobot's own
// TCPROS) the controller refuses the connection, keeps driving the
// mission (a separate subscriber sees the robot move on) and its peak
// resident memory stays within 64 MiB of what it was (issue 24: goroslib
// allocated what the peer declared; a fatal out-of-memory there leaves
// the robot driving with nobody to stop it). goroslib's wire passes this
// too — it refuses more than 16 MiB — but allocates up to 16 MiB per
// header field before reading it, on as many connections as peers open;
// the Conn-level tests in package ros (TestTCPROSWireHostilePublisher)
// measure that difference.
func TestHostilePeerCannotKillTheController(t *testing.T) {
	odomMD5, err := msgproc.MD5(nav_msgs.Odometry{})
	require.NoError(t, err)
	cases := []struct {
		name       string
		publishers int
		send       func(c net.Conn) bool
	}{
		{"a header declaring 1 GiB", 1, func(c net.Conn) bool { return rostest.Declare(c, 1<<30) }},
		{"a message declaring 1 GiB after a valid header", 1, func(c net.Conn) bool {
			h := tcpros.Header{"callerid": "/hostile", "topic": "/robot1/odom", "type": "nav_msgs/Odometry", "md5sum": odomMD5}
			return tcpros.WriteHeader(c, h) == nil && rostest.Declare(c, 1<<30)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := startRigOn(t, rigConf{})
			before := peakRSS(t, r.ctl.Process.Pid)
			p := rostest.StartHostilePublisher(t, r.uri, "/robot1/odom", "nav_msgs/Odometry", tc.publishers, tc.send)
			for range tc.publishers {
				select {
				case <-p.Refused:
				case <-r.exited:
					require.FailNow(t, "btrobot run exited when the peer declared its size", r.out.String())
				case <-time.After(20 * time.Second):
					require.FailNow(t, "the controller neither refused every connection nor exited within 20 s", r.out.String())
				}
			}
			after := peakRSS(t, r.ctl.Process.Pid)
			t.Logf("%s: the controller's peak RSS %d MiB before, %d MiB after", tc.name, before>>20, after>>20)
			assert.Less(t, after-before, int64(64<<20), "growth of the controller's peak resident memory")
			// It goes on: the robot still drives, the controller runs.
			r.mu.Lock()
			r.speed = 0
			r.mu.Unlock()
			r.waitSpeed(0.1, 30*time.Second)
			select {
			case <-r.exited:
				require.FailNow(t, "btrobot run exited", r.out.String())
			default:
			}
		})
	}
}
