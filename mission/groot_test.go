package mission_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

// grootClient is record/groot2's test client: Groot2's side of the
// protocol over Debian's python3-zmq (libzmq, as Groot2 links).
type grootClient struct {
	t       *testing.T
	in      interface{ Write([]byte) (int, error) }
	out     *bufio.Scanner
	session int // client.py's session for the server on the port
}

func startGrootClient(t *testing.T, port int) *grootClient {
	t.Helper()
	rostest.Require(t, "zmq") // libzmq's Python binding, as Groot2 links libzmq
	cmd := exec.Command(rostest.PythonPath, "../record/groot2/testdata/client.py")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	c := &grootClient{t: t, in: in, out: bufio.NewScanner(out)}
	require.True(t, c.out.Scan(), "the client did not start")
	c.session = c.ask(map[string]any{"op": "open", "port": port}).Session
	require.NotZero(t, c.session, "the client opened no session")
	return c
}

// answer is a line client.py printed for a command.
type answer struct {
	Session int
	Frames  []string
	Error   string
}

// ask sends a command to client.py and returns its answer.
func (c *grootClient) ask(cmd map[string]any) answer {
	c.t.Helper()
	line, _ := json.Marshal(cmd)
	_, err := c.in.Write(append(line, '\n'))
	require.NoError(c.t, err)
	require.True(c.t, c.out.Scan(), "the client died")
	var ans answer
	require.NoError(c.t, json.Unmarshal(c.out.Bytes(), &ans))
	return ans
}

// request sends request typ with its argument; the reply's frames.
func (c *grootClient) request(typ byte, id uint32, arg string) [][]byte {
	h := []byte{2, typ, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(h[2:], id)
	return c.do(map[string]any{"op": "req", "frames": []string{hex.EncodeToString(h), hex.EncodeToString([]byte(arg))}})
}

// do sends a command on the client's session; the answer's frames.
func (c *grootClient) do(cmd map[string]any) [][]byte {
	c.t.Helper()
	cmd["session"] = c.session
	ans := c.ask(cmd)
	require.Empty(c.t, ans.Error)
	var frames [][]byte
	for _, f := range ans.Frames {
		b, err := hex.DecodeString(f)
		require.NoError(c.t, err)
		frames = append(frames, b)
	}
	return frames
}

// TestGrootBreakpointStopsTheRobot: the patrol on the simulator at real
// time, served to Groot2 (RunConf.Groot). A breakpoint on the root pauses
// the tree: a zero Twist reaches the robot's cmd_vel, and neither the
// watchdog (3 periods) nor the stall monitor speaks while the pause lasts
// longer than both; unlocked, the mission ticks on; interrupted while
// paused, the run ends (the tick is released) with the robot stopped.
func TestGrootBreakpointStopsTheRobot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		unlock bool // else: interrupted while paused
	}{
		{name: "unlocked by Groot2", unlock: true},
		{name: "interrupted while paused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			w, err := sim.LoadWorld(officeWorld, sim.WorldConf{Seed: 1})
			require.NoError(t, err)
			sp, _ := w.Places().Spawn("robot1")
			_, err = w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose})
			require.NoError(t, err)
			simConn, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "sim"})
			require.NoError(t, err)
			defer simConn.Close()
			node, err := simnode.Start(simnode.Conf{World: w, Conn: simConn, Speed: 1})
			require.NoError(t, err)
			defer node.Close()

			var mu sync.Mutex
			var cmds []geometry_msgs.Twist
			var lines []string
			_, err = ros.Subscribe(simConn, "/robot1/cmd_vel", func(m *geometry_msgs.Twist) {
				mu.Lock()
				cmds = append(cmds, *m)
				mu.Unlock()
			})
			require.NoError(t, err)

			m, err := mission.Load(mission.LoadConf{Tree: missionsDir + "/patrol.xml", Profile: simProfile, Places: officeWorld})
			require.NoError(t, err)
			port := rostest.FreePortPair(t)
			var ticks sync.Map
			rc := mission.RunConf{
				Mission: m, Seed: 1, Groot: port,
				ROS: ros.Conf{MasterURI: uri, Host: "127.0.0.1", Namespace: "/robot1", Name: "btrobot"},
				Log: func(line string) { mu.Lock(); lines = append(lines, line); mu.Unlock() },
				OnTick: func(_ *runtime.Tree, tr runtime.TickReport) (string, bool) {
					ticks.Store("n", tr.Seq)
					return "", false
				},
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			runCtx, interrupt := context.WithCancel(ctx)
			done := make(chan mission.Report, 1)
			go func() {
				rep, err := mission.Run(runCtx, rc)
				assert.NoError(t, err)
				done <- rep
			}()
			seq := func() uint64 { v, _ := ticks.Load("n"); n, _ := v.(uint64); return n }
			require.Eventually(t, func() bool { return seq() >= 20 }, 30*time.Second, 20*time.Millisecond, "the mission did not tick")

			c := startGrootClient(t, port)
			c.request('I', 1, `{"enabled":true,"uid":1,"mode":0,"once":false,"desired_status":"SKIPPED","position":0}`)
			mu.Lock()
			before := len(cmds)
			mu.Unlock()
			note := c.do(map[string]any{"op": "sub"}) // the breakpoint is reached
			require.Equal(t, "1", string(note[1]))
			paused := seq()
			time.Sleep(2500 * time.Millisecond) // past the watchdog (150 ms) and the /clock timeout (2 s)
			assert.Equal(t, paused, seq(), "the tree waits at the breakpoint")
			mu.Lock()
			zero := false
			for _, cmd := range cmds[before:] {
				zero = zero || cmd == (geometry_msgs.Twist{})
			}
			// What a busy machine's starvation said before the pause is not
			// this test's concern.
			var during []string
			for i, l := range lines {
				if strings.HasPrefix(l, "groot2: breakpoint at") {
					during = lines[i:]
				}
			}
			quiet := len(during) > 0 && !strings.Contains(strings.Join(during, "\n"), "stopping the robot")
			mu.Unlock()
			assert.True(t, zero, "a zero Twist after the pause began")
			assert.True(t, quiet, "the pause is logged; no watchdog or stall warning for a pause a person asked for:\n%s", strings.Join(lines, "\n"))

			if tc.unlock {
				c.request('U', 2, `{"uid":1,"desired_status":"SKIPPED","position":0,"remove_when_done":true}`)
				require.Eventually(t, func() bool { return seq() >= paused+10 }, 10*time.Second, 20*time.Millisecond, "the mission did not tick on after the unlock")
			}
			interrupt()
			select {
			case rep := <-done:
				assert.Equal(t, mission.Stopped, rep.Outcome, rep.Summary())
				assert.Contains(t, rep.Summary(), "zero velocity sent on /robot1/cmd_vel")
			case <-time.After(20 * time.Second):
				require.FailNow(t, "the run did not end")
			}
		})
	}
}
