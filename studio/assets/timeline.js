// timeline.js: the bar at the bottom — the transitions as marks (red for
// failures), the run's own marks (hil's faults and verdicts), and the
// slider that shows an instant of the past (or seeks a recording).

import { $, api, h, fmtMs } from './dom.js';
import { S } from './state.js';
import { schedule } from './monitor.js';

const T = {
  marksDrawn: '', // the span and marks the run's marks were drawn for
};

// span is the time the bar covers, in ms of the run.
function span() {
  if (S.run.kind === 'replay' && S.replay) return [S.replay.first_s * 1000, S.replay.last_s * 1000];
  const first = S.history.length ? S.history[0][4] : 0;
  return [first, Math.max(first + 1, S.now)];
}

export function paintTimeline() {
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
  const marks = S.marks || [], key = `${S.run.id}|${a}|${b}|${marks.length}|${c.width}`;
  if (T.marksDrawn !== key) {
    T.marksDrawn = key;
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

export function initTimeline() {
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
