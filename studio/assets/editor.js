// editor.js: the editor (btrobot studio DIR). A file's trees as the server
// reads them (type, attributes in order, children), edited here; every
// edit is checked by the server with the checker of `btrobot check` and
// the problems marked on their nodes; Save writes the file through the
// project's XML writer. Undo and redo keep whole states of the file.

import { $, api, h } from './dom.js';
import { S, stats } from './state.js';
import { L, layout, draw, home, reveal, goalTable } from './layout.js';
import { setMode } from './monitor.js';
import { initDragDrop, nodeAt, parentOf } from './dragdrop.js';
import { runTarget, targetQuery } from './run.js';
import { F, paintFiles, refreshFiles } from './files.js';

export const E = {
  path: '', doc: null, tree: 0, // the file, its trees as read, the index of the one shown
  specs: [], // the node of the file each drawn node is (by uid-1)
  palette: [], conditions: [], // the node types offered; the pre/post-condition attributes
  subtrees: [], subSeq: 0, subTimer: 0, // the file's trees as SubTree nodes run them, and their request
  undo: [], redo: [], // whole states of the file
  problems: [], checking: false, checkAgain: false, checkSeq: 0, // the check's answer, and the one on its way
  editedAt: 0, // when the first edit not yet checked was made (for the benchmark)
  back: [], // where Open came from: {tree, sel}
  clip: '', // a subtree copied
  swallow: '', // a key whose character must not be typed in the field it focused
  attrUndoAt: 0, // when an attribute was last typed (typing in one field is one undo step)
};

// openFile opens a file of the folder at its main tree, or at the tree
// named.
export async function openFile(path, treeID) {
  if (S.es) { S.es.close(); S.es = null; }
  setMode('edit');
  const r = await api('api/file?path=' + encodeURIComponent(path) + targetQuery('&'));
  // The pre/post-condition scripts every node accepts, as the runtime
  // names and evaluates them (runtime/conditions.go).
  if (!E.conditions.length) E.conditions = await api('api/conditions').catch(() => []);
  E.path = r.path; E.doc = r.doc; E.undo = []; E.redo = []; E.problems = r.problems; L.collapsed = new Set();
  E.tree = Math.max(0, E.doc.trees.findIndex((t) => t.id === (treeID || E.doc.main)));
  E.back = []; E.subtrees = []; S.selected = 0;
  const sel = $('#runs');
  if (sel.querySelector('option[value="file"]')) sel.value = 'file';
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
    const t = typeOf(n.type);
    const kind = n.type === 'SubTree' ? 'subtree' : t ? t.kind.toLowerCase() : (n.children.length > 1 ? 'control' : n.children.length ? 'decorator' : 'action');
    const ports = n.attrs.filter(([k]) => k !== 'name' && k !== 'ID').map(([k, v]) => ({ name: k, raw: v }));
    const nd = { uid, parent, name: nodeName(n), type: n.type, kind, path: path + '/' + nodeName(n), children: [], ports, index: offset + uid - 1 };
    if (n.type === 'LookUp') nd.goals = goalTable((n.attrs.find(([k]) => k === 'table') || [])[1]);
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
  paintFileList();
}

// paintFileList draws the sidebar with the open file's trees as edited.
export function paintFileList() {
  if (S.mode === 'edit' && E.doc) paintFiles(E.path, E.doc.trees.map((t) => t.id), E.tree, E.doc.main);
  else paintFiles('', [], -1, '');
}

// showTree shows tree i of the open file.
function showTree(i) {
  if (i === E.tree || !E.doc.trees[i]) return;
  E.tree = i; S.selected = 0;
  editRedraw(true);
}

export function paintProblems() {
  const byNode = new Map();
  for (const p of E.problems) if (p.node >= 0) byNode.set(p.node, (byNode.get(p.node) || []).concat(p.msg));
  for (const nd of S.nodes) {
    const e = L.els[nd.uid - 1];
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

export function typeOf(id) { return E.palette.find((t) => t.id === id); }

export function editSelect(uid) {
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

export function paintInspector() {
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
  if (n.type === 'LookUp') {
    // A LookUp: its table as a table, a row per goal and the tree of the
    // file that achieves it; written back as "goal=Tree; ...".
    kids[0] = h('h3', {}, 'LookUp: goal → tree');
    kids.push(field('goal', t && t.ports.find((p) => p.name === 'goal')));
    kids.push(goalEditor(get('table')));
    shown.add('goal'); shown.add('table');
  }
  for (const p of (t && n.type !== 'SubTree' ? t.ports : [])) { if (shown.has(p.name)) continue; kids.push(field(p.name, p)); shown.add(p.name); }
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

// goalEditor edits a LookUp's table: each row a goal and the tree of the
// file that achieves it, a row added or removed; every change is written
// to the table attribute (typing a goal redraws the node once it is left).
function goalEditor(raw) {
  const rows = goalTable(raw);
  const ids = E.doc.trees.map((tr) => tr.id);
  const write = (redraw) => {
    const text = rows.filter((r) => r.goal || r.tree).map((r) => `${r.goal}=${r.tree}`).join('; ');
    if (redraw) edit(() => setAttrOf(E.specs[S.selected - 1], 'table', text));
    else editAttr('table', text);
  };
  const body = h('tbody', {}, ...rows.map((r, i) => {
    const goal = h('input', { type: 'text', value: r.goal, spellcheck: 'false', 'data-goal-row': i, placeholder: 'goal' });
    goal.addEventListener('input', () => { r.goal = goal.value.trim(); write(false); });
    goal.addEventListener('change', () => { editRedraw(false); });
    const tree = h('select', { 'data-tree-row': i }, ...[...new Set([...ids, r.tree])].filter(Boolean).map((id) => h('option', { value: id }, id)));
    tree.value = r.tree;
    tree.addEventListener('change', () => { r.tree = tree.value; write(true); });
    const del = h('button', { type: 'button', title: 'remove this goal', 'data-del-row': i }, '×');
    del.onclick = () => { rows.splice(i, 1); write(true); };
    return h('tr', {}, h('td', {}, goal), h('td', {}, tree), h('td', {}, del));
  }));
  const add = h('button', { type: 'button', id: 'goal-add', title: 'a goal more: name it, choose its tree' }, '+ goal');
  add.onclick = () => {
    const free = ids.find((id) => id !== E.doc.trees[E.tree].id) || ids[0] || '';
    rows.push({ goal: 'goal' + (rows.length + 1), tree: free });
    write(true);
    const last = $(`#goal-table input[data-goal-row="${rows.length - 1}"]`);
    if (last) { last.focus(); last.select(); }
  };
  return h('div', { class: 'goal-box' }, h('table', { id: 'goal-table' },
    h('thead', {}, h('tr', {}, h('th', {}, 'goal'), h('th', {}, 'tree'), h('th', {}, ''))), body), add);
}

// setAttrOf sets (or, with '', removes) attribute name of node spec n.
function setAttrOf(n, name, value) {
  if (!n) return;
  const i = n.attrs.findIndex((x) => x[0] === name);
  if (value === '') { if (i >= 0) n.attrs.splice(i, 1); } else if (i >= 0) n.attrs[i][1] = value; else n.attrs.push([name, value]);
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

export function edit(f) {
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


function editAttr(name, value) {
  const n = E.specs[S.selected - 1];
  if (!n) return;
  if (readOnly()) { paintInspector(); return; }
  E.editedAt = E.editedAt || performance.now();
  // Typing in one field is one undo step.
  const now = Date.now();
  if (now - E.attrUndoAt > 800) { E.undo.push(snapshot()); E.redo = []; $('#btn-undo').disabled = false; $('#btn-redo').disabled = true; }
  E.attrUndoAt = now;
  const i = n.attrs.findIndex((x) => x[0] === name);
  if (value === '' && name !== 'ID') { if (i >= 0) n.attrs.splice(i, 1); }
  else if (i >= 0) n.attrs[i][1] = value;
  else n.attrs.push([name, value]);
  S.nodes = editNodes();
  const nd = S.nodes[S.selected - 1], e = L.els[S.selected - 1];
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


// newNode is a node of the type, with its required input ports; for
// "SubTree:ID" (the palette's Subtrees group), a SubTree node running
// tree ID with a remapping field for each of that tree's ports.
export function newNode(typeID) {
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
export function insertNode(n) {
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
export function scheduleCheck() {
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
  requestAnimationFrame(() => setTimeout(() => stats.checks.push(performance.now() - editedAt), 0));
}

async function save() {
  // The save is checked too: a check still to come would only repeat it.
  E.checkSeq++; E.checkAgain = false;
  E.editedAt = 0;
  const r = await api('api/save', { path: E.path, doc: E.doc, ...runTarget() }).catch((e) => ({ error: e.message }));
  if (r.error) { $('#edit-state').textContent = 'not saved: ' + r.error; return; }
  E.problems = r.problems;
  paintProblems();
  refreshFiles().then(paintFileList).catch(() => {});
  $('#edit-state').textContent = r.problems.length ? `saved, with ${r.problems.length} problem${r.problems.length > 1 ? 's' : ''}` : 'saved';
}

export function paintPalette() {
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

export function initEditor() {
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
    await refreshFiles().catch(() => {});
    openFile(r.path);
  };
  $('#edit-tree').onchange = () => showTree(+$('#edit-tree').value);
  F.open = openFile; F.show = showTree;
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
