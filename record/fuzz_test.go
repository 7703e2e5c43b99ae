package record

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// FuzzOpenBTLog: no input makes the .btlog reader panic, hang or read past
// its file; what it accepts replays anywhere.
//
// The package links the SQLite engine, whose millions of instrumented
// edges stall Go's coverage-guided fuzzer here; fuzz a binary built
// without coverage instead (random mutation, 70,000 inputs a second):
//
//	go test -c -o /tmp/record.test ./record
//	cd /tmp && ./record.test -test.run '^$' -test.fuzz FuzzOpenBTLog -test.fuzztime 60s
func FuzzOpenBTLog(f *testing.F) {
	good := recordPatrol(f, filepath.Join(f.TempDir(), "seed.btlog"), 10)
	f.Add(good)
	f.Add(good[:len(good)-3])
	if ref, err := os.ReadFile("testdata/bt.cpp/counter.btlog"); err == nil {
		f.Add(ref)
	}
	f.Add([]byte(btlogMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseBTLog(context.Background(), "fuzz.btlog", bytes.NewReader(data), int64(len(data)), fuzzLimits)
		if err != nil {
			_, ok := err.(*FormatError)
			require.True(t, ok, "not a FormatError: %v", err)
			return
		}
		first, last := r.Span()
		for _, at := range []time.Time{first, last, first.Add(last.Sub(first) / 2), last.Add(time.Hour)} {
			s, err := r.StateAt(at)
			require.NoError(t, err)
			require.Len(t, s.Statuses, len(r.Header().Nodes), "%d statuses for %d nodes", len(s.Statuses), len(r.Header().Nodes))
		}
		// The state at the end is every record folded in, whatever the
		// checkpoints.
		want := make([]runtime.Status, len(r.Header().Nodes))
		for i := r.body; i+btlogRecord <= int64(len(data)); i += btlogRecord {
			want[binary.LittleEndian.Uint16(data[i+6:])-1] = runtime.Status(data[i+8])
		}
		end, err := r.StateAt(last)
		require.NoError(t, err)
		require.True(t, slices.Equal(want, end.Statuses), "the state at the end is %v, the records say %v", end.Statuses, want)
		ts, err := r.Transitions(first, last.Add(time.Microsecond))
		var many *TooManyEventsError
		switch {
		case errors.As(err, &many):
			require.Greater(t, r.n, fuzzLimits.events, "%d records: %v", r.n, err)
		case err != nil:
			require.NoError(t, err)
		case len(ts) != r.n:
			require.Fail(t, fmt.Sprintf("%d transitions of %d records", len(ts), r.n))
		}
		head, err := FirstTransitions(r, first, last.Add(time.Microsecond), 10)
		require.NoError(t, err)
		require.Len(t, head, min(10, r.n), "%d first transitions of %d records", len(head), r.n)
	})
}

// FuzzOpenSQLite: a damaged database gets an error, never a panic or a
// hang. The seeds are a recording with bytes changed by the fuzzer.
func FuzzOpenSQLite(f *testing.F) {
	good := recordPatrol(f, filepath.Join(f.TempDir(), "seed.db3"), 10)
	f.Add(good, 0, byte(0))
	f.Add(good, 4096+200, byte(0xff))
	f.Add(good, 16, byte(3))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, at int, b byte) {
		if len(data) > 0 && at >= 0 {
			data = append([]byte(nil), data...)
			data[at%len(data)] = b
		}
		path := filepath.Join(dir, "fuzz.db3")
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		r, err := Open(path)
		if err != nil {
			return
		}
		defer r.Close()
		first, last := r.Span()
		r.StateAt(first.Add(last.Sub(first) / 2))
		r.Transitions(first, last.Add(time.Microsecond))
		r.Changes(first, last.Add(time.Microsecond))
		r.Ticks(first, last.Add(time.Microsecond))
	})
}

// Coverage-guided fuzzing crawls through the SQLite engine (transpiled C,
// millions of instrumented edges), so the SQLite reader also gets blind
// fuzzing here: recordings with random bytes changed and cut, each opened
// and replayed within a bound.
func TestSQLiteSurvivesCorruption(t *testing.T) {
	good := recordPatrol(t, filepath.Join(t.TempDir(), "seed.db3"), 10)
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for i := range 300 {
		data := append([]byte(nil), good...)
		for range 1 + rng.IntN(8) {
			data[rng.IntN(len(data))] = byte(rng.IntN(256))
		}
		if rng.IntN(4) == 0 {
			data = data[:rng.IntN(len(data))/4096*4096]
		}
		path := filepath.Join(dir, "x.db3")
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		start := time.Now()
		if r, err := Open(path); err == nil {
			first, last := r.Span()
			r.StateAt(first.Add(last.Sub(first) / 2))
			r.Transitions(first, last.Add(time.Microsecond))
			r.Changes(first, last.Add(time.Microsecond))
			r.Close()
		}
		d := time.Since(start)
		require.LessOrEqual(t, d, 5*time.Second, "input %d took %v", i, d)
	}
}

// fuzzLimits are small, so that the fuzzer reaches them: checkpoints
// that thin out after a few, few events a call.
var fuzzLimits = limits{treeXML: 1 << 20, value: 1 << 20, events: 64, checks: 256, rows: 64, timeout: 5 * time.Second}
