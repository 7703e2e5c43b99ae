package executor

import (
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
