package mission

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestReplayProgress(t *testing.T) {
	for _, tc := range []struct {
		at, total, wall time.Duration
		want            string
	}{
		{0, 10 * time.Minute, 0, "replay: 0s of 10m0s (0%)"},
		{time.Minute, 10 * time.Minute, 15 * time.Second, "replay: 1m0s of 10m0s (10%) · 4.0× · 2m15s left"},
		{10 * time.Minute, 10 * time.Minute, time.Minute, "replay: 10m0s of 10m0s (100%) · 10.0×"},
		{0, 0, 0, "replay: 0s of 0s"},
	} {
		assert.Equal(t, tc.want, replayProgress(tc.at, tc.total, tc.wall))
	}
}

func TestDemoProgress(t *testing.T) {
	for _, tc := range []struct {
		done, rounds int
		sim, wall    time.Duration
		want         string
	}{
		{0, 2, 0, 0, "demo: 0/2 rounds · 0s simulated"},
		{0, 1, 40 * time.Second, 2 * time.Second, "demo: 0/1 round · 40s simulated · 20× real time"},
		{1, 3, 6 * time.Minute, 10 * time.Second, "demo: 1/3 rounds · 6m0s simulated · 36× real time · about 20s left"},
		{3, 3, 18 * time.Minute, 30 * time.Second, "demo: 3/3 rounds · 18m0s simulated · 36× real time"},
	} {
		assert.Equal(t, tc.want, demoProgress(tc.done, tc.rounds, tc.sim, tc.wall))
	}
}
