package hil

import (
	"fmt"
	"sync"
	"time"
)

// Progress is how far a campaign has come: what RunCampaign tells
// CampaignConf.Progress as its runs advance.
type Progress struct {
	// Done and Total count the campaign's runs.
	Done, Total int
	// Simulated is the simulated time the runs have covered so far (every
	// run's, summed, the look on after a mission's end included); Ahead is what the time limits of the runs not yet
	// ended leave to simulate (an upper bound: a run may end before its
	// time limit).
	Simulated, Ahead time.Duration
	// Wall is the wall time since the campaign started.
	Wall time.Duration
}

// Speed is the simulated time covered per unit of wall time so far (0
// before anything was simulated).
func (p Progress) Speed() float64 {
	if p.Wall <= 0 {
		return 0
	}
	return float64(p.Simulated) / float64(p.Wall)
}

// Left estimates the wall time left at the speed so far (0 when it cannot
// tell yet): an upper bound as Ahead is.
func (p Progress) Left() time.Duration {
	if p.Simulated <= 0 || p.Ahead <= 0 {
		return 0
	}
	return time.Duration(float64(p.Ahead) / p.Speed())
}

// String is the progress as one line: "7/21 runs · 12m30s simulated ·
// 180× real time · at most 45s left".
func (p Progress) String() string {
	s := fmt.Sprintf("%d/%d runs · %v simulated", p.Done, p.Total, p.Simulated.Round(time.Second))
	if p.Wall >= time.Second && p.Simulated > 0 {
		s += fmt.Sprintf(" · %.0f× real time", p.Speed())
		if left := p.Left(); left > 0 {
			s += fmt.Sprintf(" · at most %v left", left.Round(time.Second))
		}
	}
	return s
}

// progressEvery bounds how often RunCampaign calls CampaignConf.Progress
// while runs advance (a run's end is always told).
const progressEvery = 250 * time.Millisecond

// tracker adds up the runs' progress for CampaignConf.Progress.
type tracker struct {
	mu      sync.Mutex
	tell    func(Progress)
	start   time.Time
	last    time.Time
	total   int
	done    int
	reached []time.Duration // per run: simulated time reached
	limits  []time.Duration // per run: its time limit; 0 once ended
}

func newTracker(runs []*Scenario, tell func(Progress)) *tracker {
	t := &tracker{tell: tell, start: time.Now(), total: len(runs),
		reached: make([]time.Duration, len(runs)), limits: make([]time.Duration, len(runs))}
	for i, s := range runs {
		t.limits[i] = s.TimeLimit
	}
	return t
}

// advanced records that run i reached simulated time at.
func (t *tracker) advanced(i int, at time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reached[i] = max(t.reached[i], at)
	if now := time.Now(); now.Sub(t.last) >= progressEvery {
		t.last = now
		t.tell(t.progress(now))
	}
}

// ended records that run i ended, judged at simulated time at.
func (t *tracker) ended(i int, at time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done++
	t.reached[i], t.limits[i] = max(t.reached[i], at), 0
	now := time.Now()
	t.last = now
	t.tell(t.progress(now))
}

func (t *tracker) progress(now time.Time) Progress {
	p := Progress{Done: t.done, Total: t.total, Wall: now.Sub(t.start)}
	for i, r := range t.reached {
		p.Simulated += r
		if t.limits[i] > 0 {
			p.Ahead += max(0, t.limits[i]-r)
		}
	}
	return p
}
