package studio_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/studio"
)

// TestStudioReplaysARecording: hello.xml recorded for four ticks, one
// simulated second apart, opened in the studio: seeking to an instant
// shows the state the recording holds there (record.Recording.StateAt),
// statuses and blackboard alike; play runs to the end.
func TestStudioReplaysARecording(t *testing.T) {
	file := recordHello(t, 4)
	rec, err := record.Open(file)
	require.NoError(t, err)
	defer rec.Close()
	start := rec.Header().Start

	srv := newServer(t, studio.Conf{})
	require.NoError(t, srv.AddRecording(file))
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 7`, "hello's seven nodes")
	assert.False(t, eval[bool](t, ctx, `document.querySelector('#replay').hidden`), "the replay controls")
	assert.True(t, eval[bool](t, ctx, `document.querySelector('#debug').hidden`), "no debugging of a recording")

	for _, tc := range []struct {
		name  string
		at    float64 // seconds since the start
		laps  string  // the blackboard's laps there
		three string  // three_laps' status there
	}{
		{name: "after the first tick", at: 1.5, laps: "1", three: "RUNNING"},
		{name: "after the second tick", at: 2.5, laps: "2", three: "RUNNING"},
		{name: "after the third, which completes the mission", at: 3.5, laps: "3", three: "IDLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eval[bool](t, ctx, fmt.Sprintf(`fetch('api/runs/1/replay', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({op: 'seek', at_s: %g})}).then(r => r.ok)`, tc.at))
			waitJS(t, ctx, 5*time.Second, fmt.Sprintf(`document.querySelector('#at').textContent === '%.2f s'`, tc.at), "the cursor there")
			st, err := rec.StateAt(start.Add(time.Duration(tc.at * float64(time.Second))))
			require.NoError(t, err)
			for i, want := range st.Statuses {
				got := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('g.node[data-uid="%d"]').dataset.status`, i+1))
				assert.Equal(t, want.String(), got, "node %d", i+1)
			}
			three := eval[string](t, ctx, `document.querySelector('g.node[data-path$="/three_laps"]').dataset.status`)
			assert.Equal(t, tc.three, three)
			waitJS(t, ctx, 5*time.Second, `(document.querySelector('#bb tr[data-key="Hello/laps"] td.value') || {}).textContent === `+jsq(tc.laps), "laps = "+tc.laps)
			if tc.at == 2.5 {
				screenshot(t, ctx, "studio-replay")
			}
		})
	}
	t.Run("the slider seeks too", func(t *testing.T) {
		eval[bool](t, ctx, `(() => { const s = document.querySelector('#seek'); s.value = '0'; s.dispatchEvent(new Event('input')); return true })()`)
		waitJS(t, ctx, 5*time.Second, `document.querySelector('#at').textContent === '0.00 s'`, "the cursor at the start")
	})
	t.Run("play runs to the end", func(t *testing.T) {
		eval[bool](t, ctx, `fetch('api/runs/1/replay', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({op: 'speed', speed: 20})}).then(r => r.ok)`)
		eval[bool](t, ctx, `(document.querySelector('#btn-play').click(), true)`)
		waitJS(t, ctx, 10*time.Second, `document.querySelector('#at').textContent === '4.00 s' && document.querySelector('#btn-play').textContent === 'Play'`, "the end, paused")
		assert.Equal(t, "1", eval[string](t, ctx, `document.querySelector('#bb tr[data-key="Hello/laps"] td.value').textContent`), "the fourth tick starts the mission again: one lap")
	})
	t.Run("a bad seek is refused with what is right", func(t *testing.T) {
		msg := eval[string](t, ctx, `fetch('api/runs/1/replay', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({op: 'seek', at_s: -1})}).then(r => r.status + ' ' + r.statusText).then(s => s)`)
		assert.Contains(t, msg, "400")
	})
}
