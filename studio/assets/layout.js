// layout.js: the tree drawn top-down as Groot2 draws it — where each node
// goes, its box, the edges, the running path and the debugger's marks,
// and the view: pan, zoom, fit, collapsing a subtree.

import { $, el } from './dom.js';
import { S, shownStatus } from './state.js';
import { schedule, select } from './monitor.js';
import { E, paintProblems } from './editor.js';
import { startNodeDrag } from './dragdrop.js';

export const NODE_H = 44, GAP_X = 14, GAP_Y = 38;

// A tree of more than CULL_ABOVE nodes has only the nodes near the view
// in the page (those in it and half a pane around it), added and removed
// as the view moves: a browser lays out and paints every element it
// holds, and 2,000 nodes of a few elements each cost it a third of a
// second per change.
const CULL_ABOVE = 400;

export const L = {
  pos: [], // per node (by uid-1): {x, y, w} in the layout, or undefined when hidden
  els: [], // per node drawn: {g, reason, bp, forced, marks, mark}
  edges: [], // the edges drawn: {parent, child, path, run}
  collapsed: new Set(), // the uids whose children are hidden
  view: { x: 0, y: 0, k: 1 }, // the pan (pixels) and zoom of the pane
  layoutW: 0, layoutH: 0, // the layout's size
  marksKey: '', // what paintEdges last marked
  nearFrame: 0, // a frame asked for drawNear
  touched: false, // the user zoomed or panned: their view is kept (until Fit)
  showPorts: false, // the ports written on the nodes (the Ports toggle)
  portRows: 0, // the most port lines a node shows, with showPorts
  found: [], at: -1, // the uids the search box found, and the one shown
  lookups: [], // the LookUp nodes (their tables are drawn on them)
};

// MAX_PORT_ROWS is how many ports a node lists on itself (then "…").
const MAX_PORT_ROWS = 8, PORT_H = 12;

// portLines is what a node shows of its ports: "name: value as set".
function portLines(nd) {
  if (!L.showPorts || !nd.ports || !nd.ports.length) return [];
  const lines = nd.ports.map((p) => `${p.name}: ${p.raw}`);
  if (lines.length > MAX_PORT_ROWS) lines.splice(MAX_PORT_ROWS - 1, lines.length, `… ${nd.ports.length - MAX_PORT_ROWS + 1} more`);
  return lines.map((l) => (l.length > 40 ? l.slice(0, 39) + '…' : l));
}

// goalTable reads a LookUp's table as written ("charge=Charge;
// deliver=Deliver") into its rows: {goal, tree, child} (child 0: unknown).
export function goalTable(raw) {
  const out = [];
  for (const pair of (raw || '').split(';')) {
    const i = pair.indexOf('=');
    if (i < 0) continue;
    out.push({ goal: pair.slice(0, i).trim(), tree: pair.slice(i + 1).trim(), child: 0 });
  }
  return out;
}

// goalLines is what a LookUp shows of its table on itself: "goal → Tree",
// one a line (then "…").
function goalLines(nd) {
  const g = nd.goals || [];
  const lines = g.slice(0, MAX_PORT_ROWS).map((r) => `${r.goal} → ${r.tree}`);
  if (g.length > MAX_PORT_ROWS) lines[MAX_PORT_ROWS - 1] = `… ${g.length - MAX_PORT_ROWS + 1} more`;
  return lines.map((l) => (l.length > 40 ? l.slice(0, 39) + '…' : l));
}

// boxHeight is node nd's height: its name, type and reason, its ports
// when they are shown, a LookUp's table.
function boxHeight(nd) { return NODE_H + PORT_H * (portLines(nd).length + goalLines(nd).length); }

// paintGoals marks on each LookUp drawn the rows of the tree that runs
// now (its child RUNNING): the live branch.
export function paintGoals(status) {
  for (const nd of L.lookups) {
    const e = L.els[nd.uid - 1];
    if (!e || !e.goals) continue;
    e.goals.forEach((t, i) => {
      const r = nd.goals[i];
      const live = !!(r && r.child && status[r.child - 1] === 'RUNNING');
      if (t.classList.contains('live') !== live) {
        t.classList.toggle('live', live);
        t.textContent = (live ? '▶ ' : '') + t.dataset.line;
      }
    });
  }
}

// collapseDeep keeps about the first max nodes of a huge tree open, by
// depth, and collapses the nodes below which the rest hang (expand them
// one by one, or all at once).
export function collapseDeep(max) {
  const depth = new Array(S.nodes.length).fill(0), count = [];
  for (const nd of S.nodes) { // UID order is depth-first: parents first
    const d = nd.parent ? depth[nd.parent - 1] + 1 : 0;
    depth[nd.uid - 1] = d;
    count[d] = (count[d] || 0) + 1;
  }
  let cut = 0, seen = 0;
  while (cut < count.length && seen + count[cut] <= max) seen += count[cut++];
  const at = Math.max(0, cut - 1);
  for (const nd of S.nodes) if (depth[nd.uid - 1] === at && nd.children.length) L.collapsed.add(nd.uid);
}

function visibleChildren(nd) { return L.collapsed.has(nd.uid) ? [] : nd.children; }

function boxWidth(nd) {
  // A LookUp's lines take "▶ " more when live.
  const ports = Math.max(portLines(nd).reduce((m, l) => Math.max(m, l.length), 0), goalLines(nd).reduce((m, l) => Math.max(m, l.length + 2), 0));
  return Math.max(90, 7 * Math.max(nd.name.length, nd.type.length + 2) + 20, 6 * ports + 20);
}

// layout places each node: leaves side by side, a parent centred over
// its children, one row per depth.
export function layout() {
  const n = S.nodes.length;
  L.pos = new Array(n);
  if (!n) { L.layoutW = 0; L.layoutH = 0; return; }
  const root = S.nodes.find((x) => !x.parent) || S.nodes[0];
  L.lookups = S.nodes.filter((nd) => nd.goals && nd.goals.length);
  L.portRows = (L.showPorts ? Math.min(MAX_PORT_ROWS, S.nodes.reduce((m, nd) => Math.max(m, (nd.ports || []).length), 0)) : 0) +
    L.lookups.reduce((m, nd) => Math.max(m, goalLines(nd).length), 0);
  const rowH = NODE_H + GAP_Y + PORT_H * L.portRows;
  let cursor = 0, maxY = 0;
  const place = (uid, depth) => {
    const nd = S.nodes[uid - 1], w = boxWidth(nd), bh = boxHeight(nd);
    const kids = visibleChildren(nd);
    const y = depth * rowH;
    maxY = Math.max(maxY, y + bh);
    if (!kids.length) {
      L.pos[uid - 1] = { x: cursor, y, w, h: bh };
      cursor += w + GAP_X;
      return;
    }
    const start = cursor;
    for (const c of kids) place(c, depth + 1);
    const first = L.pos[kids[0] - 1], last = L.pos[kids[kids.length - 1] - 1];
    let cx = (first.x + first.w / 2 + last.x + last.w / 2) / 2;
    let x = cx - w / 2;
    if (x < start) { // a wide parent over narrow children: shift them
      const dx = start - x;
      shift(uid, dx); x += dx;
    }
    L.pos[uid - 1] = { x, y, w, h: bh };
    cursor = Math.max(cursor, x + w + GAP_X);
  };
  const shift = (uid, dx) => {
    for (const c of visibleChildren(S.nodes[uid - 1])) { L.pos[c - 1].x += dx; shift(c, dx); }
  };
  place(root.uid, 0);
  L.layoutW = cursor; L.layoutH = maxY;
}

export function draw() {
  $('#nodes').replaceChildren(); $('#edges').replaceChildren();
  L.els = new Array(S.nodes.length); L.edges = []; L.marksKey = '';
  drawNear();
}

// nearBox is the part of the layout to keep drawn (null: all of it).
function nearBox() {
  if (S.nodes.length <= CULL_ABOVE) return null;
  const r = $('#tree').getBoundingClientRect(), k = L.view.k;
  const w = Math.max(r.width, 200) / k, hh = Math.max(r.height, 200) / k, x = -L.view.x / k, y = -L.view.y / k;
  return { x0: x - w / 2, x1: x + w * 1.5, y0: y - hh / 2, y1: y + hh * 1.5 };
}

function near(p, box) { return !box || (p.x + p.w >= box.x0 && p.x <= box.x1 && p.y + p.h >= box.y0 && p.y <= box.y1); }

// drawNear draws the nodes near the view that are not drawn yet, removes
// those gone far from it, and draws the edges of what is drawn.
function drawNear() {
  const box = nearBox(), gN = $('#nodes'), gE = $('#edges');
  let changed = false;
  for (const nd of S.nodes) {
    const i = nd.uid - 1, p = L.pos[i], e = L.els[i];
    if (!p) continue;
    if (e && !near(p, box)) { e.g.remove(); L.els[i] = undefined; changed = true; }
    else if (!e && near(p, box)) { drawNode(nd, p, gN); S.dirty.add(nd.uid); changed = true; }
  }
  if (!changed && L.edges.length) return;
  gE.replaceChildren(); L.edges = []; L.marksKey = '';
  for (const nd of S.nodes) {
    const p = L.pos[nd.uid - 1];
    if (!p) continue;
    for (const c of visibleChildren(nd)) {
      if (!L.els[nd.uid - 1] && !L.els[c - 1]) continue;
      const q = L.pos[c - 1];
      const x1 = p.x + p.w / 2, y1 = p.y + p.h, x2 = q.x + q.w / 2, y2 = q.y, my = (y1 + y2) / 2;
      const path = el('path', { class: 'edge', d: `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}` }, gE);
      L.edges.push({ parent: nd.uid, child: c, path });
    }
  }
  if (S.mode === 'edit' && E.doc) paintProblems(); else if (S.run) paintEdges(shownStatus());
  schedule();
}

function scheduleNear() {
  if (S.nodes.length > CULL_ABOVE && !L.nearFrame) L.nearFrame = requestAnimationFrame(() => { L.nearFrame = 0; drawNear(); });
}

function drawNode(nd, p, gN) {
  const g = el('g', { class: 'node', 'data-uid': nd.uid, 'data-path': nd.path, 'data-kind': nd.kind || '', 'data-status': 'IDLE', transform: `translate(${p.x},${p.y})` }, gN);
  el('rect', { class: 'box', width: p.w, height: p.h }, g);
  // The kind's colour, as Groot2 gives it: a band along the box's top.
  el('path', { class: 'kind', d: `M0,6 a6,6 0 0 1 6,-6 h${p.w - 12} a6,6 0 0 1 6,6 v-1 z` }, g);
  const pl = portLines(nd);
  pl.forEach((l, i) => { const t = el('text', { class: 'port', x: 8, y: NODE_H + 4 + PORT_H * i }, g); t.textContent = l; });
  const goals = goalLines(nd).map((l, i) => {
    const t = el('text', { class: 'goal', x: 8, y: NODE_H + 4 + PORT_H * (pl.length + i), 'data-line': l, 'data-goal': (nd.goals[i] || {}).goal || '' }, g);
    t.textContent = l;
    return t;
  });
  if (L.found.includes(nd.uid)) g.classList.add('found');
  const name = el('text', { class: 'name', x: 8, y: 16 }, g); name.textContent = nd.name;
  const type = el('text', { class: 'type', x: 8, y: 30 }, g); type.textContent = nd.name === nd.type ? '' : nd.type;
  if (nd.substitute) {
    // A substitution rule built something else in its place: say so.
    g.classList.add('substituted');
    type.textContent = '⇄ ' + nd.substitute;
  }
  const reason = el('text', { class: 'reason', x: 8, y: 41 }, g);
  const bp = el('circle', { class: 'bp', cx: p.w - 7, cy: 7, r: 4, visibility: 'hidden' }, g);
  const forced = el('text', { class: 'forced', x: p.w - 16, y: 30 }, g);
  const title = el('title', {}, g); title.textContent = nd.substitute ? `${nd.path} (${nd.type}, substituted by ${nd.substitute})` : nd.path;
  if (nd.children.length) {
    const t = el('g', { class: 'tg' }, g);
    el('circle', { class: 'toggle', cx: p.w / 2, cy: p.h + 7, r: 7 }, t);
    const tt = el('text', { class: 'toggle-t', x: p.w / 2, y: p.h + 11 }, t);
    tt.textContent = L.collapsed.has(nd.uid) ? '+' : '−';
    t.addEventListener('click', (e) => { e.stopPropagation(); toggle(nd.uid); });
  }
  g.addEventListener('click', () => select(nd.uid));
  g.addEventListener('pointerdown', (e) => { if (S.mode === 'edit' && e.button === 0) { e.stopPropagation(); startNodeDrag(nd.uid, e); } });
  L.els[nd.uid - 1] = { g, reason, bp, forced, marks: undefined, mark: undefined, goals: goals.length ? goals : undefined };
}

// reveal pans the view, when node uid lies outside it, to show it.
export function reveal(uid) {
  const p = L.pos[uid - 1];
  if (!p) return;
  const r = $('#tree').getBoundingClientRect(), k = L.view.k;
  const x = p.x * k + L.view.x, y = p.y * k + L.view.y;
  if (x >= 0 && y >= 0 && x + p.w * k <= r.width && y + p.h * k <= r.height) return;
  L.view.x = r.width / 2 - (p.x + p.w / 2) * k;
  L.view.y = r.height / 3 - p.y * k;
  L.touched = true; // the view follows the user's selection now
  setView();
}

export function paintNode(uid, status) {
  const e = L.els[uid - 1];
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
export function paintEdges(status) {
  for (const ed of L.edges) {
    const run = status[ed.parent - 1] === 'RUNNING' && status[ed.child - 1] === 'RUNNING';
    if (ed.run !== run) { ed.run = run; ed.path.classList.toggle('run', run); }
  }
  const d = S.debug || {};
  const key = JSON.stringify([S.explanation.map((c) => c.path), d.before, d.after, d.held, d.force, S.selected]);
  if (key === L.marksKey) return;
  L.marksKey = key;
  const why = new Set(S.explanation.map((c) => c.path));
  const before = new Set(d.before || []), after = new Set(d.after || []);
  const held = d.held ? d.held.uid : 0;
  for (const nd of S.nodes) {
    const e = L.els[nd.uid - 1];
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
  if (L.collapsed.has(uid)) L.collapsed.delete(uid); else L.collapsed.add(uid);
  layout(); draw(); paintEdges(shownStatus());
}

// ---- pan and zoom ----

function setView() {
  $('#viewport').setAttribute('transform', `translate(${L.view.x},${L.view.y}) scale(${L.view.k})`);
  scheduleNear();
}

export function fit() {
  const svg = $('#tree'), r = svg.getBoundingClientRect();
  const pad = 20;
  const k = Math.min(1, (r.width - 2 * pad) / Math.max(1, L.layoutW), (r.height - 2 * pad) / Math.max(1, L.layoutH + 14));
  L.view = { k, x: (r.width - L.layoutW * k) / 2, y: pad };
  L.touched = false;
  setView();
}

// HUGE_K is the least zoom a tree of more than CULL_ABOVE nodes opens at:
// fitted, such a tree is a grey band, and every node of it would be drawn.
const HUGE_K = 0.3;

// home is the first view: the tree fitted to the pane, however wide; a
// tree of more than CULL_ABOVE nodes that would be smaller than HUGE_K
// opens at HUGE_K, its root centred at the top. Until the user zooms or
// pans, the view follows the pane's size (home again); after, it is
// theirs, whatever changes.
export function home() {
  fit();
  if (L.view.k >= HUGE_K || S.nodes.length <= CULL_ABOVE) return;
  const r = $('#tree').getBoundingClientRect(), root = L.pos[(S.nodes.find((x) => !x.parent) || S.nodes[0]).uid - 1];
  L.view.k = HUGE_K;
  L.view.x = r.width / 2 - (root.x + root.w / 2) * L.view.k;
  L.view.y = 20;
  setView();
}

// ---- search ----

// search finds the nodes whose name or type holds q (any case), marks
// them, and shows the first (step: the next one, or the one before),
// opening the subtrees it is hidden in.
export function search(q, step = 0) {
  q = q.trim().toLowerCase();
  const found = q ? S.nodes.filter((nd) => nd.name.toLowerCase().includes(q) || nd.type.toLowerCase().includes(q)).map((nd) => nd.uid) : [];
  const same = found.length === L.found.length && found.every((u, i) => u === L.found[i]);
  L.found = found;
  L.at = !found.length ? -1 : same && L.at >= 0 ? (L.at + step + found.length) % found.length : 0;
  const info = $('#search-info');
  info.textContent = q ? (found.length ? `${L.at + 1} of ${found.length}` : 'no node') : '';
  let relaid = false;
  if (L.at >= 0) {
    for (let u = S.nodes[found[L.at] - 1].parent; u; u = S.nodes[u - 1].parent) if (L.collapsed.delete(u)) relaid = true;
  }
  if (relaid) { layout(); draw(); }
  for (const nd of S.nodes) {
    const e = L.els[nd.uid - 1];
    if (e) { e.g.classList.toggle('found', found.includes(nd.uid)); e.g.classList.toggle('found-at', L.at >= 0 && nd.uid === found[L.at]); }
  }
  if (L.at >= 0) centre(found[L.at]);
}

// centre pans the view to put node uid in the middle of the pane.
function centre(uid) {
  const p = L.pos[uid - 1];
  if (!p) return;
  const r = $('#tree').getBoundingClientRect(), k = Math.max(L.view.k, 0.6);
  L.view = { k, x: r.width / 2 - (p.x + p.w / 2) * k, y: r.height / 2 - (p.y + p.h / 2) * k };
  L.touched = true;
  setView();
  const e = L.els[uid - 1];
  if (e) { e.g.classList.add('found-at'); }
}

export function initPanZoom() {
  const svg = $('#tree');
  let drag = null;
  svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = svg.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
    const f = Math.exp(-e.deltaY * 0.0015), k = Math.min(4, Math.max(0.02, L.view.k * f));
    L.view.x = mx - (mx - L.view.x) * (k / L.view.k);
    L.view.y = my - (my - L.view.y) * (k / L.view.k);
    L.view.k = k; L.touched = true; setView();
  }, { passive: false });
  svg.addEventListener('pointerdown', (e) => { if (e.button === 0) { drag = { x: e.clientX, y: e.clientY, vx: L.view.x, vy: L.view.y, moved: false }; } });
  window.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; L.touched = true; svg.classList.add('drag'); }
    if (!drag.moved) return;
    L.view.x = drag.vx + dx; L.view.y = drag.vy + dy; setView();
  });
  window.addEventListener('pointerup', () => { drag = null; svg.classList.remove('drag'); });
  $('#btn-fit').onclick = fit;
  $('#btn-ports').onclick = () => {
    L.showPorts = !L.showPorts;
    $('#btn-ports').classList.toggle('on', L.showPorts);
    layout(); draw(); if (!L.touched) home();
  };
  const ns = $('#node-search');
  ns.addEventListener('input', () => search(ns.value));
  ns.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); search(ns.value, e.shiftKey ? -1 : 1); }
    if (e.key === 'Escape') { ns.value = ''; search(''); ns.blur(); }
  });
  // The pane's size changes (the window, the panels beside it): an
  // untouched view is fitted again.
  new ResizeObserver(() => { if (!L.touched && S.nodes.length && L.pos.length) { home(); } }).observe(svg);
  $('#btn-expand').onclick = () => { L.collapsed.clear(); layout(); fit(); draw(); };
  $('#btn-collapse').onclick = () => {
    for (const nd of S.nodes) if (nd.type === 'SubTree' && nd.parent) L.collapsed.add(nd.uid);
    layout(); draw(); fit();
  };
}
