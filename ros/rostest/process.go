package rostest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Env returns the environment for a ROS subprocess talking to the master at
// masterURI: the test's environment without any ROS_* variable of the
// machine, plus ROS_MASTER_URI, ROS_IP=127.0.0.1 (nodes advertise the
// loopback address), ROS_HOME and ROS_LOG_DIR in a fresh temporary directory
// (rospy and rosmaster write logs there, so HOME need not be writable), and
// PYTHONUNBUFFERED=1 so that output arrives line by line. Debian's rospy
// needs neither ROS_ROOT nor ROS_PACKAGE_PATH.
func Env(t testing.TB, masterURI string) []string {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ROS_") && !strings.HasPrefix(kv, "PYTHONUNBUFFERED=") {
			env = append(env, kv)
		}
	}
	return append(env,
		"ROS_MASTER_URI="+masterURI,
		"ROS_IP=127.0.0.1",
		"ROS_HOME="+home,
		"ROS_LOG_DIR="+filepath.Join(home, "log"),
		"PYTHONUNBUFFERED=1",
	)
}

// Process is a subprocess started for a test: its output goes to the test
// log line by line, and it is killed (with every process it started) when
// the test ends.
type Process struct {
	name string
	cmd  *exec.Cmd

	mu     sync.Mutex
	lines  []string // stdout, complete lines
	next   int      // index of the first line WaitLine has not returned yet
	update chan struct{}

	exited  chan struct{}
	exitErr error
}

// Start starts a program (a ROS tool such as "rostopic", or any executable)
// with the ROS environment of Env, and stops it at the end of the test.
func Start(t testing.TB, masterURI, program string, args ...string) *Process {
	t.Helper()
	return start(t, Env(t, masterURI), program, args...)
}

// Python starts a script with /usr/bin/python3 and the ROS environment of
// Env, and stops it at the end of the test.
func Python(t testing.TB, masterURI, script string, args ...string) *Process {
	t.Helper()
	Require(t, "python3")
	return start(t, Env(t, masterURI), PythonPath, append([]string{script}, args...)...)
}

func start(t testing.TB, env []string, program string, args ...string) *Process {
	t.Helper()
	name := filepath.Base(program)
	if program == PythonPath && len(args) > 0 {
		name = filepath.Base(args[0])
	}
	p := &Process{
		name:   name,
		update: make(chan struct{}),
		exited: make(chan struct{}),
	}
	p.cmd = exec.Command(program, args...)
	p.cmd.Env = env
	p.cmd.Stdin = nil
	stdout := &lineWriter{onLine: func(line string) {
		t.Logf("%s| %s", p.name, line)
		p.mu.Lock()
		p.lines = append(p.lines, line)
		close(p.update)
		p.update = make(chan struct{})
		p.mu.Unlock()
	}}
	stderr := &lineWriter{onLine: func(line string) { t.Logf("%s! %s", p.name, line) }}
	p.cmd.Stdout, p.cmd.Stderr = stdout, stderr
	// Its own process group, so that killing it kills what it started.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Output still held open by an orphan must not hang the test.
	p.cmd.WaitDelay = 2 * time.Second
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", program, err)
	}
	go func() {
		err := p.cmd.Wait()
		stdout.flush()
		stderr.flush()
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.kill(syscall.SIGKILL)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			t.Errorf("%s did not exit 10s after SIGKILL", p.name)
		}
	})
	return p
}

// Pid is the process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// WaitLine waits up to timeout for a line of standard output containing
// substr, after the line the previous WaitLine returned, and returns it. The
// test fails if no such line comes, or if the process exits first.
func (p *Process) WaitLine(t testing.TB, substr string, timeout time.Duration) string {
	t.Helper()
	line, err := p.waitLine(substr, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func (p *Process) waitLine(substr string, timeout time.Duration) (string, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		// Read exited before scanning: every line is in once it is closed.
		exited := false
		select {
		case <-p.exited:
			exited = true
		default:
		}
		p.mu.Lock()
		for i := p.next; i < len(p.lines); i++ {
			if strings.Contains(p.lines[i], substr) {
				line := p.lines[i]
				p.next = i + 1
				p.mu.Unlock()
				return line, nil
			}
		}
		update := p.update
		p.mu.Unlock()
		if exited {
			return "", fmt.Errorf("%s exited (%v) before printing a line with %q", p.name, p.exitError(), substr)
		}
		select {
		case <-update:
		case <-p.exited:
		case <-deadline.C:
			return "", fmt.Errorf("%s printed no line with %q within %v", p.name, substr, timeout)
		}
	}
}

// Stdout returns what the process printed on standard output so far.
func (p *Process) Stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// Interrupt sends SIGINT, which rospy and the ros* tools handle by
// unregistering from the master before exiting.
func (p *Process) Interrupt() { p.kill(syscall.SIGINT) }

// Kill sends SIGKILL to the process and what it started: a node that dies
// without a word to the master.
func (p *Process) Kill() { p.kill(syscall.SIGKILL) }

// WaitExit waits up to timeout for the process to exit and returns its exit
// error (nil for status 0). The test fails if it is still running.
func (p *Process) WaitExit(t testing.TB, timeout time.Duration) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.exitError()
	case <-time.After(timeout):
		t.Fatalf("%s still running after %v", p.name, timeout)
		return nil
	}
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitError is the exit error once the process has exited, else nil.
func (p *Process) exitError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitErr
}

func (p *Process) kill(sig syscall.Signal) {
	select {
	case <-p.exited:
		return
	default:
	}
	// A negative PID signals the whole process group.
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.cmd.Process.Signal(sig) //nolint:errcheck
	}
}

// Run runs a ROS tool to completion within timeout and returns its standard
// output. The test fails if it exits with an error or runs too long.
func Run(t testing.TB, masterURI string, timeout time.Duration, program string, args ...string) string {
	t.Helper()
	out, err := RunErr(t, masterURI, timeout, program, args...)
	if err != nil {
		t.Fatalf("%s %s: %v", program, strings.Join(args, " "), err)
	}
	return out
}

// RunErr is Run for tools that are expected to fail: it returns the exit
// error instead of failing the test (a timeout still fails it).
func RunErr(t testing.TB, masterURI string, timeout time.Duration, program string, args ...string) (string, error) {
	t.Helper()
	p := start(t, Env(t, masterURI), program, args...)
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.kill(syscall.SIGKILL)
		<-p.exited
		t.Fatalf("%s %s did not finish within %v", program, strings.Join(args, " "), timeout)
	}
	return p.Stdout(), p.exitError()
}

// lineWriter calls onLine for every complete line written to it; flush
// passes on a last line that has no newline.
type lineWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	onLine func(string)
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := strings.TrimRight(string(w.buf.Next(i+1)), "\r\n")
		w.onLine(line)
	}
}

func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() > 0 {
		w.onLine(strings.TrimRight(w.buf.String(), "\r\n"))
		w.buf.Reset()
	}
}
