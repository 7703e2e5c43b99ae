package ros

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apislave"
)

// TCPROS has no acknowledgement of its own: a publisher writes a message to
// each subscriber's connection and learns nothing more. Whether a zero
// velocity reached a subscriber is read, on Linux, from the kernel's table
// of TCP connections (/proc/net/tcp, /proc/net/tcp6): a connection of the
// node's TCPROS port whose send queue is empty has had every byte written
// to it acknowledged by the peer's TCP, which does so only while the
// peer's socket is open. goroslib says nothing of which connection carries
// which topic, so Stop counts the connections of the whole port that did
// not acknowledge in time and subtracts them from the subscribers of the
// velocity topic: what is left is a lower bound of the subscribers that
// got the zero velocity. A subscriber that never reads (its window full)
// is one of those, and so is one whose connection goroslib had stopped
// writing to because its queue was full.

// tcpSendQueues returns, for every established TCP connection whose local
// port is port, the bytes written to it that its peer has not acknowledged,
// by remote address. ok is false where the kernel's table cannot be read
// (not Linux).
func tcpSendQueues(port int) (queues map[string]int, ok bool) {
	queues = map[string]int{}
	read := false
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		read = true
		parseTCPTable(io.LimitReader(fh, 64<<20), port, queues)
		fh.Close()
	}
	return queues, read
}

// parseTCPTable adds the established connections of a /proc/net/tcp table
// whose local port is port to queues: remote address -> send queue.
func parseTCPTable(r io.Reader, port int, queues map[string]int) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// sl local_address rem_address st tx_queue:rx_queue ...
		if len(f) < 5 || f[3] != "01" { // 01: ESTABLISHED
			continue
		}
		_, lport, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(lport, 16, 16); err != nil || int(p) != port {
			continue
		}
		tx, _, _ := strings.Cut(f[4], ":")
		n, err := strconv.ParseUint(tx, 16, 32)
		if err != nil {
			continue
		}
		queues[f[2]] = int(n)
	}
}

// tcprosPort returns the port of the node's TCPROS server, asked of its own
// slave API for a topic it publishes (no master needed).
func (w *rosWire) tcprosPort(topic string) (int, error) {
	w.mu.Lock()
	port := w.tcpros
	w.mu.Unlock()
	if port != 0 {
		return port, nil
	}
	u, err := url.Parse(w.slaveURI)
	if err != nil || u.Host == "" {
		return 0, fmt.Errorf("the node's own slave URI %q: %v", w.slaveURI, err)
	}
	sc := apislave.NewClient(u.Host, w.name, &http.Client{Timeout: time.Second})
	res, err := sc.RequestTopic(topic, [][]any{{"TCPROS"}})
	if err != nil {
		return 0, fmt.Errorf("the node's TCPROS port: %w", err)
	}
	if len(res) != 3 {
		return 0, fmt.Errorf("the node's TCPROS port: its slave API answered %v", res)
	}
	switch p := res[2].(type) {
	case int:
		port = p
	case int32:
		port = int(p)
	default:
		return 0, fmt.Errorf("the node's TCPROS port: its slave API answered %v", res)
	}
	w.mu.Lock()
	w.tcpros = port
	w.mu.Unlock()
	return port, nil
}

// unacknowledged waits until every established connection of the node's
// TCPROS port has had what was written to it acknowledged, or until
// deadline, and returns how many had not then; ok is false when that
// cannot be known (no kernel table, or no port).
func (w *rosWire) unacknowledged(topic string, deadline time.Time) (n int, ok bool) {
	port, err := w.tcprosPort(topic)
	if err != nil {
		return 0, false
	}
	return unacknowledgedOnPort(port, deadline)
}

// unacknowledgedOnPort is unacknowledged for the TCPROS port port.
func unacknowledgedOnPort(port int, deadline time.Time) (n int, ok bool) {
	for {
		queues, ok := tcpSendQueues(port)
		if !ok {
			return 0, false
		}
		n = 0
		for _, q := range queues {
			if q > 0 {
				n++
			}
		}
		if n == 0 || !time.Now().Before(deadline) {
			return n, true
		}
		time.Sleep(2 * time.Millisecond)
	}
}
