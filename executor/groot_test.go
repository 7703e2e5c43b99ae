package executor

import (
	"bufio"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// grootAsk is Groot2's tree request (FULLTREE) through Debian's
// python3-zmq (libzmq), once per line read on standard input, on one
// connection as Groot2 keeps it: for each, the tree UUID of the reply and
// the length of the tree's XML on a line, then the XML. One process for
// every request of a test (a python3 and zmq start each costs as much as
// the test's own work).
const grootAsk = `import sys, zmq
c = zmq.Context()
s = c.socket(zmq.REQ)
s.setsockopt(zmq.LINGER, 0)
s.setsockopt(zmq.RCVTIMEO, 10000)
s.connect("tcp://127.0.0.1:" + sys.argv[1])
out = sys.stdout.buffer
for _ in sys.stdin:
    s.send(bytes([2, ord("T"), 1, 0, 0, 0]))
    head, xml = s.recv_multipart()
    out.write(b"%s %d\n" % (head[6:22].hex().encode(), len(xml)))
    out.write(xml)
    out.flush()
`

// grootClient is a Groot2 client asking a server for its tree.
type grootClient struct {
	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Reader
}

// newGrootClient starts grootAsk for the Groot2 server on port; it ends
// with the test.
func newGrootClient(t *testing.T, port int) *grootClient {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "-c", grootAsk, strconv.Itoa(port))
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		in.Close() // grootAsk's loop ends
		assert.NoError(t, cmd.Wait(), "grootAsk")
	})
	return &grootClient{in: in, out: bufio.NewReader(out)}
}

// askTree asks the server for its tree.
func (c *grootClient) askTree(t *testing.T) (id, xml string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := io.WriteString(c.in, "ask\n")
	require.NoError(t, err, "python3-zmq (Debian's libzmq binding) must be installed")
	head, err := c.out.ReadString('\n')
	require.NoError(t, err, "python3-zmq (Debian's libzmq binding) must be installed")
	id, size, ok := strings.Cut(strings.TrimSuffix(head, "\n"), " ")
	require.True(t, ok, "%q", head)
	_, err = hex.DecodeString(id)
	require.NoError(t, err)
	n, err := strconv.Atoi(size)
	require.NoError(t, err)
	b := make([]byte, n)
	_, err = io.ReadFull(c.out, b)
	require.NoError(t, err)
	return id, string(b)
}

// TestGrootFollowsTheGoals: with Conf.Groot, Groot2 stays attached across
// goals: between goals it is shown a tree "Idle" that names the last
// result; each goal's tree while it runs, under a new tree UUID (so
// Groot2 reloads, as with BT.CPP's publisher when a new tree is
// attached): the tree request after a second goal returns the second
// tree.
func TestGrootFollowsTheGoals(t *testing.T) {
	port := rostest.FreePortPair(t)
	s := serve(t, missionsDir(t), func(c *Conf) { c.Groot = port })
	groot := newGrootClient(t, port)
	askTree := groot.askTree
	shows := func(tree string) func() bool {
		return func() bool { _, xml := askTree(t); return strings.Contains(xml, `<BehaviorTree ID="`+tree+`"`) }
	}
	idleID, xml := askTree(t)
	assert.Contains(t, xml, `<AlwaysSuccess name="idle"`)

	first := s.send("Wait", "", "")
	require.Eventually(t, shows("Wait"), 20*time.Second, 10*time.Millisecond, "the first goal's tree")
	firstID, _ := askTree(t)
	assert.NotEqual(t, idleID, firstID)

	second := s.send("WaitToo", "", "replace")
	require.Eventually(t, shows("WaitToo"), 20*time.Second, 10*time.Millisecond, "the second goal's tree")
	secondID, xml := askTree(t)
	assert.NotEqual(t, firstID, secondID, "a new tree UUID: Groot2 reloads")
	assert.NotContains(t, xml, `<BehaviorTree ID="Wait"`)
	assert.Equal(t, "PREEMPTED", first.wait(t).outcome())

	second.cancel() // the client's Run returns at once; the server halts the run
	second.wait(t)
	require.Eventually(t, shows("Idle"), 20*time.Second, 10*time.Millisecond, "idle again")
	_, xml = askTree(t)
	assert.Contains(t, xml, "idle; last: WaitToo (goal 2): PREEMPTED")
}
