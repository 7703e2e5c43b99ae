// btrobot studio: the page. Plain ES module, no build step. It draws the
// tree of the selected run top-down, keeps its state from the server's
// events (a snapshot, then deltas; on reconnect the browser names the last
// event and the server resumes or sends a snapshot), and offers the
// debugging actions when the server allows them.

const $ = (s) => document.querySelector(s);
const SVGNS = 'http://www.w3.org/2000/svg';
const NODE_H = 44, GAP_X = 14, GAP_Y = 38, MAX_HISTORY = 20000;

const S = {
  control: false, runs: [], run: null, nodes: [], collapsed: new Set(),
  status: [], reason: [], last: [], since: [], pos: [], els: [], edges: [],
  history: [], n: 0, bb: new Map(), bbHist: new Map(), loop: null, debug: null,
  end: null, explanation: [], now: 0, scrub: null, selected: 0, es: null,
  dirty: new Set(), frame: 0, replay: null, timeline: [],
  view: { x: 0, y: 0, k: 1 }, layoutW: 0, layoutH: 0,
};
// What a test or a benchmark reads: how far behind the tick the page is.
window.studioState = S;
window.studioStats = { events: 0, snapshots: 0, lagLast: 0, lagMax: 0, applied: 0, firstPaint: 0 };

async function api(path, body) {
  const opt = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  const r = await fetch(path, opt);
  if (!r.ok) throw new Error(await r.text());
  return r.json();
}

// refused says in the header why the server refused an action (an alert
// would block the page, and with it the stream it draws).
function refused(err) {
  const c = $('#conn');
  c.textContent = 'refused: ' + (err.message || err);
  c.className = 'conn bad';
}

function el(tag, attrs = {}, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

// ---- runs ----

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
    const files = await api('api/files');
    E.palette = await api('api/palette');
    for (const f of files.files) sel.append(h('option', { value: 'file:' + f.path }, `edit · ${f.path}`));
    sel.onchange = () => (sel.value.startsWith('file:') ? openFile(sel.value.slice(5)) : openRun(+sel.value));
    const want = new URLSearchParams(location.search).get('file');
    if (want || info.runs.length === 0) {
      const first = want || (files.files[0] && files.files[0].path);
      if (first) { sel.value = 'file:' + first; await openFile(first); }
      else $('#conn').textContent = 'no recordings or trees in ' + files.dir;
      return;
    }
  } else sel.onchange = () => openRun(+sel.value);
  if (info.runs.length === 0) {
    $('#conn').textContent = 'no run yet';
    setTimeout(start, 300);
    return;
  }
  const want = +(new URLSearchParams(location.search).get('run') || info.runs[0].id);
  sel.value = want;
  await openRun(want);
}

async function openRun(id) {
  if (S.es) S.es.close();
  setMode('run');
  const t = await api(`api/runs/${id}/tree`);
  S.run = t.run; S.nodes = t.nodes;
  const n = S.nodes.length;
  S.status = new Array(n).fill('IDLE'); S.last = new Array(n).fill(''); S.reason = new Array(n).fill(''); S.since = new Array(n).fill(0);
  S.history = []; S.n = 0; S.bb = new Map(); S.bbHist = new Map(); S.end = null; S.explanation = [];
  S.scrub = null; S.selected = 0; S.collapsed = new Set(); S.timeline = []; S.marks = []; S.marksDrawn = null;
  // Big trees open with their subtrees collapsed.
  if (n > 300) for (const nd of S.nodes) if (nd.type === 'SubTree' && nd.parent) S.collapsed.add(nd.uid);
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
  es.addEventListener('snapshot', (e) => { window.studioStats.snapshots++; apply(JSON.parse(e.data), true); });
  es.addEventListener('delta', (e) => apply(JSON.parse(e.data), false));
}

// ---- state ----

function apply(d, snapshot) {
  window.studioStats.events++;
  d.transitions = d.transitions || [];
  if (snapshot) {
    S.status = d.statuses; S.reason = d.reasons; S.last = new Array(S.nodes.length).fill(''); S.since = d.since || new Array(S.nodes.length).fill(0);
    S.bb = new Map();
    if (S.run.kind === 'live') S.history = d.transitions.slice();
    for (const t of d.transitions) S.last[t[1] - 1] = t[3] === 'IDLE' ? t[2] : '';
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

function schedule() {
  if (!S.frame) S.frame = requestAnimationFrame(render);
}

function render() {
  S.frame = 0;
  const status = shownStatus();
  for (const uid of S.scrub !== null ? S.nodes.map((n) => n.uid) : S.dirty) paintNode(uid, status);
  S.dirty.clear();
  if (S.mode === 'edit') {
    firstPainted();
    return;
  }
  paintEdges(status);
  paintBanners();
  // The panels change less often than the tree: at most four times a
  // second (at once while scrubbing).
  const now = performance.now();
  if (S.scrub !== null || S.run.kind === 'replay' || now - (S.panelsAt || 0) > 250) {
    S.panelsAt = now;
    paintBlackboard();
    paintLoop();
    paintTimeline();
    if (S.selected) paintNodePanel(false);
  } else if (!S.panelsTimer) {
    S.panelsTimer = setTimeout(() => { S.panelsTimer = 0; S.panelsAt = 0; schedule(); }, 260);
  }
  window.studioStats.applied = window.studioStats.events;
  if (S.loop && S.loop.tick_wall_ms && S.run.kind === 'live' && !S.end) {
    // How far behind the tick the page is, once it has drawn it.
    const lag = Date.now() - S.loop.tick_wall_ms;
    window.studioStats.lagLast = lag;
    window.studioStats.lagMax = Math.max(window.studioStats.lagMax, lag);
    (window.studioStats.lags = window.studioStats.lags || []).push(lag);
  }
  firstPainted();
}

// firstPainted notes when the first drawing of the page was painted: a
// task queued from the frame that drew it runs once the frame is shown.
function firstPainted() {
  if (window.studioStats.firstPaint || S.firstPaintQueued) return;
  S.firstPaintQueued = true;
  setTimeout(() => { window.studioStats.firstPaint = performance.now(); }, 0);
}

// shownStatus is the statuses at the scrubbed instant, or now: the
// transitions after it are undone, newest first.
function shownStatus() {
  if (S.scrub === null || S.run.kind !== 'live') return S.status;
  const st = S.status.slice();
  for (let i = S.history.length - 1; i >= 0 && S.history[i][4] > S.scrub; i--) st[S.history[i][1] - 1] = S.history[i][2];
  return st;
}

function shownBlackboard() {
  if (S.scrub === null || S.run.kind !== 'live') return [...S.bb.values()];
  const out = [];
  for (const hist of S.bbHist.values()) {
    let pick = null;
    for (const e of hist) if (e.stamp <= S.scrub) pick = e;
    if (pick) out.push(pick);
  }
  return out;
}

// ---- layout and drawing ----

// collapseDeep keeps about the first max nodes of a huge tree open, by
// depth, and collapses the nodes below which the rest hang (expand them
// one by one, or all at once).
function collapseDeep(max) {
  const depth = new Array(S.nodes.length).fill(0), count = [];
  for (const nd of S.nodes) { // UID order is depth-first: parents first
    const d = nd.parent ? depth[nd.parent - 1] + 1 : 0;
    depth[nd.uid - 1] = d;
    count[d] = (count[d] || 0) + 1;
  }
  let cut = 0, seen = 0;
  while (cut < count.length && seen + count[cut] <= max) seen += count[cut++];
  const at = Math.max(0, cut - 1);
  for (const nd of S.nodes) if (depth[nd.uid - 1] === at && nd.children.length) S.collapsed.add(nd.uid);
}

function visibleChildren(nd) { return S.collapsed.has(nd.uid) ? [] : nd.children; }

function boxWidth(nd) { return Math.max(90, 7 * Math.max(nd.name.length, nd.type.length + 2) + 20); }

// layout places each node: leaves side by side, a parent centred over
// its children, one row per depth.
function layout() {
  const n = S.nodes.length;
  S.pos = new Array(n);
  if (!n) return;
  const root = S.nodes.find((x) => !x.parent) || S.nodes[0];
  let cursor = 0, maxY = 0;
  const place = (uid, depth) => {
    const nd = S.nodes[uid - 1], w = boxWidth(nd);
    const kids = visibleChildren(nd);
    const y = depth * (NODE_H + GAP_Y);
    maxY = Math.max(maxY, y);
    if (!kids.length) {
      S.pos[uid - 1] = { x: cursor, y, w };
      cursor += w + GAP_X;
      return;
    }
    const start = cursor;
    for (const c of kids) place(c, depth + 1);
    const first = S.pos[kids[0] - 1], last = S.pos[kids[kids.length - 1] - 1];
    let cx = (first.x + first.w / 2 + last.x + last.w / 2) / 2;
    let x = cx - w / 2;
    if (x < start) { // a wide parent over narrow children: shift them
      const dx = start - x;
      shift(uid, dx); x += dx;
    }
    S.pos[uid - 1] = { x, y, w };
    cursor = Math.max(cursor, x + w + GAP_X);
  };
  const shift = (uid, dx) => {
    for (const c of visibleChildren(S.nodes[uid - 1])) { S.pos[c - 1].x += dx; shift(c, dx); }
  };
  place(root.uid, 0);
  S.layoutW = cursor; S.layoutH = maxY + NODE_H;
}

// A tree of more than CULL_ABOVE nodes has only the nodes near the view
// in the page (those in it and half a pane around it), added and removed
// as the view moves: a browser lays out and paints every element it
// holds, and 2,000 nodes of a few elements each cost it a third of a
// second per change.
const CULL_ABOVE = 400;

function draw() {
  $('#nodes').replaceChildren(); $('#edges').replaceChildren();
  S.els = new Array(S.nodes.length); S.edges = []; S.marksKey = '';
  drawNear();
}

// nearBox is the part of the layout to keep drawn (null: all of it).
function nearBox() {
  if (S.nodes.length <= CULL_ABOVE) return null;
  const r = $('#tree').getBoundingClientRect(), k = S.view.k;
  const w = Math.max(r.width, 200) / k, hh = Math.max(r.height, 200) / k, x = -S.view.x / k, y = -S.view.y / k;
  return { x0: x - w / 2, x1: x + w * 1.5, y0: y - hh / 2, y1: y + hh * 1.5 };
}

function near(p, box) { return !box || (p.x + p.w >= box.x0 && p.x <= box.x1 && p.y + NODE_H >= box.y0 && p.y <= box.y1); }

// drawNear draws the nodes near the view that are not drawn yet, removes
// those gone far from it, and draws the edges of what is drawn.
function drawNear() {
  const box = nearBox(), gN = $('#nodes'), gE = $('#edges');
  let changed = false;
  for (const nd of S.nodes) {
    const i = nd.uid - 1, p = S.pos[i], e = S.els[i];
    if (!p) continue;
    if (e && !near(p, box)) { e.g.remove(); S.els[i] = undefined; changed = true; }
    else if (!e && near(p, box)) { drawNode(nd, p, gN); S.dirty.add(nd.uid); changed = true; }
  }
  if (!changed && S.edges.length) return;
  gE.replaceChildren(); S.edges = []; S.marksKey = '';
  for (const nd of S.nodes) {
    const p = S.pos[nd.uid - 1];
    if (!p) continue;
    for (const c of visibleChildren(nd)) {
      if (!S.els[nd.uid - 1] && !S.els[c - 1]) continue;
      const q = S.pos[c - 1];
      const x1 = p.x + p.w / 2, y1 = p.y + NODE_H, x2 = q.x + q.w / 2, y2 = q.y, my = (y1 + y2) / 2;
      const path = el('path', { class: 'edge', d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}` }, gE);
      S.edges.push({ parent: nd.uid, child: c, path });
    }
  }
  if (S.mode === 'edit' && E.doc) paintProblems(); else if (S.run) paintEdges(shownStatus());
  schedule();
}

let nearFrame = 0;
function scheduleNear() {
  if (S.nodes.length > CULL_ABOVE && !nearFrame) nearFrame = requestAnimationFrame(() => { nearFrame = 0; drawNear(); });
}

function drawNode(nd, p, gN) {
  const g = el('g', { class: 'node', 'data-uid': nd.uid, 'data-path': nd.path, 'data-status': 'IDLE', transform: `translate(${p.x},${p.y})` }, gN);
  el('rect', { class: 'box', width: p.w, height: NODE_H }, g);
  const name = el('text', { class: 'name', x: 8, y: 16 }, g); name.textContent = nd.name;
  const type = el('text', { class: 'type', x: 8, y: 30 }, g); type.textContent = nd.name === nd.type ? '' : nd.type;
  const reason = el('text', { class: 'reason', x: 8, y: 41 }, g);
  const bp = el('circle', { class: 'bp', cx: p.w - 7, cy: 7, r: 4, visibility: 'hidden' }, g);
  const forced = el('text', { class: 'forced', x: p.w - 16, y: 30 }, g);
  const title = el('title', {}, g); title.textContent = nd.path;
  if (nd.children.length) {
    const t = el('g', { class: 'tg' }, g);
    el('circle', { class: 'toggle', cx: p.w / 2, cy: NODE_H + 7, r: 7 }, t);
    const tt = el('text', { class: 'toggle-t', x: p.w / 2, y: NODE_H + 11 }, t);
    tt.textContent = S.collapsed.has(nd.uid) ? '+' : '−';
    t.addEventListener('click', (e) => { e.stopPropagation(); toggle(nd.uid); });
  }
  g.addEventListener('click', () => select(nd.uid));
  g.addEventListener('pointerdown', (e) => { if (S.mode === 'edit' && e.button === 0) { e.stopPropagation(); startNodeDrag(nd.uid, e); } });
  S.els[nd.uid - 1] = { g, reason, bp, forced };
}

// reveal pans the view, when node uid lies outside it, to show it.
function reveal(uid) {
  const p = S.pos[uid - 1];
  if (!p) return;
  const r = $('#tree').getBoundingClientRect(), k = S.view.k;
  const x = p.x * k + S.view.x, y = p.y * k + S.view.y;
  if (x >= 0 && y >= 0 && x + p.w * k <= r.width && y + NODE_H * k <= r.height) return;
  S.view.x = r.width / 2 - (p.x + p.w / 2) * k;
  S.view.y = r.height / 3 - p.y * k;
  setView();
}

function paintNode(uid, status) {
  const e = S.els[uid - 1];
  if (!e) return;
  const st = status[uid - 1];
  if (e.g.getAttribute('data-status') !== st) e.g.setAttribute('data-status', st);
  const last = st === 'IDLE' && S.scrub === null ? (S.last[uid - 1] || '') : '';
  if (e.g.getAttribute('data-last') !== last) e.g.setAttribute('data-last', last);
  const r = st === 'IDLE' && !last ? '' : (S.reason[uid - 1] || '');
  const text = r.length > 48 ? r.slice(0, 47) + '…' : r;
  if (e.reason.textContent !== text) e.reason.textContent = text;
}

// paintEdges highlights the running path and marks the nodes the
// debugger and the explanation name. Only what changed is written: a
// write, even of the same value, costs the browser a style pass.
function paintEdges(status) {
  for (const ed of S.edges) {
    const run = status[ed.parent - 1] === 'RUNNING' && status[ed.child - 1] === 'RUNNING';
    if (ed.run !== run) { ed.run = run; ed.path.classList.toggle('run', run); }
  }
  const d = S.debug || {};
  const key = JSON.stringify([S.explanation.map((c) => c.path), d.before, d.after, d.held, d.force, S.selected]);
  if (key === S.marksKey) return;
  S.marksKey = key;
  const why = new Set(S.explanation.map((c) => c.path));
  const before = new Set(d.before || []), after = new Set(d.after || []);
  const held = d.held ? d.held.uid : 0;
  for (const nd of S.nodes) {
    const e = S.els[nd.uid - 1];
    if (!e) continue;
    const marks = [why.has(nd.path), nd.uid === held, nd.uid === S.selected, before.has(nd.uid) || after.has(nd.uid), (d.force && d.force[nd.uid]) || ''].join();
    if (e.marks === marks) continue;
    e.marks = marks;
    e.g.classList.toggle('why', why.has(nd.path));
    e.g.classList.toggle('held', nd.uid === held);
    e.g.classList.toggle('selected', nd.uid === S.selected);
    e.bp.setAttribute('visibility', before.has(nd.uid) || after.has(nd.uid) ? 'visible' : 'hidden');
    const f = d.force && d.force[nd.uid];
    e.forced.textContent = f ? (f === 'SUCCESS' ? '✓' : '✗') : '';
  }
}

function toggle(uid) {
  if (S.collapsed.has(uid)) S.collapsed.delete(uid); else S.collapsed.add(uid);
  layout(); draw(); paintEdges(shownStatus());
}

// ---- pan and zoom ----

function setView() {
  $('#viewport').setAttribute('transform', `translate(${S.view.x},${S.view.y}) scale(${S.view.k})`);
  scheduleNear();
}

function fit() {
  const svg = $('#tree'), r = svg.getBoundingClientRect();
  const pad = 20;
  const k = Math.min(1, (r.width - 2 * pad) / Math.max(1, S.layoutW), (r.height - 2 * pad) / Math.max(1, S.layoutH + 14));
  S.view = { k, x: (r.width - S.layoutW * k) / 2, y: pad };
  setView();
}

// home is the first view: the whole tree when it is readable so, else
// readable, the root centred at the top.
function home() {
  fit();
  if (S.view.k >= 0.7) return;
  const r = $('#tree').getBoundingClientRect(), root = S.pos[(S.nodes.find((x) => !x.parent) || S.nodes[0]).uid - 1];
  S.view.k = 0.7;
  S.view.x = r.width / 2 - (root.x + root.w / 2) * S.view.k;
  S.view.y = 20;
  setView();
}

function initPanZoom() {
  const svg = $('#tree');
  let drag = null;
  svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = svg.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
    const f = Math.exp(-e.deltaY * 0.0015), k = Math.min(4, Math.max(0.02, S.view.k * f));
    S.view.x = mx - (mx - S.view.x) * (k / S.view.k);
    S.view.y = my - (my - S.view.y) * (k / S.view.k);
    S.view.k = k; setView();
  }, { passive: false });
  svg.addEventListener('pointerdown', (e) => { if (e.button === 0) { drag = { x: e.clientX, y: e.clientY, vx: S.view.x, vy: S.view.y, moved: false }; } });
  window.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; svg.classList.add('drag'); }
    S.view.x = drag.vx + dx; S.view.y = drag.vy + dy; setView();
  });
  window.addEventListener('pointerup', () => { drag = null; svg.classList.remove('drag'); });
  $('#btn-fit').onclick = fit;
  $('#btn-expand').onclick = () => { S.collapsed.clear(); layout(); fit(); draw(); };
  $('#btn-collapse').onclick = () => {
    for (const nd of S.nodes) if (nd.type === 'SubTree' && nd.parent) S.collapsed.add(nd.uid);
    layout(); draw(); fit();
  };
}

// ---- panels ----

function fmtMs(v) {
  if (v < 1000) return `${v.toFixed(0)} ms`;
  if (v < 60000) return `${(v / 1000).toFixed(1)} s`;
  return `${Math.floor(v / 60000)} min ${((v % 60000) / 1000).toFixed(0)} s`;
}

function select(uid) {
  if (S.mode === 'edit') { editSelect(uid); return; }
  S.selected = uid;
  paintNodePanel(true);
  paintEdges(shownStatus());
}

let nodeFetch = 0;
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
    if (Date.now() - nodeFetch > 500) refreshPorts(uid);
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
  kids.push(h('h4', {}, 'Recent transitions'), h('ol', { id: 'transitions', reversed: '' }, ...recentOf(uid)));
  panel.replaceChildren(...kids);
  refreshPorts(uid);
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
  nodeFetch = Date.now();
  const r = await api(`api/runs/${S.run.id}/nodes/${uid}`).catch(() => null);
  if (!r || uid !== S.selected) return;
  const body = $('#ports tbody');
  if (!body) return;
  body.replaceChildren(...r.ports.map((p) => h('tr', { 'data-port': p.name },
    h('td', {}, p.name), h('td', {}, p.dir), h('td', {}, p.type), h('td', { class: 'mono' }, p.raw),
    h('td', { class: 'value' }, p.value === null ? '—' : JSON.stringify(p.value)))));
}

function paintBlackboard() {
  const q = $('#bb-search').value.trim().toLowerCase();
  const entries = shownBlackboard().sort((a, b) => (a.scope + '/' + a.key).localeCompare(b.scope + '/' + b.key));
  const stale = new Set(entries.filter((e) => e.key.endsWith('_stale') && e.value === true).map((e) => e.scope + '/' + e.key.slice(0, -6)));
  const now = S.scrub !== null ? S.scrub : S.now;
  const rows = [];
  let scope = null;
  for (const e of entries) {
    const id = e.scope + '/' + e.key, val = JSON.stringify(e.value);
    if (q && !id.toLowerCase().includes(q) && !val.toLowerCase().includes(q)) continue;
    if (e.scope !== scope) { scope = e.scope; rows.push(h('tr', {}, h('th', { colspan: 5 }, scope))); }
    const age = Math.max(0, now - e.stamp);
    const cls = stale.has(id) ? 'stale' : (age < 500 ? 'fresh' : '');
    const value = h('td', { class: 'value', title: val }, val.length > 120 ? val.slice(0, 119) + '…' : val);
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
  setEntry(e.scope, e.key, v).catch(refused);
}

function setEntry(scope, key, value) {
  return api(`api/runs/${S.run.id}/control`, { op: 'set', scope, key, value });
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

// ---- timeline ----

function span() {
  if (S.run.kind === 'replay' && S.replay) return [S.replay.first_s * 1000, S.replay.last_s * 1000];
  const first = S.history.length ? S.history[0][4] : 0;
  return [first, Math.max(first + 1, S.now)];
}

function paintTimeline() {
  const c = $('#marks'), r = c.getBoundingClientRect();
  if (c.width !== Math.round(r.width)) c.width = Math.round(r.width);
  c.height = 20;
  const g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  const [a, b] = span();
  const src = S.run.kind === 'replay' ? S.timeline : S.history;
  const colors = { RUNNING: '#f0a020', SUCCESS: '#2e9d4f', FAILURE: '#d63b3b' };
  const step = Math.max(1, Math.floor(src.length / 4000));
  for (let i = 0; i < src.length; i += step) {
    const t = src[i], col = colors[t[3]];
    if (!col) continue;
    g.fillStyle = col;
    const x = ((t[4] - a) / (b - a)) * c.width;
    g.fillRect(x, t[3] === 'FAILURE' ? 0 : 6, 1.5, t[3] === 'FAILURE' ? 20 : 14);
  }
  // The run's marks (hil's faults and verdicts), each with its text on
  // hover; redrawn only when they or the span changed.
  const marks = S.marks || [], key = `${a}|${b}|${marks.length}|${c.width}`;
  if (S.marksDrawn !== key) {
    S.marksDrawn = key;
    $('#timeline-events').replaceChildren(...marks.map((m) => h('span', {
      class: m.kind, title: `${fmtMs(m.at)}: ${m.text}`, 'data-kind': m.kind,
      style: `left:${Math.max(0, Math.min(100, ((m.at - a) / (b - a)) * 100)).toFixed(2)}%`,
    }, m.label)));
  }
  const seek = $('#seek');
  if (document.activeElement !== seek) {
    let at = S.run.kind === 'replay' && S.replay ? S.replay.at_s * 1000 : (S.scrub !== null ? S.scrub : b);
    seek.value = String(Math.round(((at - a) / (b - a)) * 1000));
  }
  $('#at').textContent = S.run.kind === 'replay' && S.replay ? `${S.replay.at_s.toFixed(2)} s` : (S.scrub !== null ? `at ${fmtMs(S.scrub)}` : 'now');
  $('#btn-live').hidden = !(S.run.kind === 'live' && S.scrub !== null);
}

function initTimeline() {
  const seek = $('#seek');
  seek.addEventListener('input', () => {
    const [a, b] = span(), t = a + (b - a) * (+seek.value / 1000);
    if (S.run.kind === 'replay') {
      api(`api/runs/${S.run.id}/replay`, { op: 'seek', at_s: t / 1000 }).catch(() => {});
    } else {
      S.scrub = +seek.value >= 1000 ? null : t;
      schedule();
    }
  });
  $('#btn-live').onclick = () => { S.scrub = null; schedule(); };
  $('#btn-play').onclick = () => api(`api/runs/${S.run.id}/replay`, { op: S.replay && S.replay.playing ? 'pause' : 'play' });
  $('#speed').onchange = () => api(`api/runs/${S.run.id}/replay`, { op: 'speed', speed: +$('#speed').value });
}

// ---- debugging ----

function initDebug() {
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

$('#bb-search').addEventListener('input', () => paintBlackboard());
initEditor();
initPanZoom(); initTimeline(); initDebug();
window.addEventListener('resize', () => schedule());
start().catch((e) => { $('#conn').textContent = 'error: ' + e.message; $('#conn').className = 'conn bad'; });

// ---- the editor (btrobot studio DIR) ----
//
// A file's trees as the server reads them (type, attributes in order,
// children), edited here; every edit is checked by the server with the
// checker of `btrobot check` and the problems marked on their nodes; Save
// writes the file through the project's XML writer. Undo and redo keep
// whole states of the file.

const E = { path: '', doc: null, tree: 0, palette: [], undo: [], redo: [], problems: [], checking: false, checkAgain: false, checkSeq: 0, specs: [], conditions: [] };
window.studioEditor = E;

function setMode(mode) {
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

async function openFile(path) {
  if (S.es) { S.es.close(); S.es = null; }
  setMode('edit');
  const r = await api('api/file?path=' + encodeURIComponent(path) + targetQuery('&'));
  // The pre/post-condition scripts every node accepts, as the runtime
  // names and evaluates them (runtime/conditions.go).
  if (!E.conditions.length) E.conditions = await api('api/conditions').catch(() => []);
  E.path = r.path; E.doc = r.doc; E.undo = []; E.redo = []; E.problems = r.problems; S.collapsed = new Set();
  E.tree = Math.max(0, E.doc.trees.findIndex((t) => t.id === E.doc.main));
  E.back = []; E.subtrees = [];
  editRedraw(true);
  // Said once the file is drawn and the palette offered: what a user (and
  // a test) waits for before editing.
  $('#conn').textContent = 'editing'; $('#conn').className = 'conn ok';
  $('#tickinfo').textContent = path;
  refreshSubtrees();
}

function nodeName(n) {
  const a = n.attrs.find((x) => x[0] === 'name');
  if (a && a[1]) return a[1];
  if (n.type === 'SubTree') { const id = n.attrs.find((x) => x[0] === 'ID'); if (id) return id[1]; }
  return n.type;
}

// editNodes turns the edited tree into what the drawing uses, and keeps
// each drawn node's spec (E.specs[uid-1]) and its index over the file.
function editNodes() {
  const t = E.doc.trees[E.tree];
  let offset = 0;
  const count = (n) => (n ? 1 + n.children.reduce((a, c) => a + count(c), 0) : 0);
  for (let i = 0; i < E.tree; i++) offset += count(E.doc.trees[i].root);
  const nodes = [], specs = [];
  const walk = (n, parent, path) => {
    const uid = nodes.length + 1;
    const nd = { uid, parent, name: nodeName(n), type: n.type, path: path + '/' + nodeName(n), children: [], ports: [], index: offset + uid - 1 };
    nodes.push(nd); specs.push(n);
    for (const c of n.children) nd.children.push(walk(c, uid, nd.path));
    return uid;
  };
  if (t && t.root) walk(t.root, 0, t.id);
  E.specs = specs;
  return nodes;
}

function editRedraw(refit) {
  const sel = $('#edit-tree');
  sel.replaceChildren(...E.doc.trees.map((t, i) => h('option', { value: i }, t.id + (t.id === E.doc.main ? ' (main)' : ''))));
  sel.value = E.tree;
  S.nodes = editNodes();
  S.status = new Array(S.nodes.length).fill('IDLE'); S.last = new Array(S.nodes.length).fill('');
  S.reason = new Array(S.nodes.length).fill(''); S.since = new Array(S.nodes.length).fill(0);
  S.explanation = []; S.debug = null; S.scrub = null; S.history = [];
  if (S.selected > S.nodes.length) S.selected = 0;
  layout();
  if (refit) home();
  draw();
  paintProblems();
  paintInspector();
  paintPalette();
  $('#btn-undo').disabled = !E.undo.length; $('#btn-redo').disabled = !E.redo.length;
}

function paintProblems() {
  const byNode = new Map();
  for (const p of E.problems) if (p.node >= 0) byNode.set(p.node, (byNode.get(p.node) || []).concat(p.msg));
  for (const nd of S.nodes) {
    const e = S.els[nd.uid - 1];
    if (!e) continue;
    const msgs = byNode.get(nd.index);
    const mark = (msgs ? msgs.join('\n') : '') + (nd.uid === S.selected ? '\u0000sel' : '');
    if (e.mark === mark) continue; // a write, even of the same value, costs a style pass
    e.mark = mark;
    e.g.classList.toggle('bad', !!msgs);
    e.g.classList.toggle('selected', nd.uid === S.selected);
    e.g.setAttribute('data-problem', msgs ? msgs.join('\n') : '');
  }
  const list = $('#problems');
  if (!E.problems.length) { list.replaceChildren(h('li', { class: 'ok' }, 'No problems: btrobot check would pass.')); return; }
  list.replaceChildren(...E.problems.map((p) => h('li', { title: p.path || '', onclick: () => { const nd = S.nodes.find((n) => n.index === p.node); if (nd) editSelect(nd.uid); } }, p.msg)));
  $('#edit-state').textContent = `${E.problems.length} problem${E.problems.length > 1 ? 's' : ''}`;
}

function typeOf(id) { return E.palette.find((t) => t.id === id); }

function editSelect(uid) {
  S.selected = uid;
  if (uid) reveal(uid);
  paintProblems();
  paintInspector();
}

const INT_TYPES = /^(u?int(8|16|32|64)?)$/, FLOAT_TYPES = /^(float32|float64)$/;

// literalProblem says what is wrong with a port's text for its type, at
// once, before the server's check: '' when it fits (or is a {key}).
function literalProblem(port, v) {
  if (!port || v === '' || /^\{.*\}$/.test(v.trim())) return '';
  const t = port.type;
  if (INT_TYPES.test(t) && !/^\s*[+-]?\d+\s*$/.test(v)) return `not an integer (${t}): write a whole number or a {key}`;
  if (FLOAT_TYPES.test(t) && (v.trim() === '' || !isFinite(Number(v)))) return `not a number (${t}): write a number like 0.5, or a {key}`;
  if (t === 'time.Duration' && !isFinite(Number(v)) && !/^\s*([+-]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+\s*$/.test(v)) return 'not a duration: write 1.5s, 200ms, or a number of milliseconds, or a {key}';
  return '';
}

// markField shows a field's problem on it (and under it), or clears it.
function markField(input, msg) {
  input.classList.toggle('invalid', !!msg);
  input.title = msg || '';
  const m = input.parentElement && input.parentElement.querySelector('.field-msg');
  if (m) m.textContent = msg || '';
}

// checkScriptField has a script field checked by btrobot's own parser
// (POST api/script) as it is typed; the answer marks the field with the
// parser's message and column.
function checkScriptField(input) {
  clearTimeout(input.checkTimer);
  input.checkTimer = setTimeout(async () => {
    const code = input.value, seq = (input.checkSeq = (input.checkSeq || 0) + 1);
    if (/^\{.*\}$/.test(code.trim())) { markField(input, ''); return; } // the script is in an entry
    const r = await api('api/script', { code }).catch((e) => ({ ok: false, msg: e.message }));
    if (seq !== input.checkSeq) return;
    markField(input, r.ok ? '' : `script: ${r.msg}`);
    input.dataset.checked = code;
  }, 60);
}

function paintInspector() {
  const box = $('#inspector');
  const n = E.specs[S.selected - 1];
  if (!n) { box.replaceChildren(h('p', { class: 'muted' }, 'Click a node of the tree.')); return; }
  const t = typeOf(n.type);
  const get = (k) => { const a = n.attrs.find((x) => x[0] === k); return a ? a[1] : ''; };
  const keys = new Set();
  const collect = (x) => { for (const [, v] of x.attrs) for (const m of v.matchAll(/\{@?([A-Za-z_][\w.]*)\}/g)) keys.add(m[1]); x.children.forEach(collect); };
  E.doc.trees.forEach((tr) => tr.root && collect(tr.root));
  const keyNames = [...keys].sort();
  const keyRefs = keyNames.map((k) => '{' + k + '}');
  // field is one attribute's input, fitted to its port: a select for
  // booleans and types with a fixed set of values (and the keys), a
  // number or duration checked at once, a script checked by the server.
  const field = (name, port, opts = {}) => {
    const value = get(name);
    const boolean = port && port.type === 'bool';
    const choices = boolean ? ['true', 'false'] : (port && port.choices) || (opts.choices || null);
    let input;
    if (choices && !(boolean && /^\{/.test(value))) {
      const dflt = port && port.has_default ? `(default ${port.default})` : (opts.placeholder || '');
      const vals = [...choices, ...(boolean ? [] : keyRefs)];
      if (value && !vals.includes(value)) vals.push(value);
      input = h('select', { 'data-attr': name }, h('option', { value: '' }, dflt), ...vals.map((v) => h('option', { value: v }, v)));
      input.value = value;
      input.addEventListener('change', () => { editAttr(name, input.value); if (opts.repaint) { paintInspector(); $(`#inspector [data-attr="${name}"]`).focus(); } });
    } else {
      const script = opts.script || (port && port.script);
      // A port naming an entry as text (TopicFresh's key) is offered the
      // keys by name; any other, as {key} references.
      input = h('input', { type: 'text', 'data-attr': name, value, list: script ? undefined : (port && port.entry_name ? 'bb-names' : 'bb-keys'), spellcheck: 'false',
        inputmode: port && (INT_TYPES.test(port.type) || FLOAT_TYPES.test(port.type)) ? 'decimal' : undefined,
        placeholder: opts.placeholder || (port ? (port.has_default ? `default ${port.default}` : (port.dir === 'output' ? '{key}' : '')) : '') });
      if (script) input.classList.add('script');
      input.addEventListener('input', () => {
        editAttr(name, input.value);
        if (script) checkScriptField(input); else markField(input, literalProblem(port, input.value));
      });
      if (script && value) checkScriptField(input);
    }
    const label = h('span', { class: port && port.required ? 'req' : '', title: port ? `${port.dir} ${port.type}: ${port.description}` : (opts.title || '') }, name);
    const row = h('label', {}, label, input, h('small', { class: 'field-msg' }));
    if (input.tagName === 'INPUT' && !(opts.script || (port && port.script))) markField(input, literalProblem(port, value));
    return row;
  };
  const kids = [h('h3', {}, n.type), h('datalist', { id: 'bb-keys' }, ...keyRefs.map((k) => h('option', { value: k }))),
    h('datalist', { id: 'bb-names' }, ...keyNames.map((k) => h('option', { value: k }))), field('name')];
  const shown = new Set(['name', ...E.conditions]);
  if (n.type === 'SubTree') {
    // A SubTree: the tree it runs, _autoremap, and one remapping field
    // per port of that tree (its model's, else the keys it uses).
    const id = get('ID');
    kids[0] = h('h3', {}, 'SubTree → ' + id);
    kids.push(h('p', {}, h('button', { type: 'button', title: 'open its tree (Enter, double-click)', onclick: () => openSubtree(S.selected) }, 'Open ' + id)));
    kids.push(field('ID', null, { choices: E.doc.trees.map((tr) => tr.id), title: 'the tree this node runs', repaint: true }));
    kids.push(field('_autoremap', { name: '_autoremap', type: 'bool', dir: 'input', has_default: true, default: 'false', description: 'every other key of the subtree is the caller\'s' }));
    shown.add('ID'); shown.add('_autoremap');
    const st = (E.subtrees || []).find((x) => x.id === id);
    if (st) {
      kids.push(h('p', { class: 'muted' }, st.model ? `Remapping: the ports of ${id}'s model.` : `Remapping: the keys ${id} uses ({key}: the caller's key).`));
      for (const p of st.ports) { kids.push(field(p.name, p, { placeholder: p.has_default ? `default ${p.default}` : '{' + p.name + '}' })); shown.add(p.name); }
    }
  }
  for (const p of (t && n.type !== 'SubTree' ? t.ports : [])) { kids.push(field(p.name, p)); shown.add(p.name); }
  for (const [k] of n.attrs) if (!shown.has(k)) { kids.push(field(k)); shown.add(k); }
  // The pre/post-condition scripts, collapsed while none is set.
  const set = E.conditions.filter((c) => get(c) !== '');
  const conds = h('details', { class: 'conds' }, h('summary', {}, `Pre/post-conditions${set.length ? ` (${set.length} set)` : ''}`),
    ...E.conditions.map((c) => field(c, null, { script: true, title: 'a script (runtime/conditions.go)', placeholder: 'script' })));
  conds.open = set.length > 0;
  kids.push(conds);
  if (t) kids.push(h('div', { class: 'doc' }, t.summary + (t.doc ? '\n\n' + t.doc : '')));
  else kids.push(h('p', { class: 'muted' }, `${n.type} is not in the palette (a subtree, or an unknown type: see the problems).`));
  box.replaceChildren(...kids);
}

function snapshot() { return JSON.stringify({ doc: E.doc, tree: E.tree, sel: S.selected }); }

// readOnly says so, and is true, when the tree shown is an included
// file's: it is edited in that file (saving writes only the file open).
function readOnly() {
  const t = E.doc.trees[E.tree];
  if (!t || !t.file) return false;
  $('#edit-state').textContent = `${t.id} is in ${t.file}, read-only here: open ${t.file} to edit it`;
  return true;
}

function edit(f) {
  if (readOnly()) return;
  E.editedAt = E.editedAt || performance.now();
  E.undo.push(snapshot());
  if (E.undo.length > 500) E.undo.shift();
  E.redo = [];
  f();
  editRedraw(false);
  scheduleCheck();
  refreshSubtrees();
}

let attrUndoAt = 0;
function editAttr(name, value) {
  const n = E.specs[S.selected - 1];
  if (!n) return;
  if (readOnly()) { paintInspector(); return; }
  E.editedAt = E.editedAt || performance.now();
  // Typing in one field is one undo step.
  const now = Date.now();
  if (now - attrUndoAt > 800) { E.undo.push(snapshot()); E.redo = []; $('#btn-undo').disabled = false; $('#btn-redo').disabled = true; }
  attrUndoAt = now;
  const i = n.attrs.findIndex((x) => x[0] === name);
  if (value === '' && name !== 'ID') { if (i >= 0) n.attrs.splice(i, 1); }
  else if (i >= 0) n.attrs[i][1] = value;
  else n.attrs.push([name, value]);
  S.nodes = editNodes();
  const nd = S.nodes[S.selected - 1], e = S.els[S.selected - 1];
  if (e && nd) e.g.querySelector('text.name').textContent = nd.name;
  scheduleCheck();
  refreshSubtrees();
}

function restore(state) {
  E.editedAt = E.editedAt || performance.now();
  const s = JSON.parse(state);
  E.doc = s.doc; E.tree = s.tree; S.selected = s.sel;
  editRedraw(false);
  scheduleCheck();
  refreshSubtrees();
}

function undo() { if (!E.undo.length) return; E.redo.push(snapshot()); restore(E.undo.pop()); }
function redo() { if (!E.redo.length) return; E.undo.push(snapshot()); restore(E.redo.pop()); }

// parentOf finds the spec holding the selected node, and its index there.
function parentOf(uid) {
  const nd = S.nodes[uid - 1];
  if (!nd || !nd.parent) return null;
  const parent = E.specs[nd.parent - 1];
  return { parent, i: parent.children.indexOf(E.specs[uid - 1]), puid: nd.parent };
}

// newNode is a node of the type, with its required input ports; for
// "SubTree:ID" (the palette's Subtrees group), a SubTree node running
// tree ID with a remapping field for each of that tree's ports.
function newNode(typeID) {
  if (typeID.startsWith('SubTree:')) {
    const id = typeID.slice(8), st = (E.subtrees || []).find((x) => x.id === id);
    const n = { type: 'SubTree', attrs: [['ID', id]], children: [] };
    for (const p of (st ? st.ports : [])) if (!p.has_default) n.attrs.push([p.name, '{' + p.name + '}']);
    return n;
  }
  const t = typeOf(typeID);
  const n = { type: typeID, attrs: [], children: [] };
  for (const p of (t ? t.ports : [])) if (p.required && p.dir !== 'output') n.attrs.push([p.name, '']);
  return n;
}

function addNode(typeID) { insertNode(newNode(typeID)); }

// ---- drag and drop ----
//
// A node type dragged from the palette, or a node of the tree dragged by
// the pointer, is dropped on a node of the tree: on its left quarter it
// goes before that node, on its right quarter after it, elsewhere into it
// as its last child (before or after it, by half, when it takes no
// children). Dropped on an empty tree, a palette type becomes its root.
// Each drop is one edit: undo restores the tree as it was.

function takesChildren(n) {
  const t = typeOf(n.type);
  return t ? t.max_children !== 0 : n.type !== 'SubTree';
}

// dropPlace says where a drop at clientX on node uid puts what is dropped:
// 'before', 'after' or 'into'; '' where nothing may go.
function dropPlace(uid, clientX) {
  const e = S.els[uid - 1], n = E.specs[uid - 1];
  if (!e || !n) return '';
  const r = e.g.querySelector('rect.box').getBoundingClientRect();
  const f = (clientX - r.left) / Math.max(1, r.width);
  let where = f < 0.25 ? 'before' : f > 0.75 ? 'after' : 'into';
  if (where === 'into' && !takesChildren(n)) where = f < 0.5 ? 'before' : 'after';
  if (where !== 'into' && !S.nodes[uid - 1].parent) return takesChildren(n) ? 'into' : ''; // the root has no siblings
  return where;
}

// place puts n at where of node uid (in the tree as it is now).
function place(n, uid, where) {
  const target = E.specs[uid - 1];
  if (where === 'into') { target.children.push(n); return; }
  const pnd = S.nodes[uid - 1];
  const parent = E.specs[pnd.parent - 1];
  const i = parent.children.indexOf(target);
  parent.children.splice(where === 'before' ? i : i + 1, 0, n);
}

// dropType adds a node of the palette's type where it was dropped.
function dropType(typeID, uid, where) {
  const n = newNode(typeID);
  if (!uid) { if (E.doc.trees[E.tree].root) return; insertNode(n); return; }
  if (!where) return;
  edit(() => place(n, uid, where));
  editSelect(E.specs.indexOf(n) + 1);
}

// inSubtree says whether node uid is node top or one of its descendants.
function inSubtree(uid, top) {
  for (let u = uid; u; u = S.nodes[u - 1].parent) if (u === top) return true;
  return false;
}

// moveTo moves node uid (and its children) where it was dropped: a node
// never goes into itself, nor the root anywhere.
function moveTo(uid, target, where) {
  const from = parentOf(uid);
  if (!from || !where || inSubtree(target, uid)) return false;
  const n = E.specs[uid - 1];
  // Taken out first: place finds the target's index among its siblings
  // as they are then.
  edit(() => { from.parent.children.splice(from.i, 1); place(n, target, where); });
  editSelect(E.specs.indexOf(n) + 1);
  return true;
}

function markDrop(uid, where) {
  const key = uid + ':' + where;
  if (E.dropMark === key) return;
  for (const g of document.querySelectorAll('g.node.drop')) g.classList.remove('drop', 'drop-before', 'drop-after', 'drop-into');
  E.dropMark = key;
  const e = uid && S.els[uid - 1];
  if (e && where) e.g.classList.add('drop', 'drop-' + where);
}

function nodeAt(x, y) {
  const g = document.elementFromPoint(x, y)?.closest('g.node');
  return g ? +g.dataset.uid : 0;
}

function startNodeDrag(uid, e) {
  E.drag = { uid, x: e.clientX, y: e.clientY, moving: false };
}

function initDragDrop() {
  const svg = $('#tree');
  svg.addEventListener('dragover', (e) => {
    if (S.mode !== 'edit' || !e.dataTransfer.types.includes('application/x-btrobot-type')) return;
    const uid = nodeAt(e.clientX, e.clientY);
    const where = uid ? dropPlace(uid, e.clientX) : (E.doc.trees[E.tree].root ? '' : 'root');
    markDrop(uid, where);
    if (where) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; }
  });
  svg.addEventListener('dragleave', () => markDrop(0, ''));
  svg.addEventListener('drop', (e) => {
    if (S.mode !== 'edit') return;
    const type = e.dataTransfer.getData('application/x-btrobot-type');
    markDrop(0, '');
    if (!type) return;
    e.preventDefault();
    const uid = nodeAt(e.clientX, e.clientY);
    dropType(type, uid, uid ? dropPlace(uid, e.clientX) : '');
  });
  window.addEventListener('pointermove', (e) => {
    const d = E.drag;
    if (!d) return;
    if (!d.moving && Math.abs(e.clientX - d.x) + Math.abs(e.clientY - d.y) > 4) { d.moving = true; svg.classList.add('moving'); }
    if (!d.moving) return;
    const uid = nodeAt(e.clientX, e.clientY);
    markDrop(uid, uid && !inSubtree(uid, d.uid) ? dropPlace(uid, e.clientX) : '');
  });
  window.addEventListener('pointerup', (e) => {
    const d = E.drag;
    E.drag = null;
    svg.classList.remove('moving');
    markDrop(0, '');
    if (!d || !d.moving) return;
    const uid = nodeAt(e.clientX, e.clientY);
    if (uid && uid !== d.uid) moveTo(d.uid, uid, dropPlace(uid, e.clientX));
  });
}

// copyNode keeps the selected subtree for pasting; cut removes it too.
function copyNode(cut) {
  const n = E.specs[S.selected - 1];
  if (!n) return;
  E.clip = JSON.stringify(n);
  $('#edit-state').textContent = (cut ? 'cut ' : 'copied ') + nodeName(n);
  if (cut) deleteNode();
}

function pasteNode() {
  if (E.clip) insertNode(JSON.parse(E.clip));
}

// insertNode puts n under the selected node (after it, when that takes
// no children), or makes it the root of an empty tree, and selects it.
function insertNode(n) {
  edit(() => {
    const tree = E.doc.trees[E.tree];
    if (!tree.root) { tree.root = n; S.selected = 1; return; }
    const sel = E.specs[S.selected - 1] || E.specs[0];
    const st = typeOf(sel.type);
    const takes = st ? st.max_children !== 0 : sel.type !== 'SubTree';
    if (takes) sel.children.push(n);
    else { const p = parentOf(S.selected); if (p) p.parent.children.splice(p.i + 1, 0, n); else sel.children.push(n); }
  });
  const uid = E.specs.indexOf(n) + 1;
  if (uid > 0) editSelect(uid);
}

function deleteNode() {
  const p = parentOf(S.selected);
  if (!p) return;
  edit(() => { p.parent.children.splice(p.i, 1); S.selected = p.puid; });
}

function moveNode(d) {
  const p = parentOf(S.selected);
  if (!p) return;
  const j = p.i + d;
  if (j < 0 || j >= p.parent.children.length) return;
  const n = E.specs[S.selected - 1];
  edit(() => { p.parent.children.splice(p.i, 1); p.parent.children.splice(j, 0, n); });
  editSelect(E.specs.indexOf(n) + 1);
}

// scheduleCheck has the server check the file as edited: at once when no
// check is on its way, else as soon as that one is back (the edits made
// meanwhile are checked together; a result older than an edit is not
// shown).
function scheduleCheck() {
  $('#edit-state').textContent = 'checking…';
  E.editedAt = E.editedAt || performance.now();
  if (E.checking) { E.checkAgain = true; return; }
  runCheck();
}

async function runCheck() {
  E.checking = true; E.checkAgain = false;
  const seq = ++E.checkSeq, editedAt = E.editedAt;
  const r = await api('api/check', { path: E.path, doc: E.doc, ...runTarget() }).catch((e) => ({ problems: [{ msg: e.message, node: -1 }] }));
  E.checking = false;
  if (E.checkAgain) { runCheck(); return; }
  if (seq !== E.checkSeq) return; // saved meanwhile: the save's check is shown
  E.problems = r.problems;
  $('#edit-state').textContent = r.problems.length ? '' : 'checked';
  paintProblems();
  E.editedAt = 0;
  // From the edit to the frame that shows its check: what the editor's
  // benchmark reads.
  requestAnimationFrame(() => setTimeout(() => (window.studioStats.checks = window.studioStats.checks || []).push(performance.now() - editedAt), 0));
}

async function save() {
  // The save is checked too: a check still to come would only repeat it.
  E.checkSeq++; E.checkAgain = false;
  E.editedAt = 0;
  const r = await api('api/save', { path: E.path, doc: E.doc, ...runTarget() }).catch((e) => ({ error: e.message }));
  if (r.error) { $('#edit-state').textContent = 'not saved: ' + r.error; return; }
  E.problems = r.problems;
  paintProblems();
  $('#edit-state').textContent = r.problems.length ? `saved, with ${r.problems.length} problem${r.problems.length > 1 ? 's' : ''}` : 'saved';
}

function paintPalette() {
  const q = $('#palette-search').value.trim().toLowerCase();
  const groups = new Map();
  for (const t of E.palette) {
    if (q && !t.id.toLowerCase().includes(q) && !t.summary.toLowerCase().includes(q)) continue;
    if (!groups.has(t.category)) groups.set(t.category, []);
    groups.get(t.category).push(t);
  }
  // The file's own trees (and its includes'), but the one edited: each
  // adds a SubTree node running it.
  const cur = E.doc && E.doc.trees[E.tree] ? E.doc.trees[E.tree].id : '';
  const subs = (E.subtrees || []).filter((st) => st.id !== cur && (!q || st.id.toLowerCase().includes(q)))
    .map((st) => ({ id: 'SubTree:' + st.id, label: st.id, summary: st.ports.length ? 'ports: ' + st.ports.map((p) => p.name).join(', ') : 'a tree of the file' }));
  if (subs.length) groups.set('Subtrees', subs);
  const out = [];
  for (const [cat, list] of groups) {
    out.push(h('h5', {}, cat));
    for (const t of list) out.push(h('div', { class: 'pt', 'data-type': t.id, title: t.summary, draggable: 'true',
      ondragstart: (e) => { e.dataTransfer.setData('application/x-btrobot-type', t.id); e.dataTransfer.effectAllowed = 'copy'; },
      onclick: () => addNode(t.id) }, t.label || t.id, h('small', {}, t.summary)));
  }
  $('#palette').replaceChildren(...out);
}

// ---- subtrees ----
//
// The file's trees as SubTree nodes may run them (api/subtrees: each with
// its ports), a subtree made from the selected node and its children
// (api/subtree: the server moves them and remaps their keys; one edit),
// and opening a SubTree node's tree with a way back.

function refreshSubtrees() {
  clearTimeout(E.subTimer);
  // A file of one tree offers no subtree: no request (a 2,000-node file's
  // edits are checked without it).
  if (!E.doc || E.doc.trees.length < 2) { E.subSeq = (E.subSeq || 0) + 1; if ((E.subtrees || []).length) { E.subtrees = []; paintPalette(); } return; }
  E.subTimer = setTimeout(async () => {
    const seq = (E.subSeq = (E.subSeq || 0) + 1);
    const r = await api('api/subtrees', { path: E.path, doc: E.doc }).catch(() => null);
    if (!r || seq !== E.subSeq) return;
    E.subtrees = r;
    paintPalette();
    const n = E.specs[S.selected - 1];
    const active = document.activeElement;
    if (n && n.type === 'SubTree' && !(active && $('#inspector').contains(active))) paintInspector();
  }, 40);
}

// openSubtree shows the tree a SubTree node runs; back() returns.
function openSubtree(uid) {
  const n = E.specs[uid - 1];
  if (!n || n.type !== 'SubTree') return false;
  const id = (n.attrs.find((a) => a[0] === 'ID') || [])[1];
  const i = E.doc.trees.findIndex((t) => t.id === id);
  if (i < 0) { $('#edit-state').textContent = `no tree ${id} in the file`; return true; }
  E.back.push({ tree: E.tree, sel: uid });
  E.tree = i; S.selected = 1;
  editRedraw(true);
  $('#btn-back').disabled = false;
  return true;
}

function back() {
  const b = E.back.pop();
  if (!b || b.tree >= E.doc.trees.length) { $('#btn-back').disabled = !E.back.length; return; } // an undo took that tree away
  E.tree = b.tree; S.selected = b.sel;
  editRedraw(true);
  $('#btn-back').disabled = !E.back.length;
}

// subtreeID proposes an ID for a subtree made from node n: its name in
// CamelCase, numbered when the file or the palette has it already.
function subtreeID(n) {
  let base = nodeName(n).split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('') || 'Subtree';
  if (/^[0-9]/.test(base)) base = 'T' + base;
  const taken = (id) => E.doc.trees.some((t) => t.id === id) || !!typeOf(id);
  let id = base;
  for (let i = 2; taken(id); i++) id = base + i;
  return id;
}

// askSubtree asks for the new subtree's ID in the edit bar (Enter makes
// it, Escape gives up).
function askSubtree() {
  const n = E.specs[S.selected - 1];
  if (!n) { $('#edit-state').textContent = 'select the node to make a subtree of'; return; }
  const box = $('#subtree-box'), input = $('#subtree-id');
  box.hidden = false; $('#subtree-msg').textContent = '';
  input.value = subtreeID(n);
  input.focus(); input.select();
}

async function makeSubtree(id) {
  const sel = S.selected;
  const r = await api('api/subtree', { path: E.path, doc: E.doc, tree: E.tree, node: sel - 1, id }).catch((e) => ({ error: e.message }));
  if (r.error) { $('#subtree-msg').textContent = r.error.trim(); return; }
  $('#subtree-box').hidden = true;
  edit(() => { E.doc = r.doc; S.selected = sel; });
  editSelect(sel);
  $('#edit-state').textContent = `subtree ${id}` + (r.keys.length ? `, remapping ${r.keys.join(', ')}` : '');
  $('#tree').focus();
}

// focusInspector puts the keyboard in the selected node's first field.
function focusInspector() {
  const f = $('#inspector input, #inspector select');
  if (f) { f.focus(); if (f.select) f.select(); }
}

function initEditor() {
  initDragDrop();
  $('#btn-undo').onclick = undo; $('#btn-redo').onclick = redo;
  $('#btn-delete').onclick = deleteNode; $('#btn-save').onclick = save;
  $('#btn-up').onclick = () => moveNode(-1); $('#btn-down').onclick = () => moveNode(1);
  $('#btn-subtree').onclick = askSubtree; $('#btn-open').onclick = () => openSubtree(S.selected); $('#btn-back').onclick = back;
  const sid = $('#subtree-id');
  sid.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); e.stopPropagation(); makeSubtree(sid.value); }
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); $('#subtree-box').hidden = true; $('#tree').focus(); }
  });
  $('#subtree-ok').onclick = () => makeSubtree(sid.value);
  $('#tree').addEventListener('dblclick', (e) => { if (S.mode === 'edit') openSubtree(nodeAt(e.clientX, e.clientY)); });
  // Escape in the inspector gives the keyboard back to the tree.
  $('#inspector').addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); e.target.blur(); $('#tree').focus(); } });
  $('#btn-new').onclick = async () => {
    const name = prompt('New file (relative to the folder):', 'mission.xml');
    if (!name) return;
    const r = await api('api/new', { path: name }).catch((e) => ({ error: e.message }));
    if (r.error) { $('#edit-state').textContent = r.error; return; }
    const sel = $('#runs');
    sel.append(h('option', { value: 'file:' + r.path }, `edit · ${r.path}`));
    sel.value = 'file:' + r.path;
    openFile(r.path);
  };
  $('#edit-tree').onchange = () => { E.tree = +$('#edit-tree').value; S.selected = 0; editRedraw(true); };
  const ps = $('#palette-search');
  ps.addEventListener('input', paintPalette);
  ps.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { const first = $('#palette .pt'); if (first) addNode(first.dataset.type); ps.value = ''; paintPalette(); ps.blur(); }
    if (e.key === 'Escape') ps.blur();
  });
  window.addEventListener('keypress', (e) => { if (E.swallow && e.key === E.swallow) e.preventDefault(); E.swallow = ''; }, true);
  window.addEventListener('keyup', () => { E.swallow = ''; }, true);
  window.addEventListener('keydown', (e) => {
    if (S.mode !== 'edit') return;
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key === 's') { e.preventDefault(); save(); return; }
    if (typing) return;
    if (e.target instanceof HTMLButtonElement && (e.key === 'Enter' || e.key === ' ')) return; // a focused button is pressed
    if (mod && (e.key === 'z' || e.key === 'Z')) { e.preventDefault(); if (e.shiftKey) redo(); else undo(); return; }
    if (mod && e.key === 'y') { e.preventDefault(); redo(); return; }
    if (mod && e.key === 'c') { e.preventDefault(); copyNode(false); return; }
    if (mod && e.key === 'x') { e.preventDefault(); copyNode(true); return; }
    if (mod && e.key === 'v') { e.preventDefault(); pasteNode(); return; }
    if (mod) return; // Ctrl+Enter runs (initRun); the browser's own Ctrl keys stay its own
    if (e.key === 'Delete' || e.key === 'Backspace') { e.preventDefault(); deleteNode(); return; }
    if (e.altKey && e.key === 'ArrowUp') { e.preventDefault(); moveNode(-1); return; }
    if (e.altKey && e.key === 'ArrowDown') { e.preventDefault(); moveNode(1); return; }
    // A key that moves the keyboard into a field must not be typed
    // there too (chromium's char event follows the keydown).
    if (['a', 'g', 'e'].includes(e.key)) E.swallow = e.key;
    if (e.key === 'a') { e.preventDefault(); ps.focus(); return; }
    if (e.altKey && e.key === 'ArrowLeft') { e.preventDefault(); back(); return; }
    if (e.key === 'g') { e.preventDefault(); askSubtree(); return; }
    if (e.key === 'e' || e.key === 'F2') { e.preventDefault(); focusInspector(); return; }
    if (e.key === 'Enter') { e.preventDefault(); if (!openSubtree(S.selected)) focusInspector(); return; }
    // Arrows walk the tree: up to the parent, down to the first child,
    // left and right among siblings.
    const nd = S.nodes[S.selected - 1];
    if (!nd) { if (e.key.startsWith('Arrow') && S.nodes.length) editSelect(1); return; }
    if (e.key === 'ArrowUp' && nd.parent) editSelect(nd.parent);
    if (e.key === 'ArrowDown' && nd.children.length) editSelect(nd.children[0]);
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      const sib = nd.parent ? S.nodes[nd.parent - 1].children : [];
      const j = sib.indexOf(nd.uid) + (e.key === 'ArrowLeft' ? -1 : 1);
      if (j >= 0 && j < sib.length) editSelect(sib[j]);
    }
  });
}

// ---- the robot profile, the world, and Run (btrobot studio DIR) ----
//
// The profile and the world chosen beside Run: the palette is the one of
// the registry wired to that profile, and every check is the mission's
// check against the profile and the world's places (as a run loads it).
// Run saves the file when it has unsaved edits, then the server starts the
// mission on its simulator (its own ROS master, the world, robot1 at its
// spawn) and the page switches to that run's monitor; Stop stops it (the
// robot gets a zero velocity), as does a second Run.

const R = { run: 0, master: '', starting: false, timer: 0 };
window.studioRun = R;

// runTarget is what checks and runs are against: choice IDs, '' for none.
function runTarget() {
  const p = $('#run-profile'), w = $('#run-world');
  return { profile: p ? p.value : '', world: w ? w.value : '' };
}

function targetQuery(sep) {
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

function initRun() {
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

initRun();
