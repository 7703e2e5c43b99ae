package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// snapshot is what replay --at --json prints.
type snapshot struct {
	OffsetS float64 `json:"offset_s"`
	Tick    uint64  `json:"tick"`
	Nodes   []struct {
		UID    uint32 `json:"uid"`
		Path   string `json:"path"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"nodes"`
	Blackboard map[string]map[string]any `json:"blackboard"`
}

// TestTickRecordsAndReplays: btrobot tick --record writes a recording of
// either format that record.Open reads; replay plays it through the plain
// view, and replay --at --json prints the state at an instant.
func TestTickRecordsAndReplays(t *testing.T) {
	tree := writeFile(t, "t.xml", goodTree)
	for _, tc := range []struct {
		name       string
		file       string
		blackboard map[string]any // the root scope at the end; nil: not kept
		ticks      uint64
	}{
		{name: "sqlite", file: "t.db3", blackboard: map[string]any{"n": 1.0, "s": "a", "ok": true, "x": 1.5}, ticks: 3},
		{name: "btlog", file: "t.btlog"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			code, _, stderr := runCLI("tick", tree, "--ticks", "3", "--record", path)
			require.Equal(t, exitOK, code, stderr)

			rec, err := record.Open(path)
			require.NoError(t, err)
			first, last := rec.Span()
			ts, err := rec.Transitions(first, last.Add(time.Microsecond))
			require.NoError(t, err)
			rec.Close()
			require.NotEmpty(t, ts)
			roots := 0
			for _, tr := range ts {
				if tr.UID == 1 && tr.To == runtime.Success {
					roots++
				}
			}
			assert.Equal(t, 3, roots, "the root succeeds once a tick")

			code, out, stderr := runCLI("replay", path, "--speed", "-1")
			require.Equal(t, exitOK, code, stderr)
			assert.Contains(t, out, "SUCCESS Main")
			assert.Contains(t, out, "replayed "+path)
			assert.NotContains(t, stderr, "replay: ", "progress on a live view's terminal")

			// Headless, the progress goes to stderr and ends at the end.
			code, _, stderr = runCLI("replay", path, "--speed", "-1", "--headless")
			require.Equal(t, exitOK, code, stderr)
			assert.Regexp(t, `replay: [0-9.]+m?s of [0-9.]+m?s \(100%\)\n$`, stderr)

			code, out, stderr = runCLI("replay", path, "--at", "1h", "--json")
			require.Equal(t, exitOK, code, stderr)
			var s snapshot
			require.NoError(t, json.Unmarshal([]byte(out), &s), out)
			assert.Equal(t, 3600.0, s.OffsetS)
			require.Len(t, s.Nodes, 3)
			assert.Equal(t, "Main/Sequence/Script#2", s.Nodes[2].Path)
			assert.Equal(t, "IDLE", s.Nodes[0].Status, "a completed tree resets")
			assert.Equal(t, tc.ticks, s.Tick)
			if tc.blackboard != nil {
				assert.Equal(t, tc.blackboard, s.Blackboard["Main"])
			} else {
				assert.Nil(t, s.Blackboard)
			}

			code, out, _ = runCLI("replay", path, "--at", "0", "--json")
			require.Equal(t, exitOK, code)
			require.NoError(t, json.Unmarshal([]byte(out), &s), out)
			assert.Equal(t, 0.0, s.OffsetS)
		})
	}
}

// TestRecordAndReplayRefuseBadInput: bad flags and files get a clear
// message and exit 2 (usage, a file that is not a recording) or 1 (a
// file that cannot be read).
func TestRecordAndReplayRefuseBadInput(t *testing.T) {
	tree := writeFile(t, "t.xml", goodTree)
	notRec := writeFile(t, "x.db3", "hello")
	dir := t.TempDir()
	viewDB := filepath.Join(dir, "view.db3")
	code, _, stderr := runCLI("tick", tree, "--ticks", "3", "--record", viewDB)
	require.Equal(t, exitOK, code, stderr)
	execSQL(t, viewDB, `DROP TABLE Transitions`,
		`CREATE VIEW Transitions AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
		 SELECT x AS timestamp, 1 AS session_id, 1 AS node_uid, 0 AS duration, 1 AS state, '' AS extra_data, x AS at FROM c`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"tick records to an unknown format", []string{"tick", tree, "--record", filepath.Join(dir, "x.txt")}, exitUsage, "name the file .btlog"},
		{"run records to an unknown format", []string{"run", "--tree", tree, "--record", filepath.Join(dir, "x.log"), "--master", freeMasterURI(t)}, exitUsage, "name the file .btlog"},
		{"run with a port out of range", []string{"run", "--tree", tree, "--groot", "70000", "--master", freeMasterURI(t)}, exitUsage, "groot port 70000"},
		{"run with a host and a port out of range", []string{"run", "--tree", tree, "--groot", "127.0.0.1:70000", "--master", freeMasterURI(t)}, exitUsage, "groot port 70000"},
		{"run with a groot address that is not one", []string{"run", "--tree", tree, "--groot", "localhost", "--master", freeMasterURI(t)}, exitUsage, "want PORT or HOST:PORT"},
		{"replay of a file that is not a recording", []string{"replay", notRec}, exitUsage, notRec + ": at byte 0: not a recording"},
		{"replay of a .db3 whose table is a view", []string{"replay", viewDB, "--speed", "-1"}, exitUsage, viewDB + ": not a btrobot recording: Transitions is a view, not a table"},
		{"--json of a .db3 whose table is a view", []string{"replay", viewDB, "--at", "1", "--json"}, exitUsage, viewDB + ": not a btrobot recording: Transitions is a view, not a table"},
		{"replay of a missing file", []string{"replay", filepath.Join(dir, "none.db3")}, exitFailed, "no such file"},
		{"--at without --json", []string{"replay", notRec, "--at", "3"}, exitUsage, "Usage: btrobot replay"},
		{"a speed of zero", []string{"replay", notRec, "--speed", "0"}, exitUsage, "Usage: btrobot replay"},
		{"a bad instant", []string{"replay", notRec, "--at", "soon", "--json"}, exitUsage, "not a recording"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.says)
		})
	}
	// A bad instant in a good recording.
	path := filepath.Join(dir, "t.db3")
	code, _, stderr = runCLI("tick", tree, "--ticks", "1", "--record", path)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runCLI("replay", path, "--at", "soon", "--json")
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, path+`: "soon": want seconds since the recording's start`)
}

// execSQL runs stmts on the SQLite database at path.
func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	// Debian's sqlite3, native: the pure-Go driver under -race takes tens
	// of seconds for the hundreds of thousands of rows a slow file needs.
	rostest.Require(t, "sqlite3")
	script := "PRAGMA journal_mode=DELETE;\n" + strings.Join(stmts, ";\n") + ";\n"
	cmd := exec.Command("sqlite3", "-bail", path)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", script, out)
}

// TestReplayOfACutRecordingSaysSo: a .btlog cut inside a record replays
// up to the cut, and both replay and replay --json say on stderr that
// it was cut, naming the file, and exit 2.
func TestReplayOfACutRecordingSaysSo(t *testing.T) {
	tree := writeFile(t, "t.xml", goodTree)
	path := filepath.Join(t.TempDir(), "cut.btlog")
	code, _, stderr := runCLI("tick", tree, "--ticks", "3", "--record", path)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data[:len(data)-4], 0o644))
	for _, tc := range []struct {
		name string
		args []string
		out  string // what stdout holds: the replay up to the cut
	}{
		{"played", []string{"replay", path, "--speed", "-1"}, "SUCCESS Main"},
		{"--json", []string{"replay", path, "--at", "1h", "--json"}, `"offset_s": 3600`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(tc.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, out, tc.out)
			assert.Contains(t, stderr, "btrobot replay: "+path+": at byte ")
			assert.Contains(t, stderr, "the file is cut short: its last transition has 5 of its 9 bytes")
		})
	}
}

// TestReplayEndsOnSignal: a replay busy reading a recording whose every
// query is slow (1 s of CPU spent, far from its end: no index, 300,000
// nodes) ends within 10 s of SIGTERM or SIGINT, and says why. Within 10
// s: half the deadline of one call's queries, so the signal, not the
// deadline, ended it.
func TestReplayEndsOnSignal(t *testing.T) {
	bin := buildBinary(t)
	tree := writeFile(t, "t.xml", goodTree)
	path := filepath.Join(t.TempDir(), "slow.db3")
	code, _, stderr := runCLI("tick", tree, "--ticks", "3", "--record", path)
	require.Equal(t, exitOK, code, stderr)
	execSQL(t, path, `DROP INDEX btrobot_transitions_by_node`, `DROP INDEX btrobot_transitions_by_time`,
		`INSERT INTO Transitions SELECT t + 1000000000000000, 1, 1, 0, 1, '', t + 1000000000000000 FROM
		   (WITH RECURSIVE c(t) AS (SELECT 1 UNION ALL SELECT t + 1 FROM c LIMIT 200000) SELECT t FROM c)`,
		`INSERT INTO btrobot_nodes SELECT u, 'Main/n' || u, 'AlwaysSuccess', 'n' FROM
		   (WITH RECURSIVE c(u) AS (SELECT 4 UNION ALL SELECT u + 1 FROM c LIMIT 300000) SELECT u FROM c)`)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		says string
	}{
		{"SIGTERM", syscall.SIGTERM, "interrupted by SIGTERM"},
		{"SIGINT", syscall.SIGINT, "interrupted by SIGINT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "replay", path, "--at", "1", "--json")
			var stdout, stderr lockedBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			defer func() {
				cmd.Process.Kill()
				<-exited
			}()
			require.Eventually(t, func() bool { return cpuTime(cmd.Process.Pid) >= time.Second },
				60*time.Second, 20*time.Millisecond, "the replay never got busy")
			require.NoError(t, cmd.Process.Signal(tc.sig))
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				require.FailNow(t, fmt.Sprintf("replay still running 10 s after %s\nstderr:\n%s", tc.name, stderr.String()))
			}
			assert.Equal(t, exitFailed, cmd.ProcessState.ExitCode(), stderr.String())
			assert.Contains(t, stderr.String(), path+": reading the recording: "+tc.says)
			assert.Empty(t, stdout.String())
		})
	}
}

// cpuTime is the CPU time process pid has used (Linux /proc).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command (which may hold spaces): utime and stime
	// are the 12th and 13th, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// TestInterruptedRunRecordingIsReadable: btrobot run --record on the
// simulated office, interrupted by SIGINT while the robot drives: the
// recording opens whole, ends with the tree halted, and replays.
func TestInterruptedRunRecordingIsReadable(t *testing.T) {
	bin := buildBinary(t)
	sw := startSimWorld(t, 1)
	path := filepath.Join(t.TempDir(), "patrol.db3")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--tree", filepath.Join(repoMissions, "patrol.xml"),
		"--robot", repoSimProfile, "--places", repoOfficeWorld, "--record", path, "__ns:=/robot1")
	cmd.Env = append(os.Environ(), "ROS_MASTER_URI="+sw.uri, "ROS_IP=127.0.0.1")
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for sw.twist().Linear < 0.1 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			require.FailNow(t, fmt.Sprintf("the robot never moved\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	cmd.Wait()
	require.Equal(t, exitFailed, cmd.ProcessState.ExitCode(), "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	assert.NotContains(t, stdout.String()+stderr.String(), "recording:", "the recording lost nothing")

	rec, err := record.Open(path)
	require.NoError(t, err)
	defer rec.Close()
	require.NoError(t, rec.Damage())
	_, last := rec.Span()
	st, err := rec.StateAt(last)
	require.NoError(t, err)
	for i, s := range st.Statuses {
		assert.Equal(t, runtime.Idle, s, "node %s after the halt", rec.Header().Nodes[i].Path)
	}
	ts, err := rec.Transitions(last, last.Add(time.Microsecond))
	require.NoError(t, err)
	halted := false
	for _, tr := range ts {
		halted = halted || tr.UID == 1 && tr.From == runtime.Running && tr.To == runtime.Idle
	}
	assert.True(t, halted, "the last instant holds the root's halt: %+v", ts)
	assert.NotEmpty(t, st.Blackboard["Patrol"], "the latched inputs")

	code, out, serr := runCLI("replay", path, "--speed", "-1")
	require.Equal(t, exitOK, code, serr)
	assert.Contains(t, out, "HALTED  Patrol/patrol")
}
