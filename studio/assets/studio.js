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
//   dom.js       small helpers

import { $, api, h } from './dom.js';
import { S, stats } from './state.js';
import { L, initPanZoom } from './layout.js';
import { openRun, initMonitor } from './monitor.js';
import { initTimeline } from './timeline.js';
import { E, openFile, initEditor, paintFileList } from './editor.js';
import { F, initFiles, refreshFiles } from './files.js';
import { R, initRun } from './run.js';

// The test hook: what a test or a benchmark reads of the page.
window.studio = { state: S, layout: L, editor: E, files: F, run: R, stats };

async function start() {
  const info = await api('api/runs');
  S.control = info.control;
  if (info.title) document.title = info.title + ' · btrobot studio';
  $('#debug').hidden = !S.control;
  $('#readonly').hidden = S.control;
  const sel = $('#runs');
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
    $('#conn').textContent = 'no run yet';
    setTimeout(start, 300);
    return;
  }
  const asked = new URLSearchParams(location.search).get('run');
  const want = +(asked || (info.follow ? info.runs[info.runs.length - 1].id : info.runs[0].id));
  sel.value = want;
  await openRun(want);
  if (info.follow && !asked) follow(sel);
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
