package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
)

// The repository's files, from this package's directory.
const (
	repoSimProfile  = "../../robots/sim.yaml"
	repoOfficeWorld = "../../worlds/office"
	repoMissions    = "../../trees/missions"
)

// binary builds btrobot once for the tests that run it as a program (to
// send it signals, or to give it a terminal), in binaryDir, which TestMain
// removes.
var binary = sync.OnceValues(func() (string, error) {
	if path := os.Getenv(rostest.BinaryEnv); path != "" {
		return path, nil // built once for the whole run (scripts/test)
	}
	dir, err := os.MkdirTemp("", "btrobot-test-")
	if err != nil {
		return "", err
	}
	binaryDir = dir
	path := filepath.Join(dir, "btrobot")
	out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return path, nil
})

var binaryDir string

func buildBinary(t *testing.T) string {
	t.Helper()
	path, err := binary()
	require.NoError(t, err)
	return path
}

// freeMasterURI is a ROS master URI on a free port where no master runs:
// --master auto starts one there.
func freeMasterURI(t *testing.T) string {
	return fmt.Sprintf("http://127.0.0.1:%d/", rostest.FreePort(t))
}

func TestRunRejectsBadInputWithPositions(t *testing.T) {
	// The fixtures are mission's: its TestLoadFindsEveryProblemAtOnce loads them too.
	badTree := "../../mission/testdata/problems/bad.xml"
	badProfile := "../../mission/testdata/problems/bad.yaml"
	navTree := "../../mission/testdata/problems/nav.xml"
	places := "../../mission/testdata/problems/places.yaml"
	goodTree := filepath.Join(repoMissions, "hello.xml")
	for _, tc := range []struct {
		name string
		args []string
		want []string // each must be in stderr
	}{
		{"no tree", []string{}, []string{"Usage: btrobot run"}},
		{"a stray argument", []string{"--tree", goodTree, "extra"}, []string{`unexpected argument "extra"`}},
		{"a bad ROS argument", []string{"--tree", goodTree, "__nope:=1"}, []string{"unknown special argument __nope"}},
		{"a negative rate", []string{"--tree", goodTree, "--rate", "-1"}, []string{"--rate -1: want a positive number of Hz"}},
		{"a rate that is not a number", []string{"--tree", goodTree, "--rate", "NaN"}, []string{"--rate NaN: want a positive number of Hz"}},
		{"an infinite rate", []string{"--tree", goodTree, "--rate", "Inf"}, []string{"--rate +Inf: want a positive number of Hz"}},
		{"a key a profile would refuse", []string{"--tree", goodTree, "--set", "9x=1"}, []string{`--set 9x=1: blackboard key "9x": a key is a letter`}},
		{"lockstep without a profile", []string{"--tree", goodTree, "--lockstep"}, []string{"--lockstep needs --robot"}},
		{"a missing tree", []string{"--tree", "nowhere.xml"}, []string{"nowhere.xml"}},
		{"a bad tree", []string{"--tree", badTree}, []string{badTree + ":5:7:", "Sequnce", "did you mean Sequence"}},
		{"a bad tree and a bad profile, all at once", []string{"--tree", badTree, "--robot", badProfile},
			[]string{badTree + ":5:7:", badProfile + ":2:7:", badProfile + ":5:11:"}},
		{"a place the world does not have", []string{"--tree", navTree, "--places", places}, []string{navTree + ":3:", "kitchen"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"run"}, tc.args...)...)
			assert.Equal(t, exitUsage, code, "exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w, "stderr lacks %q:\n%s", w, stderr)
			}
		})
	}
}

// TestRunOutcomes runs trees with no robot on btrobot's own master
// (--master auto) and checks the exit codes and the last line.
func TestRunOutcomes(t *testing.T) {
	// The fixtures are mission's: its TestRunOutcomes runs them too.
	ok := "../../mission/testdata/outcomes/ok.xml"
	fail := "../../mission/testdata/outcomes/fail.xml"
	forever := "../../mission/testdata/outcomes/forever.xml"
	broken := "../../mission/testdata/outcomes/broken.xml"
	for _, tc := range []struct {
		name string
		args []string
		code int
		last string
		why  string // the explanation after the last line, if any
	}{
		{"success", []string{"--tree", ok}, exitOK, "mission succeeded after 3 ticks", ""},
		{"failure", []string{"--tree", fail}, exitFailed, "mission failed after 1 tick ",
			"why:\n  M/Sequence (Sequence) FAILURE: child 2 of 2 failed\n    M/Sequence/ScriptCondition (ScriptCondition) FAILURE: n == 1 is false (n = 0)"},
		{"a tick limit", []string{"--tree", forever, "--ticks", "4"}, exitFailed, "stopped at the tick limit (--ticks 4) with the mission still running, after 4 ticks", ""},
		{"an error in a tick", []string{"--tree", broken}, exitFailed, "mission aborted after 1 tick ", ""},
		{"quiet", []string{"--tree", ok, "--quiet"}, exitOK, "mission succeeded after 3 ticks", ""},
		{"the tree as a private parameter", []string{"_tree:=" + ok}, exitOK, "mission succeeded after 3 ticks", ""},
		{"on btrobot's own TCPROS", []string{"--tree", ok, "--transport", "tcpros", "_extra:=1"}, exitOK, "mission succeeded after 3 ticks", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--master", "auto", "--rate", "50", "__master:=" + freeMasterURI(t)}, tc.args...)
			code, stdout, stderr := runCLI(args...)
			assert.Equal(t, tc.code, code, "exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			out := strings.TrimSpace(stdout)
			if i := strings.Index(out, "\nwhy:\n"); i >= 0 || tc.why != "" {
				if i < 0 || out[i+1:] != tc.why {
					assert.Fail(t, fmt.Sprintf("the explanation after the last line:\n%s\nwant:\n%s", out[max(i+1, 0):], tc.why))
				} else {
					out = out[:i]
				}
			}
			lines := strings.Split(out, "\n")
			last := lines[len(lines)-1]
			assert.True(t, strings.HasPrefix(last, tc.last), "end line %q, want it to start with %q\nstdout:\n%s", last, tc.last, stdout)
			assert.Contains(t, stderr, "started btrobot's own", "--master auto with no master there must say it started one:\n%s", stderr)
			quiet := slicesContains(tc.args, "--quiet")
			hasView := strings.Contains(stdout, "btrobot run ")
			assert.NotEqual(t, quiet, hasView, "--quiet %v, but the live view's title printed: %v\n%s", quiet, hasView, stdout)
		})
	}
	t.Run("an unknown transport", func(t *testing.T) {
		code, _, stderr := runCLI("run", "--tree", ok, "--transport", "zeromq")
		assert.Equal(t, exitUsage, code, "exit %d, want %d naming the transports:\n%s", code, exitUsage, stderr)
		assert.Contains(t, stderr, "tcpros or goroslib", "exit %d, want %d naming the transports:\n%s", code, exitUsage, stderr)
	})
	t.Run("no master", func(t *testing.T) {
		code, _, stderr := runCLI("run", "--tree", ok, "--master", freeMasterURI(t))
		assert.Equal(t, exitFailed, code, "exit %d, want 1 with a hint at --master auto:\n%s", code, stderr)
		assert.Contains(t, stderr, "--master auto", "exit %d, want 1 with a hint at --master auto:\n%s", code, stderr)
	})
}

// TestRunAutoMasterLogsToItsStderr: the master --master auto started logs
// on the command's standard error, named, not on the process's: here a
// shutdown call to it, which ends the master and so the run (exit 1).
func TestRunAutoMasterLogsToItsStderr(t *testing.T) {
	rostest.Require(t, "python3")
	forever := "../../mission/testdata/outcomes/forever.xml"
	uri := freeMasterURI(t)
	var stdout, stderr syncBuffer
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"run", "--master", "auto", "--rate", "50", "--quiet", "__master:=" + uri, "--tree", forever}, &stdout, &stderr)
	}()
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "started btrobot's own") }, 10*time.Second, 10*time.Millisecond,
		"stderr: %s", stderr.String())
	rostest.Run(t, uri, 30*time.Second, rostest.PythonPath, "-c",
		"import sys, xmlrpc.client; xmlrpc.client.ServerProxy(sys.argv[1]).shutdown('/maintenance', 'replacing the lidar')", uri)
	select {
	case code := <-exit:
		assert.Equal(t, exitFailed, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	case <-time.After(15 * time.Second):
		require.FailNow(t, fmt.Sprintf("btrobot run goes on after its master was shut down\nstderr:\n%s", stderr.String()))
	}
	assert.Regexp(t, `(?m)^btrobot's ROS master: shutdown requested by /maintenance from 127\.0\.0\.1:\d+: replacing the lidar`, stderr.String())
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// simWorld is the simulator serving robot1 of the office on a master of
// its own, in this process.
type simWorld struct {
	uri  string
	node *simnode.Node

	mu     sync.Mutex
	events []string // the simulator's events, with their simulated time
}

// eventsSince returns the events announced at or after simulated time at.
func (s *simWorld) eventsSince(at time.Duration) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.events {
		var d time.Duration
		if i := strings.IndexByte(e, ' '); i > 0 {
			d, _ = time.ParseDuration(e[:i])
		}
		if d >= at {
			out = append(out, e)
		}
	}
	return out
}

func startSimWorld(t *testing.T, speed float64) *simWorld {
	t.Helper()
	uri := rostest.StartMaster(t)
	w, err := sim.LoadWorld(repoOfficeWorld, sim.WorldConf{Seed: 1})
	require.NoError(t, err)
	sp, _ := w.Places().Spawn("robot1")
	_, err = w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose})
	require.NoError(t, err)
	conn, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "sim"})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	sw := &simWorld{uri: uri}
	node, err := simnode.Start(simnode.Conf{World: w, Conn: conn, Speed: speed, OnEvent: func(at time.Duration, line string) {
		sw.mu.Lock()
		sw.events = append(sw.events, at.String()+" "+line)
		sw.mu.Unlock()
	}})
	require.NoError(t, err)
	t.Cleanup(func() { node.Close() })
	sw.node = node
	return sw
}

// twist reads robot1's velocity inside the simulator.
func (s *simWorld) twist() sim.Twist {
	var tw sim.Twist
	s.node.Do(func(w *sim.World) error {
		r, _ := w.Robot("robot1")
		tw = r.Twist()
		return nil
	})
	return tw
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRunSignalStopsTheRobot: btrobot run drives the simulated robot (at
// real time) on the patrol mission; SIGINT or SIGTERM halts the tree, a
// subscriber of the robot's cmd_vel sees a zero Twist after the signal,
// move_base's goal is cancelled, the robot is at rest within a second and
// stays there, and the exit code is 1 with the signal named.
func TestRunSignalStopsTheRobot(t *testing.T) {
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			sw := startSimWorld(t, 1)
			watch, err := ros.Connect(ros.Conf{MasterURI: sw.uri, Host: "127.0.0.1", Name: "cmd_watch"})
			require.NoError(t, err)
			defer watch.Close()
			var mu sync.Mutex
			var cmds []geometry_msgs.Twist
			_, err = ros.Subscribe(watch, "/robot1/cmd_vel", func(m *geometry_msgs.Twist) {
				mu.Lock()
				cmds = append(cmds, *m)
				mu.Unlock()
			})
			require.NoError(t, err)
			// When the robot came to rest, in simulated time, from the
			// stamps of its odometry: polling the simulator would measure
			// when the test got to look, which on a loaded machine is late.
			var sigStamp time.Time // zero until the signal is sent
			var restAt time.Duration
			epoch := sw.node.Stamp(0)
			_, err = ros.Subscribe(watch, "/robot1/odom", func(m *nav_msgs.Odometry) {
				mu.Lock()
				defer mu.Unlock()
				still := m.Twist.Twist.Linear.X == 0 && m.Twist.Twist.Angular.Z == 0
				switch {
				case sigStamp.IsZero() || m.Header.Stamp.Before(sigStamp):
				case !still:
					restAt = 0
				case restAt == 0:
					restAt = m.Header.Stamp.Sub(epoch)
				}
			})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "run", "--tree", filepath.Join(repoMissions, "patrol.xml"),
				"--robot", repoSimProfile, "--places", repoOfficeWorld, "__ns:=/robot1")
			cmd.Env = append(os.Environ(), "ROS_MASTER_URI="+sw.uri, "ROS_IP=127.0.0.1")
			var stdout, stderr lockedBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			// The robot drives off to its first waypoint.
			deadline := time.Now().Add(60 * time.Second)
			for sw.twist().Linear < 0.1 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					require.FailNow(t, fmt.Sprintf("the robot never moved\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String()))
				}
				time.Sleep(50 * time.Millisecond)
			}
			mu.Lock()
			before := len(cmds)
			mu.Unlock()
			time.Sleep(time.Second) // under way at full speed
			sigAt := sw.node.Now()
			mu.Lock()
			sigStamp = epoch.Add(sigAt)
			mu.Unlock()
			require.NoError(t, cmd.Process.Signal(sig))
			err = cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			assert.Equal(t, exitFailed, code, "exit %d (%v), want 1\nstdout:\n%s\nstderr:\n%s", code, err, stdout.String(), stderr.String())
			want := "interrupted by " + map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
			out := stdout.String()
			assert.Contains(t, out, want, "the end of the run must say %q, that the tree was halted and the robot stopped:\n%s", want, out)
			assert.Contains(t, out, "zero velocity sent on /robot1/cmd_vel", "the end of the run must say %q, that the tree was halted and the robot stopped:\n%s", want, out)
			assert.Contains(t, out, "HALTED  Patrol/patrol", "the end of the run must say %q, that the tree was halted and the robot stopped:\n%s", want, out)
			// A zero Twist reached the subscriber after the signal.
			zero := func() bool {
				mu.Lock()
				defer mu.Unlock()
				for _, c := range cmds[before:] {
					if c == (geometry_msgs.Twist{}) {
						return true
					}
				}
				return false
			}
			for end := time.Now().Add(5 * time.Second); !zero() && time.Now().Before(end); {
				time.Sleep(20 * time.Millisecond)
			}
			if !zero() {
				mu.Lock()
				assert.Fail(t, fmt.Sprintf("no zero Twist on /robot1/cmd_vel after %v; commands after it: %v", sig, cmds[before:]))
				mu.Unlock()
			}
			// move_base's goal was cancelled: the robot comes to rest
			// (braking from 0.4 m/s at 1 m/s² takes 0.4 s) and stays
			// there.
			rest := func() time.Duration {
				mu.Lock()
				defer mu.Unlock()
				return restAt
			}
			for end := time.Now().Add(5 * time.Second); rest() == 0 && time.Now().Before(end); {
				time.Sleep(20 * time.Millisecond)
			}
			t.Logf("signal at %v of simulated time, at rest at %v; the simulator's events since: %q", sigAt, rest(), sw.eventsSince(sigAt))
			r := rest()
			assert.NotZero(t, r, "signal at %v of simulated time, robot at rest at %v: want within a second", sigAt, r)
			assert.LessOrEqual(t, r-sigAt, time.Second, "signal at %v of simulated time, robot at rest at %v: want within a second", sigAt, r)
			time.Sleep(500 * time.Millisecond)
			tw := sw.twist()
			assert.Zero(t, tw.Linear, "the robot still moves after %v: %+v", sig, tw)
			assert.Zero(t, tw.Angular, "the robot still moves after %v: %+v", sig, tw)
		})
	}
}

// requireTmux returns tmux's path; without it the test fails under CI and
// is skipped elsewhere.
func requireTmux(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			require.FailNow(t, "tmux is missing: apt-get install tmux")
		}
		t.Skip("tmux is missing (apt-get install tmux)")
	}
	return path
}

// tmuxSession runs a shell command in a detached tmux session of the given
// size, on a server of the test's own.
type tmuxSession struct {
	t      *testing.T
	tmux   string
	socket string
}

func startTmux(t *testing.T, cols, rows int, command string) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, tmux: requireTmux(t), socket: filepath.Join(t.TempDir(), "tmux.sock")}
	s.run("new-session", "-d", "-s", "view", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), command)
	t.Cleanup(func() { exec.Command(s.tmux, "-S", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(s.tmux, append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	require.NoError(s.t, err, "tmux %v: %v\n%s", args, err, out)
	return string(out)
}

// screen returns what the terminal shows now.
func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "view") }

// waitFor polls the screen until cond holds.
func (s *tmuxSession) waitFor(what string, timeout time.Duration, cond func(string) bool) string {
	s.t.Helper()
	var scr string
	for end := time.Now().Add(timeout); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if scr = s.screen(); cond(scr) {
			return scr
		}
	}
	require.FailNow(s.t, fmt.Sprintf("the terminal never showed %s:\n%s", what, scr))
	return ""
}

// TestLiveViewInATerminal runs btrobot run in a real terminal (tmux): the
// tree is drawn in place (one title, one tree, however many redraws), the
// running leaf is marked and its time grows, and Ctrl-C leaves the final
// frame with the halted path and how the run ended.
func TestLiveViewInATerminal(t *testing.T) {
	bin := buildBinary(t)
	tree := writeFile(t, "errands.xml", `<root BTCPP_format="4" main_tree_to_execute="Errands">
  <BehaviorTree ID="Errands">
    <Sequence name="errands">
      <Script name="init" code="done := 0"/>
      <Repeat name="rounds" num_cycles="-1">
        <Sequence name="round">
          <ScriptCondition name="ready" code="done &gt;= 0"/>
          <Sleep name="drive" msec="60000"/>
          <Script name="count" code="done += 1"/>
        </Sequence>
      </Repeat>
    </Sequence>
  </BehaviorTree>
</root>`)
	command := fmt.Sprintf("cd %s && ROS_MASTER_URI=%s ROS_IP=127.0.0.1 %s run --tree %s --master auto --rate 20 --show done; echo EXIT=$?; sleep 60",
		t.TempDir(), freeMasterURI(t), bin, tree)
	s := startTmux(t, 90, 20, command)
	first := s.waitFor("the running Sleep", 20*time.Second, func(scr string) bool {
		return strings.Contains(scr, "▶ drive (Sleep)  msec=60000")
	})
	time.Sleep(1500 * time.Millisecond)
	second := s.screen()
	for _, scr := range []string{first, second} {
		n := strings.Count(scr, "btrobot run errands.xml")
		assert.Equal(t, 1, n, "the title shows %d times: the view must redraw in place\n%s", n, scr)
		n = strings.Count(scr, "▶ errands (Sequence)")
		assert.Equal(t, 1, n, "the root shows %d times\n%s", n, scr)
		for _, w := range []string{"✓ init (Script)", "▶ rounds (Repeat)", "✓ ready (ScriptCondition)", "· count (Script)", "done=0"} {
			assert.Contains(t, scr, w, "the view lacks %q:\n%s", w, scr)
		}
	}
	assert.Less(t, ticks(first), ticks(second), "the header's tick count did not grow between two looks: %d then %d", ticks(first), ticks(second))
	s.run("send-keys", "-t", "view", "C-c")
	end := s.waitFor("the end of the run", 10*time.Second, func(scr string) bool { return strings.Contains(scr, "EXIT=") })
	for _, w := range []string{"■ drive (Sleep)", "halted", "interrupted by SIGINT after", "EXIT=1"} {
		assert.Contains(t, end, w, "after Ctrl-C the terminal lacks %q:\n%s", w, end)
	}
	assert.Equal(t, 1, strings.Count(end, "btrobot run errands.xml"), "the final frame must replace the last one:\n%s", end)
}

// ticks reads the tick count of the live view's header.
func ticks(screen string) int {
	m := regexp.MustCompile(`· (\d+) ticks ·`).FindStringSubmatch(screen)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
