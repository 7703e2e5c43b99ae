// server.js: the mission server the studio watches (btrobot serve --ui)
// — its state and since when, the goal that runs, the queue, the goals'
// history newest first — live over the server's own event stream (one
// event a change, at most ten a second; no polling). Pause, resume and
// cancel act through the server's own code when control is allowed; a
// goal's recording opens as a replay of the studio.

import { $, api, refused, h, fmtMs } from './dom.js';

// SV is what the page knows of the server (window.studio.server).
export const SV = { view: null, control: false, runs: 0, events: 0 };

let hooks = { runs() {}, open() {} };

// initServer shows the panel and follows the server's events. runs(n)
// is told when the studio's runs change; open(id) opens a run.
export function initServer(h0) {
  hooks = h0;
  $('#server-box').hidden = false;
  const es = new EventSource('api/server/events');
  const on = (e) => {
    SV.events++;
    const d = JSON.parse(e.data);
    SV.view = d.server; SV.control = d.control;
    paint();
    if (d.runs !== SV.runs) { SV.runs = d.runs; hooks.runs(d.runs); }
  };
  es.addEventListener('snapshot', on);
  es.addEventListener('server', on);
  // The age beside "since" is the page's own arithmetic: it is redrawn
  // each second without asking the server.
  setInterval(() => { const a = $('#server-since-ago'); if (a && SV.view) a.textContent = ago(SV.view.since); }, 1000);
}

const clock = (t) => new Date(t).toLocaleTimeString();
const ago = (t) => fmtMs(Math.max(0, Date.now() - new Date(t).getTime()));

async function act(op, goal) {
  try { await api('api/server/control', { op, goal }); } catch (e) { refused(e); }
}

// payload folds a goal's payload: its size shown, the YAML on a click.
function payload(g) {
  if (!g.payload) return h('span', { class: 'muted' }, 'no payload');
  const cut = g.payload_bytes > g.payload.length - 1 && g.payload.endsWith('…') ? ', shown cut' : '';
  return h('details', { class: 'payload' }, h('summary', {}, `payload · ${g.payload_bytes} bytes${cut}`), h('pre', {}, g.payload));
}

function stateLine(v) {
  if (v.state === 'idle') return 'idle';
  if (!v.mission) return `${v.state} (no mission runs: the next goal starts paused)`;
  return `${v.state} ${v.mission} · goal ${v.goal}`;
}

function paint() {
  const v = SV.view;
  if (!v) return;
  const st = $('#server-state');
  st.dataset.state = v.state;
  st.replaceChildren(h('b', { class: 'sv-' + v.state }, stateLine(v)), ` since ${clock(v.since)} (`, h('span', { id: 'server-since-ago' }, ago(v.since)), ')');
  const ctl = $('#server-control');
  ctl.hidden = !SV.control;
  if (SV.control) {
    ctl.replaceChildren(
      h('button', { id: 'server-pause', onclick: () => act('pause') }, 'Pause server'),
      h('button', { id: 'server-resume', onclick: () => act('resume') }, 'Resume server'),
      v.running ? h('button', { id: 'server-cancel', onclick: () => act('cancel', v.running.goal) }, `Cancel goal ${v.running.goal}`) : '');
    $('#server-pause').disabled = v.state === 'paused';
    $('#server-resume').disabled = v.state !== 'paused';
  }
  $('#server-running').replaceChildren(...(v.running ? [h('span', {}, `goal ${v.running.goal} · ${v.running.mission} · preempt ${v.running.preempt} `), payload(v.running)] : []));
  $('#server-counts').textContent = `${v.accepted} accepted · ${v.rejected} rejected · a goal naming no preempt: ${v.preempt}` +
    (v.recording ? ' · every goal recorded' : '') + (v.last_reload_error ? ` · last reload refused: ${v.last_reload_error}` : '');
  $('#server-queue').replaceChildren(...(v.queue.length ? v.queue.map((q, i) => h('li', { 'data-goal': q.goal },
    `${i + 1}. goal ${q.goal} · ${q.mission} · preempt ${q.preempt} `, payload(q),
    SV.control ? h('button', { onclick: () => act('cancel', q.goal) }, 'Cancel') : '')) : [h('li', { class: 'muted' }, 'no goal waits')]));
  $('#server-history').replaceChildren(...(v.history.length ? v.history.map(ended) : [h('li', { class: 'muted' }, 'no goal has ended yet')]));
}

// ended is one goal of the history: outcome, why, how long, its recording.
function ended(e) {
  const head = h('div', { class: 'sv-head' },
    h('span', { class: 'outcome o-' + e.outcome }, e.outcome), ' ',
    h('b', {}, e.goal ? `goal ${e.goal} · ${e.mission}` : e.mission || '(no mission named)'),
    e.duration_s ? h('span', { class: 'muted' }, ` · ${fmtMs(e.duration_s * 1000)}`) : '',
    e.error_code ? h('span', { class: 'code' }, ` error_code ${e.error_code}`) : '',
    h('span', { class: 'muted' }, ` · ${clock(e.at)}`));
  const kids = [head];
  if (e.explanation && e.explanation.length) kids.push(h('ol', { class: 'why' }, ...e.explanation.map((l) => h('li', {}, l))));
  const row = h('div', { class: 'sv-row' }, payload(e));
  if (e.recording) {
    row.append(h('button', { class: 'replay', title: e.recording, onclick: async () => {
      try { const r = await api('api/server/recording', { goal: e.goal }); await hooks.open(r.run); } catch (err) { refused(err); }
    } }, 'Replay'));
  }
  kids.push(row);
  return h('li', { 'data-goal': e.goal, 'data-outcome': e.outcome }, ...kids);
}
