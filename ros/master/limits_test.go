package master

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startLimitedMaster starts a master on a free loopback port with the given
// limits, its log lines collected.
func startLimitedMaster(t *testing.T, conf Conf) (*Master, *logLines) {
	t.Helper()
	log := &logLines{}
	conf.Host = "127.0.0.1"
	conf.OnLog = log.add
	m, err := New(conf)
	require.NoError(t, err)
	require.NoError(t, m.Start())
	t.Cleanup(func() { m.Close() })
	return m, log
}

// logLines collects what a master logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, msg)
}

func (l *logLines) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// slowClient is what a client sends before it stalls, and how.
type slowClient struct {
	name string
	// send writes to the connection, stalling somewhere.
	send func(c net.Conn)
}

var slowClients = []slowClient{
	{"stalls in the header", func(c net.Conn) {
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: master\r\nContent-Type: text/x") //nolint:errcheck
	}},
	{"stalls mid-body", func(c net.Conn) {
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: master\r\nContent-Length: 1000\r\n\r\n<?xml version=\"1.0\"?><methodCall>") //nolint:errcheck
	}},
	{"trickles its body a byte at a time", func(c net.Conn) {
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: master\r\nContent-Length: 1000\r\n\r\n<methodCall>") //nolint:errcheck
		for i := 0; i < 100; i++ {
			if _, err := io.WriteString(c, " "); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}},
	{"stalls in a chunked body", func(c net.Conn) {
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: master\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n<?xml version=\"1.") //nolint:errcheck
	}},
}

// TestSlowClientsAreCutOff: a client that stops sending mid-request, or
// sends too slowly, is disconnected after RequestTimeout, while other
// clients are answered meanwhile.
func TestSlowClientsAreCutOff(t *testing.T) {
	const timeout = 500 * time.Millisecond
	for _, tc := range slowClients {
		t.Run(tc.name, func(t *testing.T) {
			m, log := startLimitedMaster(t, Conf{RequestTimeout: timeout})
			c, err := net.Dial("tcp", hostOf(t, m.URI()))
			require.NoError(t, err)
			defer c.Close()
			start := time.Now()
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				tc.send(c)
			}()
			defer func() {
				c.Close() // ends a trickle
				<-sent
			}()

			require.NoError(t, Probe(context.Background(), m.URI()), "the master does not answer others while a client stalls")

			// Upper bounds are wide: a loaded machine delays the cut-off,
			// never brings it earlier.
			c.SetReadDeadline(time.Now().Add(30 * timeout)) //nolint:errcheck
			got, err := io.ReadAll(c)
			elapsed := time.Since(start)
			// A connection closed with the client's bytes still unread in
			// the master's buffer ends in a reset, not an EOF: both are the
			// master closing it (a trickle's last byte may arrive as it
			// closes — proof run 77).
			if errors.Is(err, syscall.ECONNRESET) {
				err = nil
			}
			require.NoError(t, err, "the master did not close the connection within %v", 30*timeout)
			assert.GreaterOrEqual(t, elapsed, timeout-50*time.Millisecond, "cut off before the timeout")
			assert.NotContains(t, string(got), "methodResponse", "a stalled request was answered as if complete")
			if tc.name != "stalls in the header" {
				assert.Eventually(t, func() bool { return strings.Contains(log.all(), "did not arrive within 500ms") },
					10*time.Second, 10*time.Millisecond, "no log line for the cut-off request")
			}
		})
	}
}

// TestClientThatNeverReadsIsCutOff: a client that asks for a large answer
// and does not read it holds the master's writer no longer than
// RequestTimeout.
func TestClientThatNeverReadsIsCutOff(t *testing.T) {
	const timeout = 500 * time.Millisecond
	m, _ := startLimitedMaster(t, Conf{RequestTimeout: timeout})
	big := strings.Repeat("x", 24<<20) // more than the socket buffers hold
	m.mu.Lock()
	require.NoError(t, m.params.set("/grid", big))
	m.mu.Unlock()

	var body bytes.Buffer
	require.NoError(t, encodeMethodCall(&body, "getParam", "/viewer", "/grid"))
	c, err := net.Dial("tcp", hostOf(t, m.URI()))
	require.NoError(t, err)
	defer c.Close()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: master\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", body.Len(), body.Bytes())
	time.Sleep(3 * timeout) // not reading

	c.SetReadDeadline(time.Now().Add(5 * time.Second)) //nolint:errcheck
	got, err := io.ReadAll(c)
	if err != nil {
		require.ErrorIs(t, err, syscall.ECONNRESET, "the master did not close the connection")
	}
	assert.Less(t, len(got), len(big), "the whole answer arrived to a client that stopped reading for %v", 3*timeout)
}

// TestOversizedRequests: a body over MaxRequestBytes is read to its end,
// not kept, and answered with a fault that names the limit.
func TestOversizedRequests(t *testing.T) {
	const limit = 1 << 20
	// setParamBody is a setParam of /cfg/blob to a string that makes the
	// body n bytes long.
	setParamBody := func(n int) string {
		head := `<?xml version="1.0"?><methodCall><methodName>setParam</methodName><params>` +
			`<param><value>/loader</value></param><param><value>/cfg/blob</value></param><param><value><string>`
		tail := `</string></value></param></params></methodCall>`
		return head + strings.Repeat("u", n-len(head)-len(tail)) + tail
	}
	tests := []struct {
		name    string
		body    string
		chunked bool // no Content-Length: the master learns the size as it reads
		refused bool
	}{
		{"exactly the limit", setParamBody(limit), false, false},
		{"one byte over the limit", setParamBody(limit + 1), false, true},
		{"declared 4 MiB", setParamBody(4 << 20), false, true},
		{"chunked, exactly the limit", setParamBody(limit), true, false},
		{"chunked, 4 MiB", setParamBody(4 << 20), true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, log := startLimitedMaster(t, Conf{MaxRequestBytes: limit})
			var body io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				body = io.MultiReader(body) // hides the length
			}
			res, err := testHTTPClient(t).Post(m.URI(), "text/xml", body)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)
			v, err := decodeMethodResponse(res.Body)
			if !tc.refused {
				require.NoError(t, err)
				assert.Equal(t, 1, v.([]any)[0])
				return
			}
			require.ErrorContains(t, err, "the master takes requests of at most 1 MiB (MaxRequestBytes)")
			assert.Contains(t, log.all(), "refused")
			code, has := mustCall(t, m.URI(), "hasParam", "/t", "/cfg/blob")
			assert.Equal(t, 1, code)
			assert.Equal(t, false, has, "a refused request was kept")
		})
	}
}

// TestParamMemoryLimit: setParam past MaxParamBytes is refused with an
// error naming the limit and changes nothing; deleting or replacing frees
// room.
func TestParamMemoryLimit(t *testing.T) {
	const limit = 1 << 20
	m, log := startLimitedMaster(t, Conf{MaxParamBytes: limit})
	blob := strings.Repeat("m", 400<<10)
	steps := []struct {
		name   string
		method string
		params []any
		code   int
	}{
		{"a first 400 KiB fits", "setParam", []any{"/l", "/maps/a", blob}, 1},
		{"a second fits", "setParam", []any{"/l", "/maps/b", blob}, 1},
		{"a third does not", "setParam", []any{"/l", "/maps/c", blob}, -1},
		{"replacing one fits", "setParam", []any{"/l", "/maps/a", blob + "!"}, 1},
		{"a namespace of two does not fit over one", "setParam", []any{"/l", "/maps/a", map[string]any{"x": blob, "y": blob}}, -1},
		{"the root cannot be replaced by too much either", "setParam", []any{"/l", "/", map[string]any{"x": blob, "y": blob, "z": blob}}, -1},
		{"deleting one frees room", "deleteParam", []any{"/l", "/maps/b"}, 1},
		{"for the third", "setParam", []any{"/l", "/maps/c", blob}, 1},
		{"small parameters still fit", "setParam", []any{"/l", "/robot/max_speed", 0.5}, 1},
	}
	for _, step := range steps {
		before := m.ParamBytes()
		v, err := rawCall(t, m.URI(), step.method, step.params...)
		require.NoError(t, err, step.name)
		res := v.([]any)
		assert.Equal(t, step.code, res[0], "%s: %v", step.name, res[1])
		m.mu.Lock()
		assert.Equal(t, sizeOf(m.params.root), m.params.bytes, "%s: the count drifted", step.name)
		m.mu.Unlock()
		assert.LessOrEqual(t, m.ParamBytes(), int64(limit), step.name)
		if step.code != 1 {
			assert.Contains(t, res[1], "over the master's limit of 1 MiB (MaxParamBytes)", step.name)
			assert.Equal(t, before, m.ParamBytes(), "%s: a refused setParam changed the parameters", step.name)
		}
	}
	_, names := mustCall(t, m.URI(), "getParamNames", "/l")
	assert.ElementsMatch(t, []any{"/maps/a", "/maps/c", "/robot/max_speed"}, names)
	assert.Contains(t, log.all(), "refused setParam /maps/c from /l (127.0.0.1:")
}

// TestParamTreeCountsItsMemory: whatever is set and deleted, the count the
// limit checks equals the size of what the tree holds.
func TestParamTreeCountsItsMemory(t *testing.T) {
	values := []any{
		1, 2.5, true, "short", strings.Repeat("long", 1000), []byte("bytes"), dateTime("20260101T00:00:00"),
		[]any{1, "two", []any{3}}, map[string]any{}, map[string]any{"a": 1, "b": map[string]any{"c": "d"}},
	}
	keys := []string{"/", "/a", "/a/b", "/a/b/c", "/a/x", "/z", "/z/y/x/w", "/a/b/c/d/e"}
	rng := rand.New(rand.NewSource(7))
	p := newParamTree(0)
	for i := 0; i < 2000; i++ {
		key := keys[rng.Intn(len(keys))]
		if rng.Intn(4) == 0 {
			p.remove(key) //nolint:errcheck // unset keys are part of the walk
		} else {
			p.set(key, values[rng.Intn(len(values))]) //nolint:errcheck // the root refuses non-dictionaries
		}
		require.Equal(t, sizeOf(p.root), p.bytes, "after %d operations", i+1)
	}
}

// TestParamKeyDepthIsBounded: a key of more levels than maxKeyDepth is
// refused, so that the tree stays shallow enough for its recursive walks.
func TestParamKeyDepthIsBounded(t *testing.T) {
	m := startTestMaster(t)
	deep := strings.Repeat("/n", maxKeyDepth+1)
	code, _ := mustCall(t, m.URI(), "setParam", "/l", deep, 1)
	assert.Equal(t, 0, code)
	code, _ = mustCall(t, m.URI(), "setParam", "/l", strings.Repeat("/n", maxKeyDepth), 1)
	assert.Equal(t, 1, code)
}

// TestAnswersShareTheWorkBudget: copies of parameters made for answers
// take shares of the work budget; an answer that does not fit is a fault,
// and every share is given back when the answer is written.
func TestAnswersShareTheWorkBudget(t *testing.T) {
	const limit = 1 << 20
	m, log := startLimitedMaster(t, Conf{MaxRequestBytes: limit, MaxParamBytes: limit})
	value := strings.Repeat("b", 600<<10)
	code, _ := mustCall(t, m.URI(), "setParam", "/l", "/big", value)
	require.Equal(t, 1, code)
	fit := int(m.work.size / sizeOf(value)) // copies the budget holds

	get := map[string]any{"methodName": "getParam", "params": []any{"/v", "/big"}}
	calls := make([]any, fit+1)
	for i := range calls {
		calls[i] = get
	}
	v, err := rawCall(t, m.URI(), "system.multicall", calls)
	require.NoError(t, err)
	results := v.([]any)
	require.Len(t, results, fit+1)
	for i := 0; i < fit; i++ {
		assert.IsType(t, []any{}, results[i], "answer %d", i)
	}
	require.IsType(t, map[string]any{}, results[fit], "answer %d, over the budget", fit)
	assert.Contains(t, results[fit].(map[string]any)["faultString"], "the master is busy")
	assert.Contains(t, log.all(), "refused an answer of")
	assert.Equal(t, m.work.size, m.work.free, "shares were not given back")

	code, _ = mustCall(t, m.URI(), "getParam", "/v", "/big")
	assert.Equal(t, 1, code)
	_, names := mustCall(t, m.URI(), "getParamNames", "/v")
	assert.Equal(t, []any{"/big"}, names)
}

// TestRemoteShutdownIsLogged: a shutdown call is logged with the caller ID
// it gave, the address it came from and its reason, and StoppedBy tells.
func TestRemoteShutdownIsLogged(t *testing.T) {
	tests := []struct {
		name   string
		params []any
		want   string
	}{
		{"with a reason", []any{"/roslaunch", "mission over"}, "shutdown requested by /roslaunch from 127.0.0.1:"},
		{"without a reason", []any{"/rosnode"}, "shutdown requested by /rosnode from 127.0.0.1:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, log := startLimitedMaster(t, Conf{})
			_, ok := m.StoppedBy()
			assert.False(t, ok)
			code, _ := mustCall(t, m.URI(), "shutdown", tc.params...)
			require.Equal(t, 1, code)
			select {
			case <-m.Done():
			case <-time.After(pushTimeout):
				require.FailNow(t, "master still running after a shutdown request")
			}
			assert.Contains(t, log.all(), tc.want)
			call, ok := m.StoppedBy()
			require.True(t, ok)
			assert.Equal(t, tc.params[0], call.CallerID)
			assert.True(t, strings.HasPrefix(call.Addr, "127.0.0.1:"), call.Addr)
			if len(tc.params) == 2 {
				assert.Equal(t, tc.params[1], call.Reason)
				assert.True(t, strings.HasSuffix(log.all(), ": "+tc.params[1].(string)))
			}
		})
	}
	t.Run("Close is not a shutdown call", func(t *testing.T) {
		m, log := startLimitedMaster(t, Conf{})
		m.Close()
		_, ok := m.StoppedBy()
		assert.False(t, ok)
		assert.Empty(t, log.all())
	})
}

func TestNewRejectsNegativeLimits(t *testing.T) {
	for _, conf := range []Conf{{RequestTimeout: -1}, {MaxRequestBytes: -1}, {MaxParamBytes: -1}} {
		_, err := New(conf)
		assert.Error(t, err, "%+v", conf)
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"}, {1023, "1023 bytes"}, {1024, "1 KiB"}, {1536, "1.5 KiB"},
		{64 << 20, "64 MiB"}, {60_000_000, "57.2 MiB"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, formatBytes(tc.n), strconv.FormatInt(tc.n, 10))
	}
}

// TestGraphCountsItsMemory: whatever nodes register and unregister, and
// however they replace one another, the count the graph limit checks
// equals the memory of what the graph holds.
func TestGraphCountsItsMemory(t *testing.T) {
	m := startTestMaster(t)
	dead := deadNodeURI(t) // pushes to replaced nodes fail at once
	callers := []string{"/lidar", "/planner", "/ns/teleop"}
	apis := []string{dead, dead + "other/"}
	keys := []string{"/scan", "/cmd_vel", "/ns/odom", "/robot/max_speed"}
	types := []string{"sensor_msgs/LaserScan", "*", "geometry_msgs/Twist"}
	rng := rand.New(rand.NewSource(11))
	pick := func(list []string) string { return list[rng.Intn(len(list))] }
	from := &peer{addr: "127.0.0.1:1"}
	for i := 0; i < 3000; i++ {
		caller, api, key := pick(callers), pick(apis), pick(keys)
		var method string
		var params []any
		switch rng.Intn(8) {
		case 0:
			method, params = "registerPublisher", []any{caller, key, pick(types), api}
		case 1:
			method, params = "unregisterPublisher", []any{caller, key, api}
		case 2:
			method, params = "registerSubscriber", []any{caller, key, pick(types), api}
		case 3:
			method, params = "unregisterSubscriber", []any{caller, key, api}
		case 4:
			method, params = "registerService", []any{caller, key, "rosrpc://127.0.0.1:" + strconv.Itoa(rng.Intn(3)+1), api}
		case 5:
			method, params = "unregisterService", []any{caller, key, "rosrpc://127.0.0.1:" + strconv.Itoa(rng.Intn(3)+1)}
		case 6:
			method, params = "subscribeParam", []any{caller, api, key}
		default:
			method, params = "unsubscribeParam", []any{caller, api, key}
		}
		m.dispatch(from, method, params)
		m.mu.Lock()
		bytes, recount := m.graph.bytes, m.graph.recount()
		m.mu.Unlock()
		require.Equal(t, recount, bytes, "after %d calls, the last %s%v", i+1, method, params)
	}
}

// TestGraphMemoryLimit: registrations past MaxGraphBytes are refused with
// an error naming the limit; unregistering makes room again.
func TestGraphMemoryLimit(t *testing.T) {
	const limit = 8 << 10
	m, log := startLimitedMaster(t, Conf{MaxGraphBytes: limit})
	api := deadNodeURI(t)
	registered := 0
	var refusal string
	for i := 0; i < 1000; i++ {
		v, err := rawCall(t, m.URI(), "registerPublisher", "/flood", fmt.Sprintf("/topic_%d", i), "std_msgs/String", api)
		require.NoError(t, err)
		if res := v.([]any); res[0] != 1 {
			refusal = res[1].(string)
			break
		}
		registered++
	}
	require.NotEmpty(t, refusal, "1000 registrations fit in %s", formatBytes(limit))
	assert.Greater(t, registered, 10)
	assert.Contains(t, refusal, "ERROR: graph memory limit: registering /flood as publisher of /topic_")
	assert.Contains(t, refusal, "over the master's limit of 8 KiB (MaxGraphBytes)")
	assert.Contains(t, log.all(), "from 127.0.0.1:")
	assert.LessOrEqual(t, m.graph.bytes, int64(limit))

	// Names longer than any room left over.
	long := "/" + strings.Repeat("n", 600)
	for _, method := range []string{"registerSubscriber", "registerService", "subscribeParam"} {
		params := map[string][]any{
			"registerSubscriber": {"/late", long, "std_msgs/String", api},
			"registerService":    {"/late", long, "rosrpc://127.0.0.1:9/", api},
			"subscribeParam":     {"/late", api, long},
		}[method]
		code, _ := mustCall(t, m.URI(), method, params...)
		assert.Equal(t, -1, code, "%s past the limit", method)
	}

	for i := 0; i < 10; i++ {
		code, _ := mustCall(t, m.URI(), "unregisterPublisher", "/flood", fmt.Sprintf("/topic_%d", i), api)
		require.Equal(t, 1, code)
	}
	code, _ := mustCall(t, m.URI(), "registerSubscriber", "/late", "/topic_x", "std_msgs/String", api)
	assert.Equal(t, 1, code, "unregistering made no room")
}

// TestConnectionLimit: past MaxConnections a new client is made room for
// at once, by closing a connection idle between requests, or else the one
// longest in its request.
func TestConnectionLimit(t *testing.T) {
	const limit = 4
	tests := []struct {
		name string
		// occupy takes every slot of the master at uri and returns the
		// connection that must be closed to make room, if known.
		occupy func(t *testing.T, uri string) net.Conn
		log    string
	}{
		{"an idle keep-alive connection is closed", func(t *testing.T, uri string) net.Conn {
			for i := 0; i < limit; i++ {
				tr := &http.Transport{}
				t.Cleanup(tr.CloseIdleConnections)
				c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
				var body bytes.Buffer
				require.NoError(t, encodeMethodCall(&body, "getPid", "/idle"))
				res, err := c.Post(uri, "text/xml", &body)
				require.NoError(t, err)
				io.Copy(io.Discard, res.Body) //nolint:errcheck
				res.Body.Close()              // the connection stays open, idle
			}
			return nil
		}, ""},
		{"the connection longest in its request is closed", func(t *testing.T, uri string) net.Conn {
			var first net.Conn
			for i := 0; i < limit; i++ {
				c, err := net.Dial("tcp", hostOf(t, uri))
				require.NoError(t, err)
				t.Cleanup(func() { c.Close() })
				io.WriteString(c, "POST / HTTP/1.1\r\nHost: master\r\n") //nolint:errcheck
				if first == nil {
					first = c
				}
				time.Sleep(20 * time.Millisecond) // accepted, in order
			}
			return first
		}, "in a request for"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The timeout is far longer than the test: room is made, not waited for.
			m, log := startLimitedMaster(t, Conf{MaxConnections: limit, RequestTimeout: time.Minute})
			victim := tc.occupy(t, m.URI())
			code, _ := mustCall(t, m.URI(), "getPid", "/next")
			assert.Equal(t, 1, code)
			if victim != nil {
				victim.SetReadDeadline(time.Now().Add(5 * time.Second)) //nolint:errcheck
				_, err := io.ReadAll(victim)
				assert.NoError(t, err, "the oldest stalled connection is still open")
			}
			assert.Contains(t, log.all(), tc.log)
		})
	}
}

// TestALargeRequestsBodyIsTimedFromItsShare: a large request that waited
// for its share of the work budget gets RequestTimeout for its body from
// when the share came, not from its header: the master did not read it
// while it waited (ros/master TestMemoryUnderLargeRequests: one of 8
// setParams of 30 MB at once was cut off, unanswered, on a loaded
// machine, having waited most of its timeout). A body that stalls once
// read is still cut off.
func TestALargeRequestsBodyIsTimedFromItsShare(t *testing.T) {
	const timeout = 4 * time.Second
	for _, tc := range []struct {
		name     string
		rest     bool // the rest of the body is sent (else it stalls)
		answered bool
	}{
		{"its body comes within the timeout of its share", true, true},
		{"its body stalls", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, log := startLimitedMaster(t, Conf{RequestTimeout: timeout})
			// Every byte of the budget taken: the request waits.
			require.NoError(t, m.work.acquire(context.Background(), m.work.size))
			var body strings.Builder
			require.NoError(t, encodeMethodCall(&body, "setParam", "/l", "/big", strings.Repeat("b", 2*smallRequest)))
			half := body.Len() / 2
			c, err := net.Dial("tcp", hostOf(t, m.URI()))
			require.NoError(t, err)
			defer c.Close()
			headerSent := time.Now()
			_, err = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: master\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", body.Len(), body.String()[:half])
			require.NoError(t, err)
			// The time waited is what is tested: the share given half a
			// timeout in (half a timeout before the wait would end: a
			// loaded machine only makes it later), the rest sent once
			// a timeout from the header has passed — after the
			// header's deadline whatever the load, half a timeout
			// before the share's.
			time.Sleep(timeout / 2)
			m.work.release(m.work.size)
			if tc.rest {
				time.Sleep(time.Until(headerSent.Add(timeout + 100*time.Millisecond)))
				_, err = io.WriteString(c, body.String()[half:])
				require.NoError(t, err)
			}
			c.SetReadDeadline(time.Now().Add(30 * timeout)) //nolint:errcheck
			got, err := io.ReadAll(c)
			if errors.Is(err, syscall.ECONNRESET) {
				err = nil
			}
			require.NoError(t, err)
			if !tc.answered {
				assert.NotContains(t, string(got), "methodResponse")
				assert.Eventually(t, func() bool { return strings.Contains(log.all(), "did not arrive within 4s") },
					10*time.Second, 10*time.Millisecond, "no log line for the cut-off request")
				return
			}
			assert.Contains(t, string(got), "parameter /big set", "the request was not answered:\n%s", log.all())
			assert.NotContains(t, log.all(), "cut off")
		})
	}
}
