// dragdrop.js: a node type dragged from the palette, or a node of the tree
// dragged by the pointer, is dropped on a node of the tree: on its left
// quarter it goes before that node, on its right quarter after it,
// elsewhere into it as its last child (before or after it, by half, when
// it takes no children). Dropped on an empty tree, a palette type becomes
// its root. Each drop is one edit: undo restores the tree as it was.

import { $ } from './dom.js';
import { S } from './state.js';
import { L } from './layout.js';
import { E, edit, editSelect, insertNode, newNode, typeOf } from './editor.js';

const D = {
  drag: null, // a node of the tree being dragged: {uid, x, y, moving}
  dropMark: '', // the node and place marked as where a drop goes
};

export function takesChildren(n) {
  const t = typeOf(n.type);
  return t ? t.max_children !== 0 : n.type !== 'SubTree';
}

// dropPlace says where a drop at clientX on node uid puts what is dropped:
// 'before', 'after' or 'into'; '' where nothing may go.
function dropPlace(uid, clientX) {
  const e = L.els[uid - 1], n = E.specs[uid - 1];
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

// parentOf finds the spec holding node uid, and its index there.
export function parentOf(uid) {
  const nd = S.nodes[uid - 1];
  if (!nd || !nd.parent) return null;
  const parent = E.specs[nd.parent - 1];
  return { parent, i: parent.children.indexOf(E.specs[uid - 1]), puid: nd.parent };
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
  if (D.dropMark === key) return;
  for (const g of document.querySelectorAll('g.node.drop')) g.classList.remove('drop', 'drop-before', 'drop-after', 'drop-into');
  D.dropMark = key;
  const e = uid && L.els[uid - 1];
  if (e && where) e.g.classList.add('drop', 'drop-' + where);
}

export function nodeAt(x, y) {
  const g = document.elementFromPoint(x, y)?.closest('g.node');
  return g ? +g.dataset.uid : 0;
}

export function startNodeDrag(uid, e) {
  D.drag = { uid, x: e.clientX, y: e.clientY, moving: false };
}

export function initDragDrop() {
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
    const d = D.drag;
    if (!d) return;
    if (!d.moving && Math.abs(e.clientX - d.x) + Math.abs(e.clientY - d.y) > 4) { d.moving = true; svg.classList.add('moving'); }
    if (!d.moving) return;
    const uid = nodeAt(e.clientX, e.clientY);
    markDrop(uid, uid && !inSubtree(uid, d.uid) ? dropPlace(uid, e.clientX) : '');
  });
  window.addEventListener('pointerup', (e) => {
    const d = D.drag;
    D.drag = null;
    svg.classList.remove('moving');
    markDrop(0, '');
    if (!d || !d.moving) return;
    const uid = nodeAt(e.clientX, e.clientY);
    if (uid && uid !== d.uid) moveTo(d.uid, uid, dropPlace(uid, e.clientX));
  });
}
