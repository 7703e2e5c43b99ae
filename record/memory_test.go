package record

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// replayWhole is the child of TestBTLogReplaysInBoundedMemory: it opens
// the recording, seeks across it, plays it whole as fast as it can, and
// prints its peak resident size (VmHWM) in kB.
func replayWhole(path string) {
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(1)
	}
	r, err := Open(path)
	if err != nil {
		fail(err)
	}
	first, last := r.Span()
	for k := range 10 {
		at := first.Add(last.Sub(first) * time.Duration(k) / 9)
		if _, err := r.StateAt(at); err != nil {
			fail(err)
		}
		if _, err := r.Transitions(at, at.Add(time.Second)); err != nil {
			fail(err)
		}
	}
	if _, err := FirstTransitions(r, first, last.Add(time.Microsecond), 20000); err != nil {
		fail(err)
	}
	tree, err := BuildTree(r.Header(), runtime.NewRegistry())
	if err != nil {
		fail(err)
	}
	played := 0
	p, err := NewPlayer(r, PlayConf{Tree: tree, Speed: -1, Observer: runtime.ObserverFunc(func(runtime.Transition) { played++ })})
	if err != nil {
		fail(err)
	}
	if err := p.Play(context.Background()); err != nil {
		fail(err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Println("played", played, "peak_kb", strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
}

// writeLongBTLog writes a .btlog of the patrol tree with n transitions,
// 100 µs apart, and returns its path.
func writeLongBTLog(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	seed := recordPatrol(t, filepath.Join(dir, "seed.btlog"), 1)
	xmlLen := int(binary.LittleEndian.Uint32(seed[19:]))
	head := seed[:23+xmlLen+8]
	path := filepath.Join(dir, fmt.Sprintf("long%d.btlog", n))
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(head)
	var rec [btlogRecord]byte
	for i := range n {
		putUint48(rec[:6], uint64(i)*100)
		binary.LittleEndian.PutUint16(rec[6:8], uint16(i%12+1))
		rec[8] = byte(i/12%2 + 1) // RUNNING, SUCCESS
		w.Write(rec[:])
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path
}

// A .btlog replays and seeks in memory that does not grow with its size:
// a recording sixteen times longer peaks higher by less than the bytes it
// adds, so it is not held (the collector's timing moves the peak by a few
// MB either way). It used to be read whole: a 600 MB file peaked at
// 632 MB, and here the longer file peaked 71 MB higher for its 31 MB.
func TestBTLogReplaysInBoundedMemory(t *testing.T) {
	if path := os.Getenv("BTROBOT_REPLAY_CHILD"); path != "" {
		replayWhole(path)
		return
	}
	peak := func(n int) (kb int64) {
		path := writeLongBTLog(t, n)
		cmd := exec.Command(os.Args[0], "-test.run=^TestBTLogReplaysInBoundedMemory$")
		// A collector that keeps the heap near what is live, so that the
		// peak says what is held, not when the collector ran.
		cmd.Env = append(os.Environ(), "BTROBOT_REPLAY_CHILD="+path, "GOGC=25")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		for line := range strings.SplitSeq(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 4 && f[0] == "played" && f[2] == "peak_kb" {
				require.Equal(t, strconv.Itoa(n), f[1], "every transition played")
				kb, err = strconv.ParseInt(f[3], 10, 64)
				require.NoError(t, err)
				require.NoError(t, os.Remove(path))
				return kb
			}
		}
		require.FailNow(t, "the child said no peak:\n"+string(out))
		return 0
	}
	// The sizes are what the property needs, no more: every transition
	// played costs ~4 µs of CPU under -race, so the longer file sets the
	// test's cost. The shorter one already holds all that replay keeps
	// whatever the size (FirstTransitions' 20000, a window of 10000 a
	// second): from 62500 transitions on, the peak stays near 45 MB, the
	// collector's timing moving it by a few MB (10 MB at most seen, at
	// any size). The longer adds 15*125000*9 B = 16.9 MB (16479 kB), the
	// bound: a reader that held the file peaks at least that much higher
	// (the old one held 2.3 times the file, ~39 MB; a reader that only
	// kept the file's bytes, tried, peaked 66 MB higher under -race),
	// while the collector's few MB stay well under it.
	const short, long = 125_000, 16 * 125_000 // 1.1 MB, 18 MB
	small, large := peak(short), peak(long)
	t.Logf("peak resident size: %d kB for %d transitions, %d kB for %d", small, short, large, long)
	require.Less(t, large, small+int64((long-short)*btlogRecord/1024),
		"a recording %d times as long (%d more MB) peaks %d kB higher", long/short, (long-short)*btlogRecord>>20, large-small)
}
