package studio_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// TestEditorRunsTheMissionOnTheSimulator: a shipped mission opened in the
// editor, the sim profile and the office chosen, an edit, Run: the file is
// saved, the page shows the run's monitor with statuses changing; Stop
// stops it and a separate subscriber of cmd_vel receives the zero Twist.
func TestEditorRunsTheMissionOnTheSimulator(t *testing.T) {
	whole := t // the watcher lives as long as the whole test, past its step
	dir := copyMissions(t)
	srv := newServer(t, studio.Conf{Dir: dir}) // Run needs no --allow-control
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=patrol.xml"))
	waitJS(t, ctx, 10*time.Second, `document.querySelector('#tickinfo').textContent === 'patrol.xml' && document.querySelectorAll('g.node').length > 5`, "patrol.xml open")
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('#run-profile option').length > 1 && document.querySelectorAll('#run-world option').length > 1`, "the profiles and worlds listed")

	choose := func(sel, value string) {
		eval[bool](t, ctx, `(() => { const s = document.querySelector(`+jsq(sel)+`); s.value = `+jsq(value)+`; s.dispatchEvent(new Event('change')); return s.value === `+jsq(value)+` })()`)
	}
	var watcher *cmdVelWatcher
	eval[bool](t, ctx, `(window.errs = [], window.addEventListener('error', (e) => window.errs.push(e.message)), window.addEventListener('unhandledrejection', (e) => window.errs.push(String(e.reason))), true)`)
	for _, step := range []struct {
		name string
		do   func(t *testing.T)
	}{
		{"Run without a profile says what it needs", func(t *testing.T) {
			click(t, ctx, "#btn-run")
			waitJS(t, ctx, 5*time.Second, `document.querySelector('#run-state').textContent.includes('choose a robot profile and a world')`, "the hint")
		}},
		{"the sim profile and the office: checked against them, no problems", func(t *testing.T) {
			choose("#run-profile", "btrobot:robots/sim.yaml")
			choose("#run-world", "btrobot:worlds/office")
			waitJS(t, ctx, 10*time.Second, `document.querySelector('#edit-state').textContent === 'checked' && !!document.querySelector('#problems li.ok')`, "checked clean")
			assert.True(t, eval[bool](t, ctx, `window.studio.editor.palette.some(p => p.id === 'NavigateTo')`), "the profile's palette")
			screenshot(t, ctx, "studio-editor-run")
		}},
		{"the choice is kept for the folder: a reload offers it again", func(t *testing.T) {
			within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()+"?file=patrol.xml"))
			waitJS(t, ctx, 10*time.Second, `document.querySelector('#run-profile').value === 'btrobot:robots/sim.yaml' && document.querySelector('#run-world').value === 'btrobot:worlds/office'`, "the profile and world chosen before")
			waitJS(t, ctx, 10*time.Second, `document.querySelector('#tickinfo').textContent === 'patrol.xml' && !!document.querySelector('#problems li.ok')`, "patrol.xml open again, clean")
			// Run, below, runs on them: it would ask for a profile and a
			// world otherwise.
			eval[bool](t, ctx, `(window.errs = [], window.addEventListener('error', (e) => window.errs.push(e.message)), window.addEventListener('unhandledrejection', (e) => window.errs.push(String(e.reason))), true)`)
		}},
		{"an unsaved edit", func(t *testing.T) {
			click(t, ctx, `g.node[data-uid="1"]`)
			waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#inspector input[data-attr=name]')`, "the inspector")
			eval[bool](t, ctx, `(() => { const i = document.querySelector('#inspector input[data-attr=name]'); i.value = 'patrol_from_the_studio'; i.dispatchEvent(new Event('input')); return true })()`)
			waitJS(t, ctx, 10*time.Second, `document.querySelector('#edit-state').textContent === 'checked'`, "the edit checked")
		}},
		{"Run saves the edit and switches to the run's monitor", func(t *testing.T) {
			// What the page draws, as it happens: each node's status (and
			// the tint of its last one, once IDLE again) in the order the
			// page showed them.
			eval[bool](t, ctx, `(() => {
				window.seen = {}; window.changes = 0;
				new MutationObserver((ms) => { for (const m of ms) {
					const g = m.target, st = g.dataset.status + '/' + (g.dataset.last || ''), uid = g.dataset.uid, list = window.seen[uid] = window.seen[uid] || [];
					if (list[list.length - 1] !== st) { list.push(st); window.changes++; }
				} }).observe(document.querySelector('#nodes'), {subtree: true, attributes: true, attributeFilter: ['data-status', 'data-last']});
				return true })()`)
			choose("#run-speed", "10")
			choose("#run-battery", "0.5")
			eval[bool](t, ctx, `(document.querySelector('#run-seed').value = '3', true)`)
			// Ctrl+Enter: Run — and only Run, even on a SubTree node
			// (Enter alone would open its tree).
			click(t, ctx, `g.node[data-path$="/WaitForRobot"]`)
			eval[bool](t, ctx, `(window.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', ctrlKey: true})), true)`)
			assert.Equal(t, "Patrol", eval[string](t, ctx, `window.studio.editor.doc.trees[window.studio.editor.tree].id`), "Ctrl+Enter opened no subtree")
			waitJS(t, ctx, 60*time.Second, `window.studio.state.mode === 'run' && !!window.studio.state.run && window.studio.state.run.kind === 'live'`, "the monitor of the run")
			assert.Contains(t, eval[string](t, ctx, `document.querySelector('#run-state').textContent`), "saved; running on the simulator")
			waitJS(t, ctx, 10*time.Second, `!document.querySelector('#log-box').hidden && [...document.querySelectorAll('#run-log li')].some(li => li.textContent.includes('sim: lockstep: peer /robot1/btrobot joined'))`, "the run's log in the page")
			assert.True(t, eval[bool](t, ctx, `[...document.querySelectorAll('#run-log li')].some(li => li.textContent.includes('robot1: battery 50 % at the start, seed 3, ×10'))`), "the battery and seed chosen")
			assert.False(t, eval[bool](t, ctx, `document.querySelector('#btn-stop').hidden`), "Stop offered")
			data, err := os.ReadFile(filepath.Join(dir, "patrol.xml"))
			require.NoError(t, err)
			assert.Contains(t, string(data), `name="patrol_from_the_studio"`, "the edit saved before the run")

			var runs struct {
				Runs []struct {
					ID       int    `json:"id"`
					Name     string `json:"name"`
					Master   string `json:"master"`
					Launched bool   `json:"launched"`
				} `json:"runs"`
			}
			getJSON(t, srv.Addr(), "/api/runs", &runs)
			require.Len(t, runs.Runs, 1)
			r := runs.Runs[0]
			assert.True(t, r.Launched)
			assert.Equal(t, "patrol.xml · robots/sim.yaml · worlds/office", r.Name)
			require.True(t, strings.HasPrefix(r.Master, "http://127.0.0.1:"), r.Master)
			watcher = watchCmdVel(whole, r.Master)
			assert.Equal(t, r.ID, eval[int](t, ctx, `window.studio.state.run.id`))
		}},
		{"the monitor shows the statuses changing", func(t *testing.T) {
			waitJS(t, ctx, 30*time.Second, `!!document.querySelector('g.node[data-path$="/NavigateTo"][data-status=RUNNING]')`, "the robot navigating")
			// Statuses change again as the tree ticks on: at the latest
			// when the robot reaches its first place (about 11 s of
			// simulated time, at ×10 or slower on a loaded machine under
			// the race detector), when the nodes that ran in between show,
			// IDLE again, the tint of how they ended.
			before := eval[int](t, ctx, `window.changes`)
			if !waitFor(t, ctx, 120*time.Second, `window.changes > `+strconv.Itoa(before)) {
				var info runInfo
				getJSON(t, srv.Addr(), "/api/run", &info)
				require.FailNow(t, fmt.Sprintf("no status changed after %d changes: %s; the page: %s; the run's log: %q", before, eval[string](t, ctx, `JSON.stringify(window.seen)`),
					eval[string](t, ctx, `JSON.stringify({events: window.studio.stats.events, n: window.studio.state.n, conn: document.querySelector('#conn').textContent, history: window.studio.state.history.length, scrub: window.studio.state.scrub, nav: document.querySelector('g.node[data-path$="/NavigateTo"]').dataset.status, errs: window.errs})`), info.Log))
			}
			waitJS(t, ctx, 10*time.Second, `!document.querySelector('#map-box').hidden`, "the simulated world shown")
			screenshot(t, ctx, "studio-run")
		}},
		{"Stop: the run ends and the robot receives a zero Twist", func(t *testing.T) {
			require.Eventually(t, watcher.ready, 10*time.Second, 20*time.Millisecond, "the watcher on the run's graph")
			click(t, ctx, "#btn-stop")
			waitJS(t, ctx, 30*time.Second, `document.querySelector('#btn-stop').hidden && document.querySelector('#run-state').textContent.startsWith('ended')`, "the run stopped")
			assert.True(t, watcher.zero(), "a zero Twist reached the separate subscriber")
			waitJS(t, ctx, 10*time.Second, `!document.querySelector('#end-banner').hidden`, "the end shown")
			assert.Contains(t, eval[string](t, ctx, `document.querySelector('#end-summary').textContent`), "zero velocity")
			var info struct {
				Running bool   `json:"running"`
				End     string `json:"end"`
			}
			getJSON(t, srv.Addr(), "/api/run", &info)
			assert.False(t, info.Running)
			assert.Contains(t, info.End, "zero velocity")
		}},
	} {
		if !t.Run(step.name, step.do) {
			break
		}
	}
}
