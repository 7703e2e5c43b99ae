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
// there, bridge's catchUp), however much of the stop's backlog was read
// before the question.
func TestSimClockProjectsItsPaceOverAStop(t *testing.T) {
	wall0 := time.Unix(1_000, 0)
	sim0 := time.Unix(50, 0)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	for _, tc := range []struct {
		name    string
		steps   []time.Duration // wall offsets of /clock messages before the stop
		speed   float64         // simulated seconds per wall second between them
		backlog int             // /clock messages of the stop read at 5 s, 10 ms of sim apart, 1 µs of wall
		before  time.Duration   // the stop began
		at      time.Duration   // projected to
		want    time.Duration   // sim offset
		wantNot bool
	}{
		{"real time, a 5 s stop", []time.Duration{0, ms(50), ms(100), ms(150)}, 1, 0, ms(175), ms(5150), ms(5150), false},
		{"four times real time", []time.Duration{0, ms(50), ms(100)}, 4, 0, ms(125), ms(1100), ms(4400), false},
		{"steps after the stop are not its pace", []time.Duration{0, ms(50), ms(100)}, 1, 2, ms(125), ms(5100), ms(5100), false},
		// The stop's 500 messages (a 5 s stop, /clock at 100 Hz) fill the
		// 64 steps ReachedAt remembers many times over.
		{"a backlog longer than the steps remembered", []time.Duration{0, ms(50), ms(100), ms(150)}, 1, 500, ms(175), ms(5150), ms(5150), false},
		{"steps 10 ms apart: sampled every 50 ms", []time.Duration{0, ms(10), ms(20), ms(30), ms(40), ms(50), ms(60)}, 1, 100, ms(65), ms(5050), ms(5050), false},
		{"one step before the stop", []time.Duration{0}, 1, 2, ms(10), ms(5000), 0, true},
		{"two steps closer than 50 ms: one sample", []time.Duration{0, ms(10)}, 1, 2, ms(20), ms(5000), 0, true},
		{"none before the stop", nil, 1, 2, ms(10), ms(5010), 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newSimClock()
			for _, w := range tc.steps {
				c.setAt(sim0.Add(time.Duration(float64(w)*tc.speed)), wall0.Add(w))
			}
			for k := range tc.backlog { // read at once on resuming, the simulator far ahead
				c.setAt(sim0.Add(time.Duration(k)*10*time.Millisecond+time.Second), wall0.Add(ms(5000)+time.Duration(k)*time.Microsecond))
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
