// btrobot studio: the page. Native ES modules, no build step: the server
// embeds this folder as it is. This module starts the page — the runs and
// files offered, the first one opened — and holds the one hook tests and
// benchmarks read the page through (window.studio).
//
//   state.js     what the page knows of the run or file shown
//   layout.js    the tree drawn, pan and zoom
//   monitor.js   a run's events applied, the panels, debugging
//   timeline.js  the bar at the bottom
//   editor.js    editing a file: inspector, palette, subtrees, keys
//   dragdrop.js  dropping types and nodes on the tree
//   run.js       profile, world, Run and Stop
//   server.js    the mission server watched (btrobot serve --ui)
//   dom.js       small helpers

import { $, api, h } from './dom.js';
import { S, stats } from './state.js';
import { L, initPanZoom } from './layout.js';
import { openRun, initMonitor } from './monitor.js';
import { initTimeline } from './timeline.js';
import { E, openFile, initEditor, paintFileList } from './editor.js';
import { F, initFiles, refreshFiles } from './files.js';
import { R, initRun } from './run.js';
import { SV, initServer } from './server.js';

// The test hook: what a test or a benchmark reads of the page.
window.studio = { state: S, layout: L, editor: E, files: F, run: R, server: SV, stats };

// With a mission server watched, its events say when runs come (each
// goal a run): the page follows them without asking.
const W = { on: false, waiting: false, following: false, busy: Promise.resolve() };

async function start() {
  const info = await api('api/runs');
  S.control = info.control;
  if (info.title) document.title = info.title + ' · btrobot studio';
  $('#debug').hidden = !S.control;
  $('#readonly').hidden = S.control;
  const sel = $('#runs');
  if (info.server && !W.on) {
    W.on = true;
    initServer({ runs: () => { W.busy = W.busy.then(() => serverRuns(sel)).catch(() => {}); }, open: (id) => {
      const p = W.busy.then(() => openListed(sel, id));
      W.busy = p.catch(() => {});
      return p;
    } });
  }
  sel.replaceChildren(...info.runs.map((r) => h('option', { value: r.id }, `${r.kind === 'replay' ? 'recording' : 'live'} · ${r.name}`)));
  S.runs = info.runs;
  if (info.editor) {
    // The folder's files are in the sidebar; the selector's one entry
    // for them says the editor is shown (and goes back to it).
    const files = await refreshFiles();
    E.palette = await api('api/palette');
    $('#files-aside').hidden = false;
    sel.append(h('option', { value: 'file' }, 'editor · files on the left'));
    sel.onchange = () => (sel.value === 'file' ? openFile(E.path || (files.files[0] && files.files[0].path)) : openRun(+sel.value).then(paintFileList));
    paintFileList();
    const want = new URLSearchParams(location.search).get('file');
    if (want || info.runs.length === 0) {
      const first = want || (files.files[0] && files.files[0].path);
      if (first) { sel.value = 'file'; await openFile(first); }
      else $('#conn').textContent = 'no recordings or trees in ' + files.dir;
      return;
    }
  } else sel.onchange = () => openRun(+sel.value);
  if (info.runs.length === 0) {
    $('#conn').textContent = W.on ? 'no goal yet' : 'no run yet';
    if (W.on) W.waiting = true; // the server's events say when one comes
    else setTimeout(start, 300);
    return;
  }
  const asked = new URLSearchParams(location.search).get('run');
  const want = +(asked || (info.follow ? info.runs[info.runs.length - 1].id : info.runs[0].id));
  sel.value = want;
  await openRun(want);
  if (info.follow && !asked) {
    if (W.on) W.following = true; else follow(sel);
  }
}

const label = (r) => `${r.kind === 'replay' ? 'recording' : 'live'} · ${r.name}`;

// serverRuns adds the runs that came to the selector and, while the page
// shows the newest live run, opens the newest (a new goal's tree). A
// recording opened, or a run chosen by hand, is left alone.
async function serverRuns(sel) {
  if (W.waiting) { W.waiting = false; return start(); }
  const info = await api('api/runs');
  if (info.runs.length <= S.runs.length) return;
  const lives = S.runs.filter((r) => r.kind === 'live');
  const onNewest = S.run && lives.length > 0 && S.run.id === lives[lives.length - 1].id;
  sel.append(...info.runs.slice(S.runs.length).map((r) => h('option', { value: r.id }, label(r))));
  S.runs = info.runs;
  if (!W.following || !onNewest) return;
  const newest = info.runs.filter((r) => r.kind === 'live').pop();
  if (newest && newest.id !== S.run.id) { sel.value = newest.id; await openRun(newest.id); }
}

// openListed opens a run (a goal's recording the server panel asked
// for), listing it first when the selector lacks it.
async function openListed(sel, id) {
  const info = await api('api/runs');
  sel.append(...info.runs.slice(S.runs.length).map((r) => h('option', { value: r.id }, label(r))));
  S.runs = info.runs;
  sel.value = id;
  await openRun(id);
}

// follow opens each run as it comes (a mission server's goals, one run
// each), while the page shows the newest: a run chosen by hand is left
// alone until the newest is chosen again.
function follow(sel) {
  setInterval(async () => {
    const info = await api('api/runs').catch(() => null);
    if (!info || info.runs.length <= S.runs.length) return;
    const newest = S.runs[S.runs.length - 1].id;
    const onNewest = S.run && S.run.id === newest;
    sel.append(...info.runs.slice(S.runs.length).map((r) => h('option', { value: r.id }, `live · ${r.name}`)));
    S.runs = info.runs;
    if (!onNewest) return;
    const next = info.runs[info.runs.length - 1].id;
    sel.value = next;
    await openRun(next);
  }, 300);
}

initEditor(); initFiles(paintFileList);
initPanZoom(); initTimeline(); initMonitor();
initRun();
start().catch((e) => { $('#conn').textContent = 'error: ' + e.message; $('#conn').className = 'conn bad'; });
