package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// syncBuffer is a bytes.Buffer that a command writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMasterCommand: btrobot master listens where --host says (loopback
// unless told), and a shutdown call from the network, made here with
// Python's xmlrpc.client, ends it with exit 1 and a line saying who made it.
func TestMasterCommand(t *testing.T) {
	rostest.Require(t, "python3")
	hostName, _ := os.Hostname()
	tests := []struct {
		name    string
		args    []string
		wantURI string // prefix of the URI printed
	}{
		{"loopback by default", []string{"--port", "0"}, "http://127.0.0.1:"},
		{"every interface with --host 0.0.0.0", []string{"--port", "0", "--host", "0.0.0.0"}, "http://" + hostName + ":"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, printed := io.Pipe()
			var stderr syncBuffer
			exit := make(chan int, 1)
			go func() {
				exit <- run(append([]string{"master"}, tc.args...), printed, &stderr)
				printed.Close()
			}()
			line, err := bufio.NewReader(stdout).ReadString('\n')
			require.NoError(t, err, "stderr: %s", stderr.String())
			go io.Copy(io.Discard, stdout) //nolint:errcheck // ends when the command does
			uri := strings.TrimSpace(strings.TrimPrefix(line, "ROS master listening at "))
			assert.True(t, strings.HasPrefix(uri, tc.wantURI), "printed %q, want a URI starting %q", line, tc.wantURI)

			port := uri[strings.LastIndex(uri, ":"):]
			rostest.Run(t, "http://127.0.0.1"+port, 30*time.Second, rostest.PythonPath, "-c",
				"import sys, xmlrpc.client; xmlrpc.client.ServerProxy(sys.argv[1]).shutdown('/maintenance', 'replacing the lidar')",
				"http://127.0.0.1"+port)
			select {
			case code := <-exit:
				assert.Equal(t, exitFailed, code)
			case <-time.After(10 * time.Second):
				require.FailNow(t, "btrobot master still runs after a shutdown call")
			}
			assert.Regexp(t, `btrobot master: shut down by /maintenance from 127\.0\.0\.1:\d+: replacing the lidar\n$`, stderr.String())
		})
	}
}
