// monitor.js: a run (live, or a recording) as the page shows it — its
// events applied to the state (a snapshot, then deltas; on reconnect the
// browser names the last event and the server resumes or sends a
// snapshot), one repaint per frame, the node panel, the blackboard, the
// loop, the banners and the debugging actions.

import { $, api, refused, h, fmtMs } from './dom.js';
import { S, stats, MAX_HISTORY, shownStatus, shownBlackboard } from './state.js';
import { L, layout, draw, home, fit, collapseDeep, paintNode, paintEdges, paintGoals } from './layout.js';
import { paintTimeline } from './timeline.js';
import { editSelect } from './editor.js';

const M = {
  frame: 0, // the animation frame asked for, 0 when none
  panelsAt: 0, panelsTimer: 0, // when the panels were last painted; a repaint to come
  firstPaintQueued: false,
  nodeFetch: 0, // when the selected node's ports were last fetched
};

// setMode shows the monitor ('run') or the editor ('edit').
export function setMode(mode) {
  S.mode = mode;
  $('#edit-bar').hidden = mode !== 'edit';
  $('#edit-aside').hidden = mode !== 'edit';
  $('#run-aside').hidden = mode === 'edit';
  document.querySelector('.legend').hidden = mode === 'edit';
  if (mode === 'edit') {
    $('#debug').hidden = true; $('#readonly').hidden = true; $('#replay').hidden = true;
    $('#timeline').style.visibility = 'hidden'; $('#paused-banner').hidden = true; $('#end-banner').hidden = true;
  } else $('#timeline').style.visibility = '';
}

export async function openRun(id) {
  if (S.es) S.es.close();
  setMode('run');
  const t = await api(`api/runs/${id}/tree`);
  S.run = t.run; S.nodes = t.nodes;
  const n = S.nodes.length;
  S.status = new Array(n).fill('IDLE'); S.last = new Array(n).fill(''); S.reason = new Array(n).fill(''); S.since = new Array(n).fill(0);
  S.history = []; S.n = 0; S.bb = new Map(); S.bbHist = new Map(); S.end = null; S.explanation = [];
  S.scrub = null; S.selected = 0; L.collapsed = new Set(); S.timeline = []; S.marks = [];
  // Big trees open with their subtrees collapsed.
  if (n > 300) for (const nd of S.nodes) if (nd.type === 'SubTree' && nd.parent) L.collapsed.add(nd.uid);
  if (n > 1000) collapseDeep(600);
  $('#replay').hidden = S.run.kind !== 'replay';
  $('#map-box').hidden = !S.run.map;
  $('#debug').hidden = !S.control || S.run.kind !== 'live';
  $('#log-box').hidden = true; // the editor's Run shows its log (watchRun)
  layout(); home(); draw();
  if (S.run.kind === 'replay') {
    S.timeline = await api(`api/runs/${id}/timeline`);
  }
  connect();
  if (S.run.map) refreshMap();
}

function connect() {
  const es = new EventSource(`api/runs/${S.run.id}/events`);
  S.es = es;
  const conn = $('#conn');
  es.onopen = () => { conn.textContent = S.run.kind === 'live' ? 'live' : 'connected'; conn.className = 'conn ok'; };
  es.onerror = () => { conn.textContent = 'reconnecting…'; conn.className = 'conn bad'; };
  es.addEventListener('snapshot', (e) => { stats.snapshots++; apply(JSON.parse(e.data), true); });
  es.addEventListener('delta', (e) => apply(JSON.parse(e.data), false));
}

function apply(d, snapshot) {
  stats.events++;
  d.transitions = d.transitions || [];
  if (snapshot) {
    S.status = d.statuses; S.reason = d.reasons; S.last = new Array(S.nodes.length).fill(''); S.since = d.since || new Array(S.nodes.length).fill(0);
    S.bb = new Map();
    if (S.run.kind === 'live') S.history = d.transitions.slice();
    if (d.last) S.last = d.last.map((l, i) => d.statuses[i] === 'IDLE' && l !== 'IDLE' ? l : '');
    else for (const t of d.transitions) S.last[t[1] - 1] = t[3] === 'IDLE' ? t[2] : '';
    for (let i = 0; i < S.nodes.length; i++) S.dirty.add(i + 1);
  } else {
    for (const t of d.transitions) {
      const [n, uid, , to, at, reason] = t;
      if (n <= S.n) continue;
      if (to === 'IDLE') S.last[uid - 1] = t[2]; else S.last[uid - 1] = '';
      S.status[uid - 1] = to; S.since[uid - 1] = at;
      if (to !== 'IDLE') S.reason[uid - 1] = reason;
      S.dirty.add(uid);
      S.history.push(t);
    }
    for (const [uid, st, last, reason, since] of d.nodes || []) {
      // A busy tree's delta: the node as it is now.
      S.status[uid - 1] = st; S.last[uid - 1] = st === 'IDLE' && last !== 'IDLE' ? last : '';
      S.reason[uid - 1] = reason; S.since[uid - 1] = since;
      S.dirty.add(uid);
    }
    if (d.packed) unpack(d.packed);
    if (S.history.length > MAX_HISTORY) S.history.splice(0, S.history.length - MAX_HISTORY);
  }
  S.n = Math.max(S.n, d.n || 0);
  if (snapshot) S.n = d.n || 0;
  for (const e of d.blackboard) {
    const id = e.scope + '/' + e.key;
    S.bb.set(id, e);
    let hist = S.bbHist.get(id);
    if (!hist) S.bbHist.set(id, hist = []);
    if (!hist.length || hist[hist.length - 1].seq !== e.seq) hist.push(e);
    if (hist.length > 64) hist.shift();
  }
  if (d.loop) S.loop = d.loop;
  S.debug = d.debug || null;
  S.now = d.now;
  if (d.end) S.end = d.end;
  if (d.marks) S.marks = d.marks;
  S.explanation = (d.end && d.end.explanation && d.end.explanation.length) ? d.end.explanation : (d.explanation || []);
  S.replay = d.extra && d.extra.replay;
  schedule();
}

// STATUS_OF is a status by its character in a packed event.
const STATUS_OF = { I: 'IDLE', R: 'RUNNING', S: 'SUCCESS', F: 'FAILURE', K: 'SKIPPED' };

// unpack applies a busy tree's packed event: every node as it is now,
// into the same state a node of d.nodes sets. status and last are a
// character a node in uid order; reasons ["reason", uid, uid, "reason",
// uid, …] the nodes that have one, each text before the nodes that have it
// (the others' is empty); since [ms, count, …] the times the
// nodes last moved, run-length coded in uid order. Only the nodes whose
// status, last result or reason differ are repainted (a busy tree's
// nodes move every tick and mostly end as they were).
function unpack(p) {
  const n = Math.min(S.nodes.length, p.status.length);
  const reason = new Array(n).fill('');
  let text = '';
  for (const x of p.reasons) if (typeof x === 'string') text = x; else if (x >= 1 && x <= n) reason[x - 1] = text;
  let i = 0;
  for (let k = 0; k + 1 < p.since.length; k += 2) {
    const at = p.since[k];
    for (const end = Math.min(n, i + p.since[k + 1]); i < end; i++) {
      const st = STATUS_OF[p.status[i]] || 'IDLE', last = STATUS_OF[p.last[i]] || 'IDLE';
      const l = st === 'IDLE' && last !== 'IDLE' ? last : '';
      S.since[i] = at; // the node panel reads it as it paints: no node to redraw
      if (S.status[i] !== st || S.last[i] !== l || S.reason[i] !== reason[i]) {
        S.status[i] = st; S.last[i] = l; S.reason[i] = reason[i];
        S.dirty.add(i + 1);
      }
    }
  }
}

// schedule asks for one repaint at the next frame, however many events
// come before it.
export function schedule() {
  if (!M.frame) M.frame = requestAnimationFrame(render);
}

function render() {
  M.frame = 0;
  const status = shownStatus();
  for (const uid of S.scrub !== null ? S.nodes.map((n) => n.uid) : S.dirty) paintNode(uid, status);
  S.dirty.clear();
  if (L.lookups.length) paintGoals(status);
  if (S.mode === 'edit') {
    firstPainted();
    return;
  }
  paintEdges(status);
  paintBanners();
  // The panels change less often than the tree: at most four times a
  // second (at once while scrubbing).
  const now = performance.now();
  if (S.scrub !== null || S.run.kind === 'replay' || now - M.panelsAt > 250) {
    M.panelsAt = now;
    paintBlackboard();
    paintLoop();
    paintTimeline();
    if (S.selected) paintNodePanel(false);
  } else if (!M.panelsTimer) {
    M.panelsTimer = setTimeout(() => { M.panelsTimer = 0; M.panelsAt = 0; schedule(); }, 260);
  }
  stats.applied = stats.events;
  if (S.loop && S.loop.tick_wall_ms && S.run.kind === 'live' && !S.end) {
    // How far behind the tick the page is, once it has drawn it.
    const lag = Date.now() - S.loop.tick_wall_ms;
    stats.lagLast = lag;
    stats.lagMax = Math.max(stats.lagMax, lag);
    stats.lags.push(lag);
  }
  firstPainted();
}

// firstPainted notes when the first drawing of the page was painted: a
// task queued from the frame that drew it runs once the frame is shown.
function firstPainted() {
  if (stats.firstPaint || M.firstPaintQueued) return;
  M.firstPaintQueued = true;
  setTimeout(() => { stats.firstPaint = performance.now(); }, 0);
}

// ---- panels ----

export function select(uid) {
  if (S.mode === 'edit') { editSelect(uid); return; }
  S.selected = uid;
  paintNodePanel(true);
  paintEdges(shownStatus());
}

async function paintNodePanel(fetchPorts) {
  const uid = S.selected, nd = S.nodes[uid - 1];
  if (!nd) return;
  const panel = $('#node-panel');
  const status = shownStatus()[uid - 1];
  const at = S.scrub !== null ? S.scrub : S.now;
  let sec = panel.querySelector('.status');
  if (!fetchPorts && sec) {
    sec.textContent = `${status} for ${fmtMs(Math.max(0, at - S.since[uid - 1]))}`;
    panel.querySelector('.nreason').textContent = S.reason[uid - 1] || '';
    const tr = panel.querySelector('#transitions');
    if (tr) tr.replaceChildren(...recentOf(uid));
    const gt = panel.querySelector('#goals');
    if (gt && nd.goals) gt.replaceWith(goalsTable(nd));
    if (Date.now() - M.nodeFetch > 500) refreshPorts(uid);
    return;
  }
  const kv = h('div', { class: 'kv' },
    h('b', {}, 'type'), h('span', { id: 'node-type' }, nd.type),
    h('b', {}, 'path'), h('span', { class: 'mono', id: 'node-path' }, nd.path),
    h('b', {}, 'status'), h('span', { class: 'status', id: 'node-status' }, `${status} for ${fmtMs(Math.max(0, at - S.since[uid - 1]))}`),
    h('b', {}, 'reason'), h('span', { class: 'nreason' }, S.reason[uid - 1] || ''));
  const ports = h('table', { id: 'ports' }, h('thead', {}, h('tr', {}, h('th', {}, 'port'), h('th', {}, 'dir'), h('th', {}, 'type'), h('th', {}, 'set to'), h('th', {}, 'value'))), h('tbody'));
  const kids = [h('h3', {}, nd.name), kv, h('h4', {}, 'Ports'), ports];
  if (S.control && S.run.kind === 'live') {
    const d = S.debug || { before: [], after: [], force: {} };
    const on = (list) => (list || []).includes(uid);
    const post = (body) => api(`api/runs/${S.run.id}/control`, body).then((st) => { S.debug = Object.assign(S.debug || {}, st); paintNodePanel(true); paintEdges(shownStatus()); }).catch(refused);
    kids.push(h('h4', {}, 'Debug'), h('div', { class: 'row' },
      h('button', { id: 'bp-before', class: on(d.before) ? 'on' : '', onclick: () => post({ op: 'break', uid, at: 'before', on: !on(d.before) }) }, 'Break before'),
      h('button', { id: 'bp-after', class: on(d.after) ? 'on' : '', onclick: () => post({ op: 'break', uid, at: 'after', on: !on(d.after) }) }, 'Break after')),
    h('div', { class: 'row' }, 'Force result: ',
      ...['SUCCESS', 'FAILURE', 'IDLE'].map((s) => h('button', { id: 'force-' + s, class: (d.force || {})[uid] === s ? 'on' : '', onclick: () => post({ op: 'force', uid, status: s }) }, s === 'IDLE' ? 'tick normally' : s))));
  }
  if (nd.goals && nd.goals.length) kids.push(h('h4', {}, 'Goals'), goalsTable(nd));
  kids.push(h('h4', {}, 'Recent transitions'), h('ol', { id: 'transitions', reversed: '' }, ...recentOf(uid)));
  panel.replaceChildren(...kids);
  refreshPorts(uid);
}

// goalsTable is a LookUp's table in the node panel: each goal, its tree,
// and which runs now (the live branch).
function goalsTable(nd) {
  const status = shownStatus();
  return h('table', { id: 'goals' }, h('thead', {}, h('tr', {}, h('th', {}, 'goal'), h('th', {}, 'tree'), h('th', {}, ''))),
    h('tbody', {}, ...nd.goals.map((g) => {
      const live = g.child && status[g.child - 1] === 'RUNNING';
      return h('tr', { class: live ? 'live' : '', 'data-goal': g.goal }, h('td', { class: 'mono' }, g.goal), h('td', {}, g.tree), h('td', {}, live ? '▶ running' : ''));
    })));
}

function recentOf(uid) {
  const out = [];
  const src = S.run.kind === 'replay' ? S.timeline : S.history;
  for (let i = src.length - 1; i >= 0 && out.length < 8; i--) {
    const t = src[i];
    if (t[1] === uid && (S.scrub === null || t[4] <= S.scrub)) out.push(h('li', {}, `${fmtMs(t[4])}: ${t[2]} → ${t[3]}${t[5] ? ' · ' + t[5] : ''}`));
  }
  return out;
}

async function refreshPorts(uid) {
  M.nodeFetch = Date.now();
  const r = await api(`api/runs/${S.run.id}/nodes/${uid}`).catch(() => null);
  if (!r || uid !== S.selected) return;
  const body = $('#ports tbody');
  if (!body) return;
  body.replaceChildren(...r.ports.map((p) => h('tr', { 'data-port': p.name },
    h('td', {}, p.name), h('td', {}, p.dir), h('td', {}, p.type), h('td', { class: 'mono' }, p.raw),
    valueCell(p.value === null ? { line: '—' } : p))));
}

// valueCell shows a value as the server wrote it (view.Value: as rostopic
// echo shows a message): folded to one line, and, when it takes more, a
// ▸ that unfolds it.
function valueCell(v, attrs = {}) {
  const td = h('td', { class: 'value', ...attrs });
  const line = h('span', { class: 'line' }, v.line.length > 160 ? v.line.slice(0, 159) + '…' : v.line);
  if (!v.text && v.line.length <= 160) { td.append(line); return td; }
  const open = S.unfolded.has(attrs['data-id'] || '');
  const btn = h('button', { class: 'unfold', title: 'show the whole value', 'aria-expanded': String(open) }, open ? '▾' : '▸');
  const pre = h('pre', { class: 'echo' }, v.text || v.line);
  pre.hidden = !open; line.hidden = open;
  btn.addEventListener('click', (e) => {
    e.stopPropagation();
    const now = pre.hidden;
    pre.hidden = !now; line.hidden = now; btn.textContent = now ? '▾' : '▸'; btn.setAttribute('aria-expanded', String(now));
    const id = attrs['data-id'];
    if (id) { if (now) S.unfolded.add(id); else S.unfolded.delete(id); }
  });
  td.append(btn, line, pre);
  return td;
}

function paintBlackboard() {
  const q = $('#bb-search').value.trim().toLowerCase();
  const entries = shownBlackboard().sort((a, b) => (a.scope + '/' + a.key).localeCompare(b.scope + '/' + b.key));
  const stale = new Set(entries.filter((e) => e.key.endsWith('_stale') && e.value === true).map((e) => e.scope + '/' + e.key.slice(0, -6)));
  const now = S.scrub !== null ? S.scrub : S.now;
  const rows = [];
  let scope = null;
  for (const e of entries) {
    const id = e.scope + '/' + e.key, val = e.text || e.line;
    if (q && !id.toLowerCase().includes(q) && !val.toLowerCase().includes(q)) continue;
    if (e.scope !== scope) { scope = e.scope; rows.push(h('tr', {}, h('th', { colspan: 5 }, scope))); }
    const age = Math.max(0, now - e.stamp);
    const cls = stale.has(id) ? 'stale' : (age < 500 ? 'fresh' : '');
    const value = valueCell(e, { 'data-id': id });
    if (S.control && S.run.kind === 'live') {
      value.title = 'double-click to set';
      value.addEventListener('dblclick', () => editEntry(e));
    }
    rows.push(h('tr', { 'data-key': id, class: cls }, h('td', { class: 'key' }, e.key), h('td', {}, e.type), value, h('td', {}, e.seq), h('td', {}, fmtMs(age))));
  }
  $('#bb tbody').replaceChildren(...rows);
}

function editEntry(e) {
  const v = prompt(`Set ${e.scope}/${e.key} (${e.type}) to:`, JSON.stringify(e.value));
  if (v === null) return;
  api(`api/runs/${S.run.id}/control`, { op: 'set', scope: e.scope, key: e.key, value: v }).catch(refused);
}

function hist(counts, bounds) {
  const m = Math.max(1, ...counts);
  const bars = h('div', { class: 'hist' }, ...counts.map((c, i) => {
    const d = h('div', { title: `${i < bounds.length ? '≤ ' + bounds[i] + ' ms' : '> ' + bounds[bounds.length - 1] + ' ms'}: ${c}` });
    d.style.height = (100 * c / m) + '%';
    return d;
  }));
  const labels = h('div', { class: 'hist-l' }, ...counts.map((_, i) => h('span', {}, i < bounds.length ? '≤' + bounds[i] : '>')));
  return [bars, labels];
}

function paintLoop() {
  const l = S.loop, box = $('#loop');
  if (!l) { box.replaceChildren(h('p', { class: 'muted' }, S.run.kind === 'replay' ? 'A recording: see the timeline.' : 'no tick yet')); return; }
  box.replaceChildren(
    h('div', { class: 'kv' },
      h('b', {}, 'rate'), h('span', { id: 'loop-rate' }, `${l.rate.toFixed(1)} Hz (target ${l.target} Hz)`),
      h('b', {}, 'ticks'), h('span', { id: 'loop-ticks' }, `${l.ticks} (${l.early} early)`),
      h('b', {}, 'overruns'), h('span', { id: 'loop-overruns' }, String(l.overruns)),
      h('b', {}, 'duration'), h('span', {}, `last ${l.last_duration_ms.toFixed(2)} ms, max ${l.max_duration_ms.toFixed(2)} ms`),
      h('b', {}, 'lateness'), h('span', {}, `max ${l.max_lateness_ms.toFixed(2)} ms`)),
    h('h4', {}, 'Tick duration (ms)'), ...hist(l.duration, l.bounds_ms),
    h('h4', {}, 'Lateness (ms)'), ...hist(l.lateness, l.bounds_ms));
}

function paintBanners() {
  const pb = $('#paused-banner'), d = S.debug;
  if (d && d.held) {
    const nd = S.nodes[d.held.uid - 1];
    pb.hidden = false;
    pb.textContent = `Paused ${d.held.at} ${nd ? nd.path : '#' + d.held.uid}: the tree waits and the robot is stopped. Step (s) or Resume (r).`;
  } else pb.hidden = true;
  const eb = $('#end-banner');
  if (S.end) {
    eb.hidden = false;
    eb.className = S.end.outcome === 'failed' || S.end.outcome === 'aborted' ? 'failed' : '';
    eb.replaceChildren(h('span', { id: 'end-summary' }, S.end.summary),
      ...(S.end.explanation.length ? [h('ol', { id: 'why' }, ...S.end.explanation.map((c) => h('li', { style: c.depth ? `margin-left: ${c.depth}em` : undefined }, `${c.path} (${c.type}) ${c.status}${c.reason ? ': ' + c.reason : ''}`)))] : []));
  } else eb.hidden = true;
  const ti = $('#tickinfo');
  if (S.run.kind === 'replay' && S.replay) {
    ti.textContent = `recording · t = ${S.replay.at_s.toFixed(2)} s of ${S.replay.last_s.toFixed(2)} s`;
    $('#btn-play').textContent = S.replay.playing ? 'Pause' : 'Play';
  } else if (S.loop) ti.textContent = `tick ${S.loop.ticks} · t = ${fmtMs(S.now)}`;
}

// ---- debugging ----

export function initMonitor() {
  $('#bb-search').addEventListener('input', () => paintBlackboard());
  window.addEventListener('resize', () => schedule());
  const post = (op) => S.run && api(`api/runs/${S.run.id}/control`, { op }).then((st) => { S.debug = Object.assign(S.debug || {}, st); schedule(); }).catch(refused);
  $('#btn-pause').onclick = () => post('pause');
  $('#btn-step').onclick = () => post('step');
  $('#btn-resume').onclick = () => post('resume');
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === 'f' && !e.ctrlKey && !e.metaKey) fit();
    if (S.mode === 'edit') return;
    if (!S.control || !S.run || S.run.kind !== 'live') return;
    if (e.key === 'p') post('pause');
    if (e.key === 's') post('step');
    if (e.key === 'r') post('resume');
  });
}

function refreshMap() {
  const img = $('#map');
  const next = () => { if (S.run && S.run.map) setTimeout(refreshMap, 500); };
  const url = `api/runs/${S.run.id}/map.svg?t=${Date.now()}`;
  const pre = new Image();
  pre.onload = () => { img.src = pre.src; next(); };
  pre.onerror = next;
  pre.src = url;
}
