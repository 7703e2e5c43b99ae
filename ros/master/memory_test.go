package master

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childMasterEnv, set in the environment of this test binary, makes it run
// a master with the default limits instead of the tests (see TestMain), so
// that a test can measure the memory of a master process of its own.
const childMasterEnv = "BTROBOT_TEST_CHILD_MASTER"

// runChildMaster serves a master on a free loopback port, prints its URI
// and stops when its standard input closes. The variable's value is the
// master's RequestTimeout, or "default".
func runChildMaster() int {
	var conf Conf
	if v := os.Getenv(childMasterEnv); v != "default" {
		timeout, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		conf.RequestTimeout = timeout
	}
	m, err := New(conf)
	if err == nil {
		err = m.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(m.URI())
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck
	m.Close()
	return 0
}

// childMaster is a master running in a process of its own.
type childMaster struct {
	uri string
	pid int
}

// startChildMaster runs this test binary as a master process with the
// default limits and the given RequestTimeout (0 for the default), stopped
// when the test ends.
func startChildMaster(t *testing.T, timeout time.Duration) childMaster {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	value := "default"
	if timeout > 0 {
		value = timeout.String()
	}
	cmd.Env = append(os.Environ(), childMasterEnv+"="+value)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() {
			defer close(done)
			cmd.Wait() //nolint:errcheck
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() //nolint:errcheck
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the master process printed no URI")
	return childMaster{uri: strings.TrimSpace(line), pid: cmd.Process.Pid}
}

// memory returns a /proc/PID/status field in bytes: VmRSS (resident now)
// or VmHWM (the most ever resident).
func (c childMaster) memory(t *testing.T, field string) int64 {
	t.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(c.pid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, c.pid)
	return 0
}

// repeated is a reader of n copies of one byte: the body of a large request
// that the client does not hold in memory either.
type repeated struct {
	b byte
	n int64
}

func (r *repeated) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.b
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// streamSetParam sends setParam of key to a string of size bytes, streamed,
// and returns the fault or the status message.
func streamSetParam(uri, key string, size int64) string {
	head := `<?xml version="1.0"?><methodCall><methodName>setParam</methodName><params>` +
		`<param><value>/attacker</value></param><param><value>` + key + `</value></param><param><value><string>`
	tail := `</string></value></param></params></methodCall>`
	body := io.MultiReader(strings.NewReader(head), &repeated{b: 'a', n: size}, strings.NewReader(tail))
	return post(uri, body, int64(len(head)+len(tail))+size, 1)
}

// post sends an XML-RPC request and returns the fault, or item of the
// answer [code, statusMessage, value], or what went wrong.
func post(uri string, body io.Reader, size int64, item int) string {
	req, err := http.NewRequest(http.MethodPost, uri, body)
	if err != nil {
		return err.Error()
	}
	req.ContentLength = size
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	v, err := decodeMethodResponse(res.Body)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(v.([]any)[item])
}

// atOnce runs n calls of f concurrently and returns their results.
func atOnce(n int, f func(i int) string) []string {
	out := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = f(i)
		}()
	}
	wg.Wait()
	return out
}

// count counts the results that contain substr.
func count(results []string, substr string) int {
	n := 0
	for _, r := range results {
		if strings.Contains(r, substr) {
			n++
		}
	}
	return n
}

// countEqual counts the results that are want.
func countEqual(results []string, want string) int {
	n := 0
	for _, r := range results {
		if r == want {
			n++
		}
	}
	return n
}

// pythonPath is Debian's Python, which the ROS tools run with.
const pythonPath = "/usr/bin/python3"

// requirePython skips the test when Debian's Python is missing, and fails
// it on CI, where it must be there (ros/rostest cannot be used from inside
// this package: it imports it).
func requirePython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(pythonPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: apt-get install python3", pythonPath)
		}
		t.Skipf("%s is missing: apt-get install python3", pythonPath)
	}
}

// largeParamsScript sends n setParams of size bytes each with Python's
// xmlrpc.client, one after another, and prints each answer or fault.
const largeParamsScript = `
import sys, xmlrpc.client
uri, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
master = xmlrpc.client.ServerProxy(uri)
for i in range(n):
    try:
        print("answer", master.setParam("/attacker", "/blob%d" % i, "p" * size)[1], flush=True)
    except xmlrpc.client.Fault as f:
        print("fault", f.faultString, flush=True)
`

// TestMemoryUnderLargeRequests runs attacks on a master process with the
// default limits and measures its memory: what stays resident afterwards
// must come back under 200 MB (the issue saw 1 GB after 8 setParams of
// 60 MB), and the peak must stay bounded too.
func TestMemoryUnderLargeRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("sends gigabytes through the master")
	}
	const (
		afterBound = 200 << 20
		peakBound  = 400 << 20
		mb         = 1_000_000
	)
	tests := []struct {
		name    string
		timeout time.Duration // the master's RequestTimeout; 0 for the default
		attack  func(t *testing.T, uri string)
	}{
		{"Python: 8 setParams of 60 MB, one after another", 0, func(t *testing.T, uri string) {
			requirePython(t)
			out, err := exec.Command(pythonPath, "-c", largeParamsScript, uri, "8", strconv.Itoa(60*mb)).CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Equal(t, 8, strings.Count(string(out), "fault request of 57.2 MiB refused: the master takes requests of at most 32 MiB (MaxRequestBytes)"), "%s", out)
		}},
		{"8 setParams of 60 MB at once", 0, func(t *testing.T, uri string) {
			results := atOnce(8, func(i int) string { return streamSetParam(uri, fmt.Sprintf("/blob%d", i), 60*mb) })
			assert.Equal(t, 8, count(results, "(MaxRequestBytes)"), "%q", results)
		}},
		{"8 setParams of 30 MB at once, under the request limit", 0, func(t *testing.T, uri string) {
			results := atOnce(8, func(i int) string { return streamSetParam(uri, fmt.Sprintf("/blob%d", i), 30*mb) })
			assert.Equal(t, 2, count(results, "parameter /blob"), "%q", results)
			assert.Equal(t, 6, count(results, "over the master's limit of 64 MiB (MaxParamBytes)"), "%q", results)
			// 8 clients at once ask for everything back and read slowly.
			var get strings.Builder
			require.NoError(t, encodeMethodCall(&get, "getParam", "/reader", "/"))
			answers := atOnce(8, func(int) string {
				return post(uri, strings.NewReader(get.String()), int64(get.Len()), 0)
			})
			assert.GreaterOrEqual(t, countEqual(answers, "1"), 1, "%q", answers)
			assert.Equal(t, 8, countEqual(answers, "1")+count(answers, "the master is busy"), "%q", answers)
		}},
		{"8 clients register publishers of long names until refused", 0, func(t *testing.T, uri string) {
			long := strings.Repeat("t", 1000)
			results := atOnce(8, func(c int) string {
				for i := 0; ; i++ {
					var body strings.Builder
					encodeMethodCall(&body, "registerPublisher", fmt.Sprintf("/flood%d", c), //nolint:errcheck
						fmt.Sprintf("/%s/%d", long, i), "std_msgs/String", "http://127.0.0.1:1/")
					if msg := post(uri, strings.NewReader(body.String()), int64(body.Len()), 1); !strings.HasPrefix(msg, "Registered") {
						return fmt.Sprintf("after %d: %s", i, msg)
					}
				}
			})
			assert.Equal(t, 8, count(results, "over the master's limit of 16 MiB (MaxGraphBytes)"), "%q", results)
		}},
		{"2000 connections stall mid-body", 3 * time.Second, func(t *testing.T, uri string) {
			const n = 2000
			host := strings.TrimSuffix(strings.TrimPrefix(uri, "http://"), "/")
			conns := make([]net.Conn, 0, n)
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for i := 0; i < n; i++ {
				c, err := net.Dial("tcp", host)
				require.NoError(t, err)
				conns = append(conns, c)
				// Each declares the largest body allowed and sends a little.
				_, err = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: m\r\nContent-Length: %d\r\n\r\n<methodCall>%s",
					DefaultMaxRequestBytes, strings.Repeat(" ", 1000))
				require.NoError(t, err)
			}
			start := time.Now()
			assert.NoError(t, Probe(context.Background(), uri), "the master does not answer a small call while %d clients stall", n)
			assert.Contains(t, streamSetParam(uri, "/robot_description", 100_000), "parameter /robot_description set",
				"a 100 kB setParam waits behind the stalled clients")
			// Every stalled connection is closed by the master.
			for _, c := range conns {
				c.SetReadDeadline(start.Add(30 * time.Second)) //nolint:errcheck
				_, err := io.ReadAll(c)
				if err != nil {
					require.ErrorIs(t, err, syscall.ECONNRESET, "a stalled connection was held open")
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			master := startChildMaster(t, tc.timeout)
			tc.attack(t, master.uri)
			require.NoError(t, Probe(context.Background(), master.uri), "the master does not answer after the attack")
			peak := master.memory(t, "VmHWM")
			var rss int64
			deadline := time.Now().Add(20 * time.Second)
			for {
				if rss = master.memory(t, "VmRSS"); rss < afterBound || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			t.Logf("resident after the attack %s, at most %s", formatBytes(rss), formatBytes(peak))
			assert.Less(t, rss, int64(afterBound), "resident after the attack")
			assert.Less(t, peak, int64(peakBound), "resident at the peak")
		})
	}
}
