package ros

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSimClockRemembersWhenItReachedATime(t *testing.T) {
	c := newSimClock()
	epoch := time.Unix(100, 0)
	assert.True(t, c.LastSet().IsZero())
	_, ok := c.ReachedAt(epoch)
	assert.False(t, ok, "nothing reached before the first /clock")
	var walls []time.Time
	for i := 0; i < 3; i++ { // 100.00, 100.03, 100.06
		c.set(epoch.Add(time.Duration(i) * 30 * time.Millisecond))
		walls = append(walls, c.LastSet())
		time.Sleep(2 * time.Millisecond)
	}
	cases := []struct {
		name string
		at   time.Duration
		want int // index into walls; -1: not reached
	}{
		{"a step's own time", 30 * time.Millisecond, 1},
		{"between steps: the next", 40 * time.Millisecond, 2},
		{"the first step", 0, 0},
		{"not reached yet", 70 * time.Millisecond, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := c.ReachedAt(epoch.Add(tc.at))
			if tc.want < 0 {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, walls[tc.want], w)
		})
	}
	for i := 0; i < simSteps; i++ {
		c.set(epoch.Add(time.Second + time.Duration(i)*time.Millisecond))
	}
	_, ok = c.ReachedAt(epoch)
	assert.False(t, ok, "a time older than the steps remembered")
}
