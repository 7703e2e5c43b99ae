package hil

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BenchmarkSoak runs the shipped long scenarios (long: true; scenarios/soak/:
// a simulated day of patrol_with_charging) and fails when an expectation does not hold:
// the process flat in goroutines and live heap, the battery cycle without
// drift. It reports simulated hours per wall minute. Too long for the CI
// suite's budget, so a benchmark:
//
//	go test -run '^$' -bench Soak -benchtime 1x -timeout 30m ./hil/
func BenchmarkSoak(b *testing.B) {
	p, err := Plan([]string{"../scenarios"}, Selection{})
	require.NoError(b, err)
	require.NotEmpty(b, p.LeftOut)
	for _, f := range p.LeftOut {
		b.Run(filepath.Base(f), func(b *testing.B) {
			s, err := Check(f)
			require.NoError(b, err)
			var sim, wall time.Duration
			for range b.N {
				res, err := Run(context.Background(), RunConf{Scenario: s})
				require.NoError(b, err)
				for _, v := range res.Verdicts {
					b.Log(v)
					assert.True(b, v.Pass, "%v", v)
				}
				sim, wall = sim+res.SimTime, wall+res.Wall
			}
			b.ReportMetric(sim.Hours()/wall.Minutes(), "sim-h/wall-min")
		})
	}
}
