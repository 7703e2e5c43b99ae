package executor

import (
	goruntime "runtime"
	"strings"

	"github.com/btrobot/btrobot/ros"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// firstTicks makes a server's runs say when they tick first.
func firstTicks(ch chan<- Status, s **Server) func(*Conf) {
	return func(c *Conf) {
		c.Run = func(rc *mission.RunConf) {
			on := rc.OnTick
			first := true
			rc.OnTick = func(tree *runtime.Tree, t runtime.TickReport) (string, bool) {
				why, done := on(tree, t)
				if first {
					first = false
					ch <- (*s).Status()
				}
				return why, done
			}
		}
	}
}

// reportQuantiles reports the 50th and 99th percentiles and the maximum
// of ds in milliseconds, as name-p50-ms, name-p99-ms, name-max-ms.
func reportQuantiles(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(ds[len(ds)/2]), name+"-p50-ms")
	b.ReportMetric(ms(ds[(len(ds)*99)/100]), name+"-p99-ms")
	b.ReportMetric(ms(ds[len(ds)-1]), name+"-max-ms")
}

// BenchmarkFirstTick measures a goal's acceptance to its mission's first
// tick, on an idle server whose catalog is the shipped missions (with the
// sim profile) and a mission that waits until halted.
func BenchmarkFirstTick(b *testing.B) {
	for _, m := range []string{"Wait", "Patrol", "Delivery", "DockAndCharge", "FleetPatrol"} {
		b.Run(m, func(b *testing.B) {
			ticked := make(chan Status, 1)
			var srv *Server
			s := serve(b, missionsDir(b), firstTicks(ticked, &srv))
			srv = s.srv
			var ds []time.Duration
			b.ResetTimer()
			for i := range b.N {
				g := s.send(m, "", "")
				st := <-ticked
				if i == 0 {
					// The first goal of a server: what was not made
					// ready at load is paid here.
					b.ReportMetric(float64(st.FirstTick)/float64(time.Millisecond), "first-goal-ms")
				}
				ds = append(ds, st.FirstTick)
				b.StopTimer()
				g.cancel()
				s.idle(b)
				b.StartTimer()
			}
			reportQuantiles(b, "first-tick", ds)
		})
	}
}

// BenchmarkPreemption measures, for a goal that replaces the running
// mission, the old mission's halt (its run returned, the robot's stop
// confirmed) to the new mission's first tick.
func BenchmarkPreemption(b *testing.B) {
	ticked := make(chan Status, 1)
	var srv *Server
	s := serve(b, missionsDir(b), firstTicks(ticked, &srv))
	srv = s.srv
	prev := s.send("Wait", "", "")
	<-ticked
	var ds []time.Duration
	names := []string{"WaitToo", "Wait"}
	b.ResetTimer()
	for i := range b.N {
		g := s.send(names[i%2], "", "replace")
		st := <-ticked
		ds = append(ds, st.Switch)
		b.StopTimer()
		require.Equal(b, OutcomePreempted, prev.wait(b).outcome())
		prev = g
		b.StartTimer()
	}
	b.StopTimer()
	prev.cancel()
	s.idle(b)
	reportQuantiles(b, "halt-to-first-tick", ds)
}

// BenchmarkReload measures ~reload of the shipped missions (with the sim
// profile and the office's places): read, validate and make ready.
func BenchmarkReload(b *testing.B) {
	s := serve(b, shipped, nil)
	var ds []time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		res := s.srv.Reload()
		ds = append(ds, time.Since(t0))
		require.True(b, res.Success, res.Errors)
	}
	reportQuantiles(b, "reload", ds)
}

// BenchmarkSoak sends 1,000 goals at 1,000 a second (queued short goals,
// replacing and updating long ones, a reject among them), then cancels
// what is left, and reports the server's heap and goroutines before and
// after each round (after a GC), with the goals rejected for a full queue.
func BenchmarkSoak(b *testing.B) {
	s := serve(b, missionsDir(b), nil)
	heapAndGoroutines := func() (float64, float64) {
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		return float64(ms.HeapInuse) / (1 << 20), float64(goruntime.NumGoroutine())
	}
	goals := []struct{ mission, preempt string }{
		{"Brief", "queue"}, {"Brief", "queue"}, {"Wait", "replace"}, {"Brief", "queue"},
		{"Wait", "update"}, {"WaitToo", "reject"}, {"Brief", "queue"}, {"WaitToo", "update"},
	}
	heap0, gr0 := heapAndGoroutines()
	st0 := s.srv.Status()
	var rejected int
	reasons := map[string]int{}
	b.ResetTimer()
	for range b.N {
		tick := time.NewTicker(time.Millisecond)
		sent := make([]*sent, 0, 1000)
		for i := range 1000 {
			<-tick.C
			g := goals[i%len(goals)]
			sent = append(sent, s.send(g.mission, "", g.preempt))
		}
		tick.Stop()
		for _, g := range sent {
			g.cancel()
			if e := g.wait(b); e.err == nil && e.out.State == ros.GoalRejected {
				rejected++
				if r, ok := e.out.Result.(*ros.ExecuteMissionActionResult); ok && len(r.Explanation) > 0 {
					why := r.Explanation[0]
					if i := strings.IndexAny(why, "0123456789"); i >= 0 && i < 3 {
						why = "N" + why[strings.IndexByte(why, ' '):]
					}
					reasons[why]++
				}
			}
		}
		s.idle(b)
	}
	b.StopTimer()
	// The client's goal goroutines end, and both ends of the action drop
	// the ended goals (actionlib keeps them listed 5 s).
	time.Sleep(6 * time.Second)
	b.Logf("rejections: %v", reasons)
	heap1, gr1 := heapAndGoroutines()
	b.ReportMetric(heap0, "heap-before-MiB")
	b.ReportMetric(heap1, "heap-after-MiB")
	b.ReportMetric(gr0, "goroutines-before")
	b.ReportMetric(gr1, "goroutines-after")
	b.ReportMetric(float64(rejected)/float64(b.N), "rejected/round")
	// Goals the server never saw: the client's transport dropped them
	// (goroslib's publisher keeps 64 messages per subscriber).
	st1 := s.srv.Status()
	seen := (st1.Accepted + st1.Rejected) - (st0.Accepted + st0.Rejected)
	b.ReportMetric(float64(uint64(1000*b.N)-seen)/float64(b.N), "unseen/round")
}
