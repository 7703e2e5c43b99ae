package rostest

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/master"
)

// recordingTB records how Require stops a test instead of stopping it.
type recordingTB struct {
	testing.TB
	fatal, skipped string
}

func (r *recordingTB) Helper()                           {}
func (r *recordingTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recordingTB) Skip(args ...any)                  { r.skipped = fmt.Sprint(args...) }

func TestRequire(t *testing.T) {
	tests := []struct {
		name        string
		ci          string
		tools       []string
		wantFatal   string
		wantSkipped string
	}{
		{"missing module outside CI skips naming the package", "", []string{"python3", "no_such_robot_pkg"},
			"", "no_such_robot_pkg (apt-get install python3-no-such-robot-pkg)"},
		{"missing module in CI fails", "true", []string{"no_such_robot_pkg"},
			"no_such_robot_pkg (apt-get install python3-no-such-robot-pkg)", ""},
		{"an unknown name is a Python module", "true", []string{"nav2_not_in_ros1"},
			"nav2_not_in_ros1 (apt-get install python3-nav2-not-in-ros1): ModuleNotFoundError", ""},
		{"present tools pass", "true", []string{"python3"}, "", ""},
		{"present modules pass", "true", []string{"rospy", "actionlib", "std_msgs"}, "", ""},
		{"a missing module beside present ones is named alone", "true", []string{"rospy", "no_such_robot_pkg", "geometry_msgs"},
			"missing ROS tools: no_such_robot_pkg (apt-get install python3-no-such-robot-pkg)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			rec := &recordingTB{TB: t}
			Require(rec, tc.tools...)
			if assert.Contains(t, rec.fatal, tc.wantFatal, "Fatalf(%q), want one containing %q", rec.fatal, tc.wantFatal) {
				assert.Equal(t, (rec.fatal == ""), (tc.wantFatal == ""), "Fatalf(%q), want one containing %q", rec.fatal, tc.wantFatal)
			}
			if assert.Contains(t, rec.skipped, tc.wantSkipped, "Skip(%q), want one containing %q", rec.skipped, tc.wantSkipped) {
				assert.Equal(t, (rec.skipped == ""), (tc.wantSkipped == ""), "Skip(%q), want one containing %q", rec.skipped, tc.wantSkipped)
			}
		})
	}
}

func TestRequireNamesTheDebianPackageOfAMissingExecutable(t *testing.T) {
	// Forget what earlier tests found, before and after hiding PATH.
	availability.Delete("rosservice")
	defer availability.Delete("rosservice")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "true")
	rec := &recordingTB{TB: t}
	Require(rec, "rosservice")
	want := "rosservice (apt-get install python3-rosservice)"
	assert.Contains(t, rec.fatal, want, "Fatalf(%q), want one containing %q", rec.fatal, want)
}

func TestEnv(t *testing.T) {
	t.Setenv("ROS_HOSTNAME", "robot.local")
	t.Setenv("ROS_NAMESPACE", "/robot1")
	env := strings.Join(Env(t, "http://127.0.0.1:11411/"), "\n") + "\n"
	for _, want := range []string{"ROS_MASTER_URI=http://127.0.0.1:11411/\n", "ROS_IP=127.0.0.1\n", "ROS_HOME=", "ROS_LOG_DIR=", "PYTHONUNBUFFERED=1\n"} {
		assert.Contains(t, env, want, "Env has no %q", want)
	}
	for _, unwanted := range []string{"ROS_HOSTNAME=", "ROS_NAMESPACE="} {
		assert.NotContains(t, env, unwanted, "Env passes on the machine's %s", unwanted)
	}
}

func TestPythonGetsROSEnvironmentAndIsKilled(t *testing.T) {
	Require(t, "python3")
	var pid int
	t.Run("run", func(t *testing.T) {
		p := Python(t, "http://127.0.0.1:11511/", "testdata/env.py", "--speed", "2")
		p.WaitLine(t, "ROS_MASTER_URI=http://127.0.0.1:11511/", 10*time.Second)
		p.WaitLine(t, "ROS_IP=127.0.0.1", time.Second)
		p.WaitLine(t, "args --speed 2", time.Second)
		_, err := p.waitLine("ROS_MASTER_URI", 100*time.Millisecond)
		assert.Error(t, err, "WaitLine returned a line before the previous match")
		pid = p.Pid()
	})
	err := syscall.Kill(pid, 0)
	assert.Error(t, err, "process %d still alive after its test ended", pid)
}

func TestProcessOutput(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		wait    string
		wantErr string
	}{
		{"a last line without newline is seen", "printf 'one\\nlast'", "last", ""},
		{"exit before the line is an error", "echo one; exit 3", "two", "exited (exit status 3)"},
		{"silence is a timeout", "sleep 5", "anything", "within"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Start(t, "http://127.0.0.1:1/", "/bin/sh", "-c", tc.script)
			_, err := p.waitLine(tc.wait, 500*time.Millisecond)
			assert.False(t, tc.wantErr == "" && err != nil, "waitLine: %v", err)
			assert.False(t, tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)), "waitLine error %v, want %q", err, tc.wantErr)
		})
	}
}

func TestRunReportsExitStatus(t *testing.T) {
	out, err := RunErr(t, "http://127.0.0.1:1/", 10*time.Second, "/bin/sh", "-c", "echo $ROS_MASTER_URI; exit 1")
	assert.Error(t, err, "RunErr = %q, %v; want the URI printed and an exit error", out, err)
	assert.Equal(t, "http://127.0.0.1:1/", strings.TrimSpace(out), "RunErr = %q, %v; want the URI printed and an exit error", out, err)
}

func TestMastersAnswerAndStop(t *testing.T) {
	for _, kind := range Masters() {
		t.Run(kind.Name, func(t *testing.T) {
			var uri string
			t.Run("running", func(t *testing.T) {
				uri = kind.Start(t)
				require.NoError(t, master.Probe(context.Background(), uri), "%s at %s does not answer", kind.Name, uri)
			})
			if uri == "" {
				return // skipped
			}
			err := master.Probe(context.Background(), uri)
			assert.Error(t, err, "%s at %s still answers after its test ended", kind.Name, uri)
		})
	}
}

// TestRosmasterOnATakenPortIsNotTaken: a rosmaster started on a port
// another test's master holds cannot bind it, while that master answers its
// URI; waiting for the rosmaster must not take the other master for it (its
// nodes are the other test's: a node registered there under a name in use
// shuts down the other test's node of that name).
func TestRosmasterOnATakenPortIsNotTaken(t *testing.T) {
	Require(t, "rosmaster")
	uri := StartMaster(t)
	port := uri[strings.LastIndex(uri, ":")+1 : len(uri)-1]
	p := start(t, Env(t, uri), "rosmaster", "--core", "-p", port)
	err := waitForMaster(uri, p)
	require.Error(t, err, "waiting for a rosmaster on the embedded master's port: %v; want an error saying another master answers", err)
	require.Contains(t, err.Error(), "not by the rosmaster started", "waiting for a rosmaster on the embedded master's port: %v; want an error saying another master answers", err)
}

// TestFreePortsBelowTheEphemeralRange: the ports drawn are free and below
// the range the kernel hands to listeners on port 0 and outgoing
// connections.
func TestFreePortsBelowTheEphemeralRange(t *testing.T) {
	for _, tc := range []struct {
		name string
		get  func(testing.TB) int
		n    int
	}{
		{"FreePort", FreePort, 1},
		{"FreePortPair", FreePortPair, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 {
				p := tc.get(t)
				low := ephemeralLow()
				require.GreaterOrEqual(t, p, 10000, "port %d (and %d after it) outside 10000-%d", p, tc.n-1, low-1)
				require.Less(t, p+tc.n-1, low, "port %d (and %d after it) outside 10000-%d", p, tc.n-1, low-1)
				for i := range tc.n {
					ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+i))
					require.NoError(t, err, "port %d given as free", p+i)
					ln.Close()
				}
			}
		})
	}
}
