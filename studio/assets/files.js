// files.js: the editor's file sidebar — the folder's tree files and the
// trees of each, as Groot2's project panel lists them. A click on a file
// opens it (its main tree); its trees are listed under it (the open
// file's as edited now, the others' as saved), a click on one opens it.
// The list follows New and Save, and the open file's trees follow its
// edits (a new subtree shows at once).

import { $, api, h } from './dom.js';
import { S } from './state.js';

export const F = {
  dir: '', files: [], // the folder, and its files as the server last listed them: {path, trees, error}
  unfolded: new Set(), // the files whose trees are shown (the open one always is)
  drawn: '', // what the list was last drawn from
  open: null, // openFile(path, treeID): set by the editor
  show: null, // showTree(index): set by the editor
};

// refreshFiles asks the server for the folder's files again.
export async function refreshFiles() {
  const r = await api('api/files');
  F.dir = r.dir; F.files = r.files; F.drawn = '';
  return r;
}

// paintFiles draws the list, unless nothing it shows changed. path is the
// file open (or ''), trees its trees as edited, current the one shown.
export function paintFiles(path, trees, current, main) {
  const key = JSON.stringify([F.files.length, F.files.map((f) => f.path + ':' + f.trees.join(',')), [...F.unfolded], path, trees, current, main, S.mode]);
  if (key === F.drawn) return;
  F.drawn = key;
  const ul = $('#files');
  const q = $('#file-search').value.trim().toLowerCase();
  const items = [];
  for (const f of F.files) {
    const isOpen = S.mode === 'edit' && f.path === path;
    const ids = isOpen ? trees : f.trees;
    const match = !q || f.path.toLowerCase().includes(q) || ids.some((id) => id.toLowerCase().includes(q));
    if (!match) continue;
    const shown = isOpen || F.unfolded.has(f.path) || (q && ids.some((id) => id.toLowerCase().includes(q)));
    const fold = h('span', { class: 'fold', title: shown ? 'hide its trees' : 'show its trees' }, ids.length ? (shown ? '▾' : '▸') : ' ');
    fold.onclick = (e) => { e.stopPropagation(); if (F.unfolded.has(f.path)) F.unfolded.delete(f.path); else F.unfolded.add(f.path); F.drawn = ''; paintFiles(path, trees, current, main); };
    const name = h('span', { class: 'fname', title: f.error || `open ${f.path}` }, f.path);
    const row = h('div', { class: 'frow' }, fold, name, h('span', { class: 'muted fcount' }, f.error ? 'unreadable' : `${ids.length} tree${ids.length === 1 ? '' : 's'}`));
    row.onclick = () => F.open(f.path);
    const li = h('li', { class: 'file' + (isOpen ? ' open' : '') + (f.error ? ' bad' : ''), 'data-path': f.path }, row);
    if (shown && ids.length) {
      const fileMain = isOpen ? main : f.main;
      li.append(h('ul', { class: 'ftrees' }, ...ids.map((id, i) => {
        const t = h('li', { class: 'ftree' + (isOpen && i === current ? ' current' : ''), 'data-tree': id, title: `open ${id}` }, id + (id === fileMain ? ' (main)' : ''));
        t.onclick = (e) => { e.stopPropagation(); if (isOpen) F.show(i); else F.open(f.path, id); };
        return t;
      })));
    }
    items.push(li);
  }
  if (!items.length) items.push(h('li', { class: 'muted' }, F.files.length ? 'no file or tree matches' : `no tree files in ${F.dir}`));
  ul.replaceChildren(...items);
}

export function initFiles(repaint) {
  $('#file-search').addEventListener('input', () => { F.drawn = ''; repaint(); });
}
