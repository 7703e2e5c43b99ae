package executor

import (
	"encoding/hex"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// grootAsk is Groot2's tree request (FULLTREE) through Debian's
// python3-zmq (libzmq): the tree UUID of the reply and the tree's XML.
const grootAsk = `import sys, zmq
c = zmq.Context()
s = c.socket(zmq.REQ)
s.setsockopt(zmq.LINGER, 0)
s.setsockopt(zmq.RCVTIMEO, 10000)
s.connect("tcp://127.0.0.1:" + sys.argv[1])
s.send(bytes([2, ord("T"), 1, 0, 0, 0]))
head, xml = s.recv_multipart()
print(head[6:22].hex())
sys.stdout.write(xml.decode())
`

// askTree asks the Groot2 server on port for its tree.
func askTree(t *testing.T, port int) (id, xml string) {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "-c", grootAsk, strconv.Itoa(port)).Output()
	require.NoError(t, err, "python3-zmq (Debian's libzmq binding) must be installed")
	id, xml, ok := strings.Cut(string(out), "\n")
	require.True(t, ok, "%q", out)
	_, err = hex.DecodeString(id)
	require.NoError(t, err)
	return id, xml
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
	shows := func(tree string) func() bool {
		return func() bool { _, xml := askTree(t, port); return strings.Contains(xml, `<BehaviorTree ID="`+tree+`"`) }
	}
	idleID, xml := askTree(t, port)
	assert.Contains(t, xml, `<AlwaysSuccess name="idle"`)

	first := s.send("Wait", "", "")
	require.Eventually(t, shows("Wait"), 20*time.Second, 10*time.Millisecond, "the first goal's tree")
	firstID, _ := askTree(t, port)
	assert.NotEqual(t, idleID, firstID)

	second := s.send("WaitToo", "", "replace")
	require.Eventually(t, shows("WaitToo"), 20*time.Second, 10*time.Millisecond, "the second goal's tree")
	secondID, xml := askTree(t, port)
	assert.NotEqual(t, firstID, secondID, "a new tree UUID: Groot2 reloads")
	assert.NotContains(t, xml, `<BehaviorTree ID="Wait"`)
	assert.Equal(t, "PREEMPTED", first.wait(t).outcome())

	second.cancel() // the client's Run returns at once; the server halts the run
	second.wait(t)
	require.Eventually(t, shows("Idle"), 20*time.Second, 10*time.Millisecond, "idle again")
	_, xml = askTree(t, port)
	assert.Contains(t, xml, "idle; last: WaitToo (goal 2): PREEMPTED")
}
