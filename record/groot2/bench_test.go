package groot2

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/ros/rostest"
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
						require.NoError(b, err)
					}
				}
				var rec *record.Recorder
				if tc.file != "" {
					var err error
					rec, err = record.New(record.Conf{Path: filepath.Join(b.TempDir(), tc.file), Tree: tree, Document: doc, MaxPending: 1 << 22})
					require.NoError(b, err)
					defer rec.Attach()()
				}
				if tc.serve {
					srv, err := New(Conf{Tree: tree, Document: doc, Host: "127.0.0.1", Port: rostest.FreePortPair(b)})
					require.NoError(b, err)
					defer srv.Close()
					defer srv.Attach()()
				}
				var inTick time.Duration
				b.ResetTimer()
				for i := range b.N {
					t0 := time.Now()
					st, err := tree.TickExactlyOnce()
					require.NoError(b, err)
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
					require.NoError(b, rec.Close())
				}
			})
		}
	}
}

// BenchmarkTickObservedAB: the overhead of the observers on one tick of
// the patrol-like tree, measured as a pair in one run: a bare tree and an
// observed one (the Groot2 server, a recorder of each format, or both)
// tick in turn, 500 µs apart on the wall clock (as a loop paces them:
// most ticks change nothing, every 20 ms a step ends with transitions and
// blackboard writes), so that the machine's drift hits both alike.
//
//	go test -run '^$' -bench TickObservedAB -benchtime 4000x -count 5 ./record/groot2
//
// bare-ns and observed-ns are the mean tick times (the tick and OnTick);
// overhead-% is observed over bare, less one.
func BenchmarkTickObservedAB(b *testing.B) {
	for _, tc := range []struct {
		name, file string
		serve      bool
	}{
		{"none", "", false}, // the two trees alike: the method's own bias
		{"groot2", "", true},
		{"btlog", "tick.btlog", false},
		{"db3", "tick.db3", false},
		{"btlog+groot2", "tick.btlog", true},
		{"db3+groot2", "tick.db3", true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			_, doc, _ := patrol(b)
			bare, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: runtime.WallClock{}})
			require.NoError(b, err)
			tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: runtime.WallClock{}})
			require.NoError(b, err)
			var rec *record.Recorder
			detach := func() {}
			if tc.file != "" {
				if rec, err = record.New(record.Conf{Path: filepath.Join(b.TempDir(), tc.file), Tree: tree, Document: doc, MaxPending: 1 << 22}); err != nil {
					require.NoError(b, err)
				}
				detach = rec.Attach()
			}
			var srv *Server
			unhook := func() {}
			if tc.serve {
				if srv, err = New(Conf{Tree: tree, Document: doc, Host: "127.0.0.1", Port: rostest.FreePortPair(b)}); err != nil {
					require.NoError(b, err)
				}
				unhook = srv.Attach()
			}
			var inBare, inObserved time.Duration
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				{
					_, err := bare.TickExactlyOnce()
					require.NoError(b, err)
				}
				inBare += time.Since(t0)
				time.Sleep(250 * time.Microsecond)
				t0 = time.Now()
				st, err := tree.TickExactlyOnce()
				require.NoError(b, err)
				if rec != nil {
					rec.OnTick(runtime.TickReport{Seq: uint64(i), Start: t0, Status: st})
				}
				inObserved += time.Since(t0)
				time.Sleep(250 * time.Microsecond)
			}
			b.StopTimer()
			b.ReportMetric(float64(inBare.Nanoseconds())/float64(b.N), "bare-ns")
			b.ReportMetric(float64(inObserved.Nanoseconds())/float64(b.N), "observed-ns")
			b.ReportMetric(100*(float64(inObserved)/float64(inBare)-1), "overhead-%")
			unhook()
			detach()
			if srv != nil {
				require.NoError(b, srv.Close())
			}
			if rec != nil {
				require.NoError(b, rec.Close())
			}
		})
	}
}
