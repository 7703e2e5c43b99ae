package studio_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/studio"
)

// TestStudioMonitorsAndDebugsALiveMission: the patrol on the simulator at
// real time, shown by the studio with control allowed, in chromium. Each
// step is what a user does in the page and what must follow; the steps run
// in order on one run.
func TestStudioMonitorsAndDebugsALiveMission(t *testing.T) {
	rig := startSim(t)
	srv := newServer(t, studio.Conf{AllowControl: true, Title: "patrol on the office"})
	ctx := browser(t)
	// The page opens before the run: it waits for it, then follows it
	// from its first tick.
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
	waitJS(t, ctx, 5*time.Second, `document.querySelector('#conn').textContent === 'no run yet'`, "the page waiting")
	// What the page draws, recorded as it happens: each node's statuses
	// in the order the page showed them.
	eval[bool](t, ctx, `(() => {
		window.seen = {};
		new MutationObserver((ms) => { for (const m of ms) {
			const g = m.target, st = g.dataset.status, uid = g.dataset.uid, list = window.seen[uid] = window.seen[uid] || [];
			if (list[list.length - 1] !== st) list.push(st);
		} }).observe(document.querySelector('#nodes'), {subtree: true, attributes: true, attributeFilter: ['data-status']});
		return true })()`)
	run := runPatrol(t, rig, srv)
	waitJS(t, ctx, 15*time.Second, `document.querySelectorAll('g.node').length > 10`, "the tree drawn")
	nav := `g.node[data-path$="/NavigateTo"]`

	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"statuses change in the page as the tree ticks", func(t *testing.T) {
			waitJS(t, ctx, 20*time.Second, `!!document.querySelector('g.node[data-status=RUNNING]')`, "a RUNNING node")
			if !waitFor(t, ctx, 30*time.Second, `!!document.querySelector('g.node[data-path$="/NavigateTo"][data-status=RUNNING]')`) {
				t.Logf("tick %d; page: %s; blackboard: %s", run.tick(),
					eval[string](t, ctx, `[...document.querySelectorAll('g.node')].filter(g => g.dataset.status !== 'IDLE').map(g => g.dataset.path + ':' + g.dataset.status + ':' + (g.querySelector('.reason').textContent)).join(' | ')`),
					eval[string](t, ctx, `[...document.querySelectorAll('#bb tbody tr')].map(r => r.textContent).join(' | ')`))
				pg := openEvents(t, srv, "")
				snap := pg.next()
				for range 4 {
					e := pg.next()
					tr, _ := e.data["transitions"].([]any)
					first := any(nil)
					if len(tr) > 0 {
						first = tr[0]
					}
					t.Logf("event %s %s n=%v transitions=%d first=%v", e.id, e.name, e.data["n"], len(tr), first)
				}
				var running []string
				for i, st := range snap.data["statuses"].([]any) {
					if st != "IDLE" {
						running = append(running, fmt.Sprint(i+1, st))
					}
				}
				t.Logf("server snapshot n=%v running=%v; page: %s", snap.data["n"], running,
					eval[string](t, ctx, `JSON.stringify({stats: window.studio.stats.events, snaps: window.studio.stats.snapshots, n: window.studio.state.n, hist: window.studio.state.history.length, last: window.studio.state.history.slice(-3)})`))
				require.FailNow(t, "NavigateTo not drawn RUNNING within 30 s")
			}
			// Between places the patrol's statuses hold still (reaching a
			// place ends one step and starts the next in one tick): the
			// bumper falls silent, the guarded navigation fails and the
			// recovery ladder backs the robot up (2 s) — drawn RUNNING,
			// then done — until the bumper talks again.
			backUp := `g.node[data-path$="/recovery_ladder/back_up_and_retry"]`
			rig.freeze(t, sim.TopicBumper, true)
			ok := waitFor(t, ctx, 30*time.Second, `(() => { const g = document.querySelector('`+backUp+`'); const l = g && window.seen[g.dataset.uid] || [];
				const i = l.indexOf('RUNNING'); return i >= 0 && l.length > i + 1 })()`)
			rig.freeze(t, sim.TopicBumper, false)
			if !ok {
				require.FailNow(t, fmt.Sprintf("back_up_and_retry not drawn RUNNING, then done, while the bumper was silent: %s", eval[string](t, ctx, `JSON.stringify(window.seen)`)))
			}
			// At real time on a loaded machine the ladder may climb a rung more
			// before the bumper talks again: a minute, not a speed.
			waitJS(t, ctx, 60*time.Second, `!!document.querySelector('`+nav+`[data-status=RUNNING]') && document.querySelector('`+backUp+`').dataset.status === 'IDLE'`, "the navigation again, the recovery done")
			waitJS(t, ctx, 10*time.Second, `!!document.querySelector('path.edge.run')`, "the running path highlighted")
			assert.Equal(t, "live", eval[string](t, ctx, `document.querySelector('#conn').textContent`))
		}},
		{"a selected node shows its type, path and ports with their values", func(t *testing.T) {
			waitJS(t, ctx, 30*time.Second, `!!document.querySelector('`+nav+`')`, "a NavigateTo node")
			eval[bool](t, ctx, `document.querySelector('`+nav+`').dispatchEvent(new MouseEvent('click', {bubbles: true}))`)
			waitJS(t, ctx, 10*time.Second, `!!document.querySelector('#ports tr[data-port=goal]')`, "the goal port listed")
			assert.Equal(t, "NavigateTo", eval[string](t, ctx, `document.querySelector('#node-type').textContent`))
			assert.Contains(t, eval[string](t, ctx, `document.querySelector('#node-path').textContent`), "/NavigateTo")
			raw := eval[string](t, ctx, `document.querySelector('#ports tr[data-port=goal] td.mono').textContent`)
			assert.Equal(t, "{target}", raw, "the port's remapping as the tree wrote it")
			waitJS(t, ctx, 20*time.Second, `document.querySelector('#ports tr[data-port=goal] td.value').textContent.startsWith('"')`, "the goal port's value: the place")
		}},
		{"a blackboard entry changes live", func(t *testing.T) {
			row := `#bb tr[data-key="Patrol/x"]`
			waitJS(t, ctx, 10*time.Second, `!!document.querySelector('`+row+`')`, "the x entry")
			assert.Equal(t, "float64", eval[string](t, ctx, `document.querySelector('`+row+` td:nth-child(2)').textContent`))
			seq0 := eval[string](t, ctx, `document.querySelector('`+row+` td:nth-child(4)').textContent`)
			waitJS(t, ctx, 10*time.Second, `document.querySelector('`+row+` td:nth-child(4)').textContent !== `+jsq(seq0), "x written again")
			eval[bool](t, ctx, `(() => { const s = document.querySelector('#bb-search'); s.value = 'battery_pct'; s.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('`+row+`') && !!document.querySelector('#bb tr[data-key="Patrol/battery_pct"]')`, "the search keeps battery_pct only")
			eval[bool](t, ctx, `(() => { const s = document.querySelector('#bb-search'); s.value = ''; s.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 10*time.Second, `document.querySelector('#loop-rate') && parseFloat(document.querySelector('#loop-rate').textContent) > 5`, "the loop's rate")
			screenshot(t, ctx, "studio-live")
		}},
		{"a breakpoint pauses the tree and the robot receives a zero Twist", func(t *testing.T) {
			eval[bool](t, ctx, `document.querySelector('g.node[data-uid="1"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))`)
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#bp-before')`, "the debug buttons")
			before := rig.count()
			rig.mu.Lock()
			logsBefore := len(rig.logs)
			rig.mu.Unlock()
			eval[bool](t, ctx, `(document.querySelector('#bp-before').click(), true)`)
			waitJS(t, ctx, 10*time.Second, `!document.querySelector('#paused-banner').hidden`, "the paused banner")
			assert.Contains(t, eval[string](t, ctx, `document.querySelector('#paused-banner').textContent`), "Paused before")
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('g.node.held')`, "the held node marked")
			held := run.tick()
			time.Sleep(1500 * time.Millisecond)
			assert.Equal(t, held, run.tick(), "the tree waits at the breakpoint")
			assert.Eventually(t, func() bool { return rig.zeroSince(before) }, 5*time.Second, 20*time.Millisecond, "a zero Twist reaches the separate subscriber")
			time.Sleep(time.Second) // past the watchdog (3 periods): a pause a person asked for is no stall
			rig.mu.Lock()
			logs := strings.Join(rig.logs[logsBefore:], "\n")
			rig.mu.Unlock()
			assert.NotContains(t, logs, "a tick has run", "no watchdog warning while paused")
			screenshot(t, ctx, "studio-paused")
		}},
		{"step runs one tick and holds again", func(t *testing.T) {
			held := run.tick()
			eval[bool](t, ctx, `(document.querySelector('#btn-step').click(), true)`)
			require.Eventually(t, func() bool { return run.tick() == held+1 }, 10*time.Second, 10*time.Millisecond, "one tick after step")
			time.Sleep(500 * time.Millisecond)
			assert.Equal(t, held+1, run.tick(), "held again before the next tick")
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('#paused-banner').hidden`, "still paused")
		}},
		{"resume lets the mission tick on", func(t *testing.T) {
			eval[bool](t, ctx, `(document.querySelector('#bp-before').click(), true)`) // breakpoint off
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('#bp-before').classList.contains('on')`, "the breakpoint cleared")
			held := run.tick()
			eval[bool](t, ctx, `(document.querySelector('#btn-resume').click(), true)`)
			require.Eventually(t, func() bool { return run.tick() > held+5 }, 10*time.Second, 10*time.Millisecond, "ticks after resume")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#paused-banner').hidden`, "the banner gone")
		}},
		{"a blackboard value set from the page reaches the tree", func(t *testing.T) {
			resp := eval[string](t, ctx, `fetch('api/runs/1/control', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({op: 'set', scope: 'Patrol', key: 'skipped', value: '41'})}).then(r => r.status + '')`)
			assert.Equal(t, "200", resp)
			waitJS(t, ctx, 10*time.Second, `(document.querySelector('#bb tr[data-key="Patrol/skipped"] td.value') || {}).textContent === '41'`, "skipped = 41 in the page")
		}},
		{"the timeline scrubs back: the tree shows an earlier instant", func(t *testing.T) {
			eval[bool](t, ctx, `(() => { const s = document.querySelector('#seek'); s.value = '2'; s.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 5*time.Second, `!document.querySelector('#btn-live').hidden`, "the Live button while scrubbing")
			assert.Contains(t, eval[string](t, ctx, `document.querySelector('#at').textContent`), "at ")
			eval[bool](t, ctx, `(document.querySelector('#btn-live').click(), true)`)
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#btn-live').hidden`, "back to live")
		}},
	} {
		if !t.Run(step.name, step.do) {
			break
		}
	}
	run.stop()
	rep := run.ended(t)
	assert.Equal(t, mission.Stopped, rep.Outcome, rep.Summary())
	waitJS(t, ctx, 10*time.Second, `!document.querySelector('#end-banner').hidden`, "the end shown")
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('#end-summary').textContent`), "zero velocity")
}
