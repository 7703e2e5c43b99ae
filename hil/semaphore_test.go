package hil

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestSemaphoreAcrossAFleet: two robots of one run share the kitchen
// through a Semaphore: each robot's visit (the child the Semaphore runs)
// is RUNNING only while the other's is not, and the second robot's
// Semaphore waited RUNNING meanwhile — the one-at-a-time the node promises,
// read from the trees' transitions on the simulated clock.
func TestSemaphoreAcrossAFleet(t *testing.T) {
	res := runParallelUnlessRealTime(t, "testdata/pass_semaphore.scenario.yaml", "")
	for _, v := range res.Verdicts {
		assert.True(t, v.Pass, "%s", v)
	}
	type span struct{ from, to time.Duration }
	visits := map[string][]span{} // robot → the visit's RUNNING spans
	open := map[string]time.Duration{}
	for _, ch := range res.Changes {
		if ch.Path != "Share/kitchen_lock/visit" {
			continue
		}
		switch {
		case ch.To == runtime.Running:
			open[ch.Robot] = ch.At
		case ch.From == runtime.Running:
			visits[ch.Robot] = append(visits[ch.Robot], span{open[ch.Robot], ch.At})
		}
	}
	require.Len(t, visits["robot1"], 1, "robot1's visits: %v", visits)
	require.Len(t, visits["robot2"], 1, "robot2's visits: %v", visits)
	a, b := visits["robot1"][0], visits["robot2"][0]
	assert.True(t, a.to <= b.from || b.to <= a.from, "the visits overlap: robot1 %v–%v, robot2 %v–%v", a.from, a.to, b.from, b.to)
	assert.Positive(t, min(a.to-a.from, b.to-b.from), "both visits took time")
}
