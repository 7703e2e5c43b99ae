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

// TestSimClockProjectsItsPaceOverAStop: after the process was stopped, the
// clock's steps from before the stop say what simulated time the
// simulator has reached by now (a catch-up waits for the clock to get
// there, bridge's catchUp).
func TestSimClockProjectsItsPaceOverAStop(t *testing.T) {
	wall0 := time.Unix(1_000, 0)
	sim0 := time.Unix(50, 0)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct {
		name    string
		steps   []time.Duration // wall offsets of /clock messages, 10 ms of sim apart
		speed   float64         // simulated seconds per wall second between them
		before  time.Duration   // the stop began
		at      time.Duration   // projected to
		want    time.Duration   // sim offset
		wantNot bool
	}{
		{"real time, a 5 s stop", []time.Duration{0, ms(10), ms(20), ms(30)}, 1, ms(35), ms(5030), ms(5030), false},
		{"four times real time", []time.Duration{0, ms(10), ms(20)}, 4, ms(25), ms(1020), ms(4080), false},
		{"steps after the stop are not its pace", []time.Duration{0, ms(10), ms(20), ms(5000), ms(5001)}, 1, ms(25), ms(5020), ms(5020), false},
		{"one step before the stop", []time.Duration{0, ms(5000)}, 1, ms(10), ms(5000), 0, true},
		{"none before the stop", []time.Duration{ms(5000), ms(5001)}, 1, ms(10), ms(5010), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newSimClock()
			for i, w := range tc.steps {
				sim := sim0.Add(time.Duration(float64(w) * tc.speed))
				if w >= tc.before { // the stop's backlog: read at once, the sim far ahead
					sim = sim0.Add(time.Duration(i) * 10 * time.Millisecond).Add(5 * time.Second)
				}
				c.setAt(sim, wall0.Add(w))
			}
			got, ok := c.Projected(wall0.Add(tc.before), wall0.Add(tc.at))
			if tc.wantNot {
				assert.False(t, ok, "projected %v", got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, sim0.Add(tc.want), got)
		})
	}
}
