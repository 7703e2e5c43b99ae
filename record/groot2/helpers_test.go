package groot2

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

const pythonPath = "/usr/bin/python3"

// groot2Process is testdata/client.py: Groot2's side of the protocol over
// libzmq, one process for the whole run (started by the first test that
// needs it, ended by TestMain), since starting a Python that imports zmq
// costs more CPU than a test's requests. Each test has a session of its
// own in it: a REQ and a SUB on that test's server.
type groot2Process struct {
	mu  sync.Mutex // one command and its answer at a time
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

var (
	sharedMu sync.Mutex
	shared   *groot2Process
)

// groot2Client returns the running client.py, starting it if need be.
func groot2Client(t *testing.T) *groot2Process {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		return shared
	}
	cmd := exec.Command(pythonPath, "testdata/client.py")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	p := &groot2Process{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	p.out.Buffer(make([]byte, 1<<20), 16<<20)
	if !p.out.Scan() {
		p.stop()
		require.FailNow(t, "the client did not start")
	}
	shared = p
	return p
}

// stopGroot2Client ends client.py, if it was started: it exits when its
// stdin closes.
func stopGroot2Client() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.stop()
		shared = nil
	}
}

func (p *groot2Process) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// call sends one command and returns its answer's line.
func (p *groot2Process) call(t *testing.T, cmd map[string]any) []byte {
	t.Helper()
	line, _ := json.Marshal(cmd)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.in.Write(append(line, '\n'))
	require.NoError(t, err)
	require.True(t, p.out.Scan(), "the client died")
	return slices.Clone(p.out.Bytes())
}

// client is one test's Groot2: a session of client.py connected to the
// server on port (REQ) and port+1 (SUB), closed when the test ends.
type client struct {
	t       *testing.T
	p       *groot2Process
	session int
}

func startClient(t *testing.T, port int) *client {
	t.Helper()
	rostest.Require(t, "zmq") // libzmq's Python binding, as Groot2 links libzmq
	p := groot2Client(t)
	var opened struct{ Session int }
	require.NoError(t, json.Unmarshal(p.call(t, map[string]any{"op": "open", "port": port}), &opened))
	require.NotZero(t, opened.Session, "the client opened no session")
	t.Cleanup(func() { p.call(t, map[string]any{"op": "close", "session": opened.Session}) })
	return &client{t: t, p: p, session: opened.Session}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func (c *client) do(cmd map[string]any) [][]byte {
	c.t.Helper()
	cmd["session"] = c.session
	var ans struct {
		Frames []string
		Error  string
	}
	require.NoError(c.t, json.Unmarshal(c.p.call(c.t, cmd), &ans))
	require.Empty(c.t, ans.Error, "client: %s", ans.Error)
	frames := make([][]byte, len(ans.Frames))
	for i, f := range ans.Frames {
		var err error
		frames[i], err = hex.DecodeString(f)
		require.NoError(c.t, err)
	}
	return frames
}

// request sends a request of type typ with id and optional argument.
func (c *client) request(typ byte, id uint32, arg ...string) [][]byte {
	c.t.Helper()
	frames := []string{hex.EncodeToString(header(typ, id))}
	for _, a := range arg {
		frames = append(frames, hex.EncodeToString([]byte(a)))
	}
	return c.do(map[string]any{"op": "req", "frames": frames})
}

func (c *client) raw(frames ...[]byte) [][]byte {
	c.t.Helper()
	hx := make([]string, len(frames))
	for i, f := range frames {
		hx[i] = hex.EncodeToString(f)
	}
	return c.do(map[string]any{"op": "req", "frames": hx})
}

// published waits for one message on the PUB socket.
func (c *client) published() [][]byte {
	c.t.Helper()
	return c.do(map[string]any{"op": "sub"})
}

func header(typ byte, id uint32) []byte {
	b := []byte{2, typ, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[2:], id)
	return b
}

// replyHeader is what every reply must start with.
func replyHeader(typ byte, id uint32, tree uuid.UUID) []byte {
	return append(header(typ, id), tree[:]...)
}

const patrolXML = `<root BTCPP_format="4" main_tree_to_execute="Patrol">
  <BehaviorTree ID="Patrol">
    <Sequence name="patrol">
      <Script name="counters" code="visits := 0; battery := 100.0; place := 'dock'"/>
      <Repeat name="forever" num_cycles="-1">
        <SubTree ID="Step" _autoremap="true"/>
      </Repeat>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Step">
    <Sequence name="step">
      <Sleep name="drive" msec="20"/>
      <Script name="count" code="visits += 1; battery -= 0.5; _mine := 7"/>
    </Sequence>
  </BehaviorTree>
</root>`

// patrol builds a small patrol-like tree on a manual clock.
func patrol(t testing.TB) (*runtime.Tree, *runtime.Document, *runtime.ManualClock) {
	t.Helper()
	doc, err := trees.Parse("patrol.xml", []byte(patrolXML))
	require.NoError(t, err)
	clock := runtime.NewManualClock(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: clock})
	require.NoError(t, err)
	return tree, doc, clock
}
