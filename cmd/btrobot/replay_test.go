package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/record"
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
// message and exit 2 (usage) or 1 (a file that is not a recording).
func TestRecordAndReplayRefuseBadInput(t *testing.T) {
	tree := writeFile(t, "t.xml", goodTree)
	notRec := writeFile(t, "x.db3", "hello")
	dir := t.TempDir()
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
		{"replay of a file that is not a recording", []string{"replay", notRec}, exitFailed, "not a recording"},
		{"replay of a missing file", []string{"replay", filepath.Join(dir, "none.db3")}, exitFailed, "no such file"},
		{"--at without --json", []string{"replay", notRec, "--at", "3"}, exitUsage, "Usage: btrobot replay"},
		{"a speed of zero", []string{"replay", notRec, "--speed", "0"}, exitUsage, "Usage: btrobot replay"},
		{"a bad instant", []string{"replay", notRec, "--at", "soon", "--json"}, exitFailed, "not a recording"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.says)
		})
	}
	// A bad instant in a good recording.
	path := filepath.Join(dir, "t.db3")
	code, _, stderr := runCLI("tick", tree, "--ticks", "1", "--record", path)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runCLI("replay", path, "--at", "soon", "--json")
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, `"soon": want seconds since the recording's start`)
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
			t.Fatalf("the robot never moved\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
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
