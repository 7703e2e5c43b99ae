// state.js: what the page knows of the run (or file) it shows — the tree,
// each node's status, the blackboard, the loop, the debugger — declared
// here in full; the modules read and write it, none adds to it.

export const MAX_HISTORY = 20000;

export const S = {
  mode: 'run', // 'run' (a live run or a recording) or 'edit' (a file)
  control: false, // the server allows debugging
  runs: [], run: null, es: null, // the runs offered, the one shown, its event stream
  nodes: [], // the tree: {uid, parent, name, type, path, children, ...}, by uid-1
  status: [], reason: [], last: [], since: [], // per node, by uid-1
  history: [], n: 0, // the transitions seen ([n, uid, from, to, at, reason]) and the last n
  bb: new Map(), bbHist: new Map(), // the blackboard entries now, and their recent values
  loop: null, debug: null, end: null, explanation: [], marks: [], replay: null,
  timeline: [], // a recording's transitions
  now: 0, scrub: null, // the run's time; the instant the slider shows (null: now)
  selected: 0, // the uid of the node selected
  dirty: new Set(), // the uids to repaint at the next frame
  unfolded: new Set(), // the blackboard values shown whole (scope/key)
};

// stats is what a test or a benchmark reads: how far behind the tick the
// page is, and when it was first painted.
export const stats = { events: 0, snapshots: 0, lagLast: 0, lagMax: 0, lags: [], applied: 0, firstPaint: 0, checks: [] };

// shownStatus is the statuses at the scrubbed instant, or now: the
// transitions after it are undone, newest first.
export function shownStatus() {
  if (S.scrub === null || !S.run || S.run.kind !== 'live') return S.status;
  const st = S.status.slice();
  for (let i = S.history.length - 1; i >= 0 && S.history[i][4] > S.scrub; i--) st[S.history[i][1] - 1] = S.history[i][2];
  return st;
}

export function shownBlackboard() {
  if (S.scrub === null || S.run.kind !== 'live') return [...S.bb.values()];
  const out = [];
  for (const hist of S.bbHist.values()) {
    let pick = null;
    for (const e of hist) if (e.stamp <= S.scrub) pick = e;
    if (pick) out.push(pick);
  }
  return out;
}
