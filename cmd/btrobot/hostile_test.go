package main

import (
	"context"
	binenc "encoding/binary"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// rawPublisher is a peer that registers with the master as n publishers
// of a topic (n nodes, each with a slave API of its own, all sending to
// one TCPROS port) and answers every subscriber that connects with send,
// after reading its header. refused gets a value each time the subscriber
// closed a connection the peer had sent on.
type rawPublisher struct {
	refused chan struct{}
}

func startRawPublisher(t *testing.T, masterURI, topic, typ string, n int, send func(c net.Conn)) *rawPublisher {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &rawPublisher{refused: make(chan struct{}, n)}
	port := ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, _, err := master.ReadCall(http.MaxBytesReader(w, r.Body, 1<<20))
		switch {
		case err != nil:
			master.WriteFault(w, 1, err.Error())
		case method == "requestTopic":
			master.WriteResponse(w, []any{1, "", []any{"TCPROS", "127.0.0.1", port}})
		default:
			master.WriteResponse(w, []any{1, "", 0})
		}
	})}
	done := make(chan struct{})
	var apis []net.Listener
	for range n {
		api, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		apis = append(apis, api)
		go srv.Serve(api) //nolint:errcheck
	}
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := tcpros.ReadHeader(c, tcpros.HeaderLimits{}); err != nil {
					return
				}
				send(c)
				c.SetReadDeadline(time.Now().Add(30 * time.Second))
				var one [1]byte
				for {
					if _, err := c.Read(one[:]); err != nil {
						if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
							select {
							case p.refused <- struct{}{}:
							default:
							}
						}
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { srv.Close(); ln.Close(); <-done })
	for i, api := range apis {
		_, err = master.Call(context.Background(), &http.Client{Timeout: 5 * time.Second}, masterURI, "registerPublisher", 1<<20,
			"/hostile"+strconv.Itoa(i), topic, typ, "http://"+api.Addr().String()+"/")
		require.NoError(t, err)
	}
	return p
}

// declareGiB writes a length prefix of 1 GiB and 16 bytes of what it
// announces.
func declareGiB(c net.Conn) {
	b := binenc.LittleEndian.AppendUint32(nil, 1<<30)
	c.Write(append(b, make([]byte, 16)...)) //nolint:errcheck
}

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
		send       func(c net.Conn)
	}{
		{"a header declaring 1 GiB", 1, declareGiB},
		{"a message declaring 1 GiB after a valid header", 1, func(c net.Conn) {
			if tcpros.WriteHeader(c, tcpros.Header{"callerid": "/hostile", "topic": "/robot1/odom", "type": "nav_msgs/Odometry", "md5sum": odomMD5}) == nil {
				declareGiB(c)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := startRigOn(t, rigConf{})
			before := peakRSS(t, r.ctl.Process.Pid)
			p := startRawPublisher(t, r.uri, "/robot1/odom", "nav_msgs/Odometry", tc.publishers, tc.send)
			for range tc.publishers {
				select {
				case <-p.refused:
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
