// dom.js: the page's small helpers — an element by selector, SVG and
// HTML elements made in one call, the server's JSON API, durations.

export const $ = (s) => document.querySelector(s);
export const SVGNS = 'http://www.w3.org/2000/svg';

export async function api(path, body) {
  const opt = body === undefined ? {} : { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  const r = await fetch(path, opt);
  if (!r.ok) throw new Error(await r.text());
  return r.json();
}

// refused says in the header why the server refused an action (an alert
// would block the page, and with it the stream it draws).
export function refused(err) {
  const c = $('#conn');
  c.textContent = 'refused: ' + (err.message || err);
  c.className = 'conn bad';
}

export function el(tag, attrs = {}, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

export function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

export function fmtMs(v) {
  if (v < 1000) return `${v.toFixed(0)} ms`;
  if (v < 60000) return `${(v / 1000).toFixed(1)} s`;
  return `${Math.floor(v / 60000)} min ${((v % 60000) / 1000).toFixed(0)} s`;
}
