package groot2

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/runtime"
)

// BenchmarkTickObserved: one tick of a patrol-like tree, bare, recorded
// (.btlog, .db3), and recorded with the Groot2 server attached (no client
// connected). On the manual clock every third tick ends a step (a dense
// run of transitions and blackboard writes); on the wall clock, as on a
// robot at 100 Hz, most ticks change nothing.
//
//	go test -run '^$' -bench TickObserved -count 5 ./record/groot2
//
// tick-ns is the tick's own time (the tick and OnTick). "hot" ticks follow
// each other at once (warm caches; the recorder's writer competes for the
// CPU); "paced" ticks are 500 µs apart as a loop paces them (the writer
// works between ticks as on a robot; caches are cold, as on a robot). ns/op
// includes the pause.
func BenchmarkTickObserved(b *testing.B) {
	for _, mode := range []string{"hot/manual", "hot/wall", "paced/manual", "paced/wall"} {
		pace := strings.HasPrefix(mode, "paced")
		clockName := mode[strings.Index(mode, "/")+1:]
		for _, tc := range []struct {
			name, file string
			serve      bool
		}{
			{"bare", "", false},
			{"btlog", "tick.btlog", false},
			{"btlog+groot2", "tick.btlog", true},
			{"sqlite", "tick.db3", false},
			{"sqlite+groot2", "tick.db3", true},
		} {
			b.Run(mode+"/"+tc.name, func(b *testing.B) {
				tree, doc, clock := patrol(b)
				if clockName == "wall" {
					var err error
					if tree, err = runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: runtime.WallClock{}}); err != nil {
						b.Fatal(err)
					}
				}
				var rec *record.Recorder
				if tc.file != "" {
					var err error
					rec, err = record.New(record.Conf{Path: filepath.Join(b.TempDir(), tc.file), Tree: tree, Document: doc, MaxPending: 1 << 22})
					if err != nil {
						b.Fatal(err)
					}
					defer rec.Attach()()
				}
				if tc.serve {
					srv, err := New(Conf{Tree: tree, Document: doc, Host: "127.0.0.1", Port: freePort(b)})
					if err != nil {
						b.Fatal(err)
					}
					defer srv.Close()
					defer srv.Attach()()
				}
				var inTick time.Duration
				b.ResetTimer()
				for i := range b.N {
					t0 := time.Now()
					st, err := tree.TickExactlyOnce()
					if err != nil {
						b.Fatal(err)
					}
					if rec != nil {
						rec.OnTick(runtime.TickReport{Seq: uint64(i), Start: t0, Status: st})
					}
					inTick += time.Since(t0)
					if clockName == "manual" {
						clock.Advance(10 * time.Millisecond)
					}
					if pace {
						time.Sleep(500 * time.Microsecond)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(inTick.Nanoseconds())/float64(b.N), "tick-ns")
				if rec != nil {
					if err := rec.Close(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
