// run.js: the robot profile, the world, and Run (btrobot studio DIR).
//
// The profile and the world chosen beside Run: the palette is the one of
// the registry wired to that profile, and every check is the mission's
// check against the profile and the world's places (as a run loads it).
// Run saves the file when it has unsaved edits, then the server starts the
// mission on its simulator (its own ROS master, the world, robot1 at its
// spawn) and the page switches to that run's monitor; Stop stops it (the
// robot gets a zero velocity), as does a second Run.

import { $, api, h } from './dom.js';
import { S } from './state.js';
import { openRun } from './monitor.js';
import { E, paintPalette, paintInspector, scheduleCheck } from './editor.js';

export const R = {
  run: 0, master: '', // the run started here, and its ROS master
  starting: false, // a Run on its way
  timer: 0, // the interval that watches the run
};

// runTarget is what checks and runs are against: choice IDs, '' for none.
export function runTarget() {
  const p = $('#run-profile'), w = $('#run-world');
  return { profile: p ? p.value : '', world: w ? w.value : '' };
}

export function targetQuery(sep) {
  const t = runTarget();
  const q = [];
  if (t.profile) q.push('profile=' + encodeURIComponent(t.profile));
  if (t.world) q.push('world=' + encodeURIComponent(t.world));
  return q.length ? sep + q.join('&') : '';
}

function runState(text, bad) {
  const st = $('#run-state');
  st.textContent = text;
  st.classList.toggle('bad', !!bad);
}

async function loadTargets() {
  const t = await api('api/targets');
  const opts = (list, none) => [h('option', { value: '' }, none), ...list.map((c) => h('option', { value: c.id }, c.name + (c.shipped ? ' (shipped)' : '')))];
  $('#run-profile').replaceChildren(...opts(t.profiles, 'no robot profile'));
  $('#run-world').replaceChildren(...opts(t.worlds, 'no world'));
  // The last choice made for this folder, when it is still offered.
  let kept = {};
  try { kept = JSON.parse(localStorage.getItem(targetKey()) || '{}'); } catch { kept = {}; }
  let changed = false;
  for (const [sel, id] of [['#run-profile', kept.profile], ['#run-world', kept.world]]) {
    if (id && [...$(sel).options].some((o) => o.value === id)) { $(sel).value = id; changed = true; }
  }
  if (changed) await targetChanged();
}

// targetKey names the folder's remembered profile and world (one studio
// serves one folder; its address tells them apart).
function targetKey() { return 'btrobot.studio.target:' + location.host + location.pathname; }

// targetChanged re-reads the palette of the chosen profile and checks the
// file again.
async function targetChanged() {
  try { localStorage.setItem(targetKey(), JSON.stringify(runTarget())); } catch { /* storage off: not remembered */ }
  runState('');
  E.palette = await api('api/palette' + targetQuery('?'));
  paintPalette();
  if (E.doc) { paintInspector(); scheduleCheck(); }
}

async function runMission() {
  if (S.mode !== 'edit' || !E.path || R.starting) return;
  const t = runTarget();
  if (!t.profile || !t.world) { runState('choose a robot profile and a world to run on', true); return; }
  R.starting = true;
  $('#btn-run').disabled = true;
  runState('starting…');
  try {
    const seed = Math.max(1, Math.floor(+$('#run-seed').value || 1));
    const r = await api('api/run', { path: E.path, doc: E.doc, ...t, speed: +$('#run-speed').value, battery: +$('#run-battery').value, seed });
    R.run = r.run; R.master = r.master;
    const info = await api('api/runs');
    S.runs = info.runs;
    const run = info.runs.find((x) => x.id === r.run);
    const sel = $('#runs');
    sel.insertBefore(h('option', { value: r.run }, `live · ${run ? run.name : r.run}`), sel.querySelector('option[value^="file:"]'));
    sel.value = String(r.run);
    await openRun(r.run);
    $('#btn-stop').hidden = false;
    runState((r.saved ? 'saved; ' : '') + 'running on the simulator');
    clearInterval(R.timer);
    R.timer = setInterval(watchRun, 1000);
    watchRun();
  } catch (e) {
    runState('not started: ' + e.message, true);
  } finally {
    R.starting = false;
    $('#btn-run').disabled = false;
  }
}

// watchRun shows the run's log (the simulator's events, the mission's
// warnings) and notices a run that ended by itself.
async function watchRun() {
  const r = await api('api/run').catch(() => null);
  if (!r) return;
  paintRunLog(r);
  if (r.running) return;
  clearInterval(R.timer);
  endedRun(r);
}

function paintRunLog(r) {
  const box = $('#log-box');
  box.hidden = !(S.run && S.run.id === r.run);
  if (box.hidden) return;
  const lines = r.log.slice(-40);
  const list = $('#run-log');
  if (list.dataset.n === String(r.log.length) + (r.end || '')) return; // unchanged: no repaint
  list.dataset.n = String(r.log.length) + (r.end || '');
  list.replaceChildren(...lines.map((l) => h('li', { class: 'mono' }, l)), ...(r.end ? [h('li', { class: 'end' }, 'ended: ' + r.end)] : []));
}

function endedRun(r) {
  $('#btn-stop').hidden = true;
  const opt = $('#runs').querySelector(`option[value="${r.run}"]`);
  if (opt && !opt.textContent.startsWith('ended')) opt.textContent = opt.textContent.replace(/^live/, 'ended');
  runState('ended: ' + (r.end || ''));
}

async function stopRun() {
  runState('stopping…');
  clearInterval(R.timer);
  try {
    const r = await api('api/run/stop', {});
    paintRunLog(r);
    endedRun(r);
  } catch (e) { runState(e.message, true); }
}

export function initRun() {
  if (!$('#btn-run')) return;
  $('#run-profile').onchange = targetChanged;
  $('#run-world').onchange = targetChanged;
  $('#btn-run').onclick = runMission;
  $('#btn-stop').onclick = stopRun;
  // Ctrl+Enter runs the file being edited.
  window.addEventListener('keydown', (e) => {
    if (S.mode === 'edit' && (e.ctrlKey || e.metaKey) && e.key === 'Enter') { e.preventDefault(); runMission(); }
  });
  api('api/runs').then((info) => info.editor && loadTargets()).catch((e) => runState('profiles and worlds: ' + e.message, true));
}
