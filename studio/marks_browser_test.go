package studio_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

// marker is what a live run's debugger offers for marks (hil draws its
// faults and verdicts with it).
type marker interface {
	Mark(at time.Time, kind, label, text string)
}

// TestMarksOnTheTimeline: marks of a live run (hil's faults and verdicts)
// are drawn on the page's timeline at their time, each with its label and
// its text on hover: those made before the page opened (its snapshot),
// one made while it watches (a delta), and one made after the run ended.
func TestMarksOnTheTimeline(t *testing.T) {
	srv := newServer(t, studio.Conf{})
	tree, _, clock := offlineTree(t, filepath.Join(copyMissions(t), "hello.xml"))
	t0 := clock.Now()
	dbg, detach := attach(srv, tree)
	defer detach()
	m, ok := dbg.(marker)
	require.True(t, ok, "the studio's debugger draws marks")
	for range 10 {
		clock.Advance(time.Second)
		st, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		dbg.OnTick(runtime.TickReport{Seq: tree.Ticks(), Start: clock.Now(), Status: st}) // on the tree's clock, as the loop reports
	}
	m.Mark(t0.Add(4*time.Second), "fault", "F1", "{at: 4s, battery: 0.12}")
	m.Mark(t0.Add(6*time.Second), "fault", "F2", "{at: 6s, stall: 1s}")

	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
	const spans = `[...document.querySelectorAll('#timeline-events span')]`
	waitJS(t, ctx, 10*time.Second, spans+`.length === 2`, "the marks made before the page opened")
	type drawn struct {
		Label, Kind, Title string
		Left               float64
	}
	read := func() []drawn {
		return eval[[]drawn](t, ctx, spans+`.map((s) => ({Label: s.textContent, Kind: s.dataset.kind, Title: s.title, Left: parseFloat(s.style.left)}))`)
	}
	got := read()
	assert.Equal(t, "F1", got[0].Label)
	assert.Equal(t, "fault", got[0].Kind)
	assert.Equal(t, "4.0 s: {at: 4s, battery: 0.12}", got[0].Title)
	assert.Less(t, got[0].Left, got[1].Left, "in time order along the timeline")
	assert.Greater(t, got[0].Left, 0.0)

	m.Mark(t0.Add(8*time.Second), "pass", "✓", "all 5 expectations held")
	waitJS(t, ctx, 10*time.Second, spans+`.length === 3`, "a mark made while the page watches")
	screenshot(t, ctx, "studio-marks")

	dbg.Close(mission.Report{})
	m.Mark(t0.Add(9*time.Second), "fail", "✗", "1 of 6 expectations failed")
	waitJS(t, ctx, 10*time.Second, spans+`.length === 4`, "a mark made after the run ended")
	got = read()
	assert.Equal(t, []string{"F1", "F2", "✓", "✗"}, []string{got[0].Label, got[1].Label, got[2].Label, got[3].Label})
	assert.Equal(t, "fail", got[3].Kind)
	assert.Equal(t, "rgb(214, 59, 59)", eval[string](t, ctx, `getComputedStyle(document.querySelectorAll('#timeline-events span')[3]).borderLeftColor`), "a failure drawn red")
}
