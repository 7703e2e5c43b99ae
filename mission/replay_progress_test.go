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
