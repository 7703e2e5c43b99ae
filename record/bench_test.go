package record

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// BenchmarkRecorderTransitions: transitions per second a recorder takes
// from the tick and writes to disk (the file closed and complete at the
// end of the run; no transition dropped).
//
//	go test -run '^$' -bench RecorderTransitions ./record
func BenchmarkRecorderTransitions(b *testing.B) {
	for _, file := range []string{"bench.btlog", "bench.db3"} {
		b.Run(file, func(b *testing.B) {
			tree, doc, clock := patrol(b)
			path := filepath.Join(b.TempDir(), file)
			rec, err := New(Conf{Path: path, Tree: tree, Document: doc, MaxPending: 1 << 22})
			require.NoError(b, err)
			nodes := tree.Nodes()
			now := clock.Now()
			batch := make([]runtime.Transition, 0, 64) // a tick's, as a tree gives them
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				n := runtime.NodeOf(nodes[i%len(nodes)])
				batch = append(batch, runtime.Transition{Node: n, From: runtime.Status(i % 3), To: runtime.Status(i%3 + 1), Time: now.Add(time.Duration(i) * time.Microsecond)})
				if len(batch) == cap(batch) || i == b.N-1 {
					rec.OnTransitions(batch)
					batch = batch[:0]
				}
			}
			require.NoError(b, rec.Close())
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "transitions/s")
		})
	}
}

// hour is a synthetic one-hour recording of a patrol at 100 Hz: every tick
// a tick report and three latched inputs (a pose, the battery, the
// bumper), every tenth tick ten transitions; written once per process.
var hour struct {
	once  sync.Once
	dir   string
	files map[string]string
	err   error
}

func hourRecordings(b *testing.B) map[string]string {
	hour.once.Do(func() {
		hour.dir, hour.err = os.MkdirTemp("", "record-hour-")
		if hour.err != nil {
			return
		}
		hour.files = map[string]string{}
		tree, doc, _ := patrol(b)
		nodes := nodeInfos(tree)
		treeXML, err := TreeXML(tree, doc, nil)
		if err != nil {
			hour.err = err
			return
		}
		start := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
		for _, file := range []string{"hour.btlog", "hour.db3"} {
			path := filepath.Join(hour.dir, file)
			hour.files[file] = path
			var s sink
			if filepath.Ext(file) == ".btlog" {
				s, hour.err = newBTLogSink(path)
			} else {
				s, hour.err = newSQLiteSink(path)
			}
			if hour.err != nil {
				return
			}
			h := &Header{Start: start, TreeXML: treeXML, Nodes: nodes}
			if hour.err = s.begin(h); hour.err != nil {
				return
			}
			var bt batch
			status := make([]runtime.Status, len(nodes))
			for tick := range 360_000 {
				at := start.Add(time.Duration(tick) * 10 * time.Millisecond)
				bt.ticks = append(bt.ticks, tickRec{seq: uint64(tick + 1), start: at.UnixNano(), duration: int64(50 * time.Microsecond), status: runtime.Running})
				for k, v := range []string{fmt.Sprintf(`{"x":%.3f,"y":%.3f,"theta":0.5}`, float64(tick)*0.001, 2.0), fmt.Sprint(100 - float64(tick)/4000), `false`} {
					key := []string{"odom", "battery", "bumper_pressed"}[k]
					bt.changes = append(bt.changes, rawChange{Change: Change{At: at, Stamp: at, Scope: "Patrol", Key: key, Type: "float64", Value: []byte(v), Seq: uint64(tick + 1)}})
				}
				if tick%10 == 0 {
					for k := range 10 {
						uid := uint32((tick/10+k)%len(nodes)) + 1
						from := status[uid-1]
						to := runtime.Status((int(from) + 1) % 4)
						status[uid-1] = to
						bt.transitions = append(bt.transitions, transitionRec{at: at.Add(time.Duration(k) * time.Microsecond).UnixNano(), uid: uid, from: from, to: to, reason: -1})
					}
				}
				if len(bt.ticks) == 10_000 {
					if hour.err = s.write(&bt); hour.err != nil {
						return
					}
					bt.reset()
				}
			}
			if hour.err = s.write(&bt); hour.err != nil {
				return
			}
			hour.err = s.close()
		}
	})
	require.NoError(b, hour.err)
	return hour.files
}

// BenchmarkSeekHour: the state (statuses, blackboard, tick) at a random
// instant of a one-hour recording, opened once.
//
//	go test -run '^$' -bench SeekHour ./record
func BenchmarkSeekHour(b *testing.B) {
	files := hourRecordings(b)
	for _, file := range []string{"hour.btlog", "hour.db3"} {
		b.Run(file, func(b *testing.B) {
			r, err := Open(files[file])
			require.NoError(b, err)
			defer r.Close()
			first, last := r.Span()
			rng := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			for range b.N {
				at := first.Add(time.Duration(rng.Int64N(int64(last.Sub(first)))))
				_, err := r.StateAt(at)
				require.NoError(b, err)
			}
		})
	}
}

// BenchmarkOpenHour: opening a one-hour recording (reading and indexing a
// .btlog; the header of a .db3).
func BenchmarkOpenHour(b *testing.B) {
	files := hourRecordings(b)
	for _, file := range []string{"hour.btlog", "hour.db3"} {
		b.Run(file, func(b *testing.B) {
			for range b.N {
				r, err := Open(files[file])
				require.NoError(b, err)
				r.Close()
			}
		})
	}
}
