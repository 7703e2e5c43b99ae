package record

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// BuildTree rebuilds a recorded tree from its header's XML against reg
// (a palette that has the recorded node types), so that a display made
// for a running tree shows the recording: its nodes have the recorded
// UIDs and paths, or the error says where they part.
func BuildTree(h Header, reg *runtime.Registry) (*runtime.Tree, error) {
	if h.TreeXML == "" {
		return nil, fmt.Errorf("the recording holds no tree XML")
	}
	doc, err := trees.Parse("the recorded tree", []byte(firstInstances(h.TreeXML)))
	if err != nil {
		return nil, fmt.Errorf("rebuilding the recorded tree: %w", err)
	}
	var main string
	if len(h.Nodes) > 0 {
		main = mainTreeID(h.Nodes[0].Path)
	}
	tree, err := runtime.Build(reg, doc, runtime.BuildConf{Main: main})
	if err != nil {
		return nil, fmt.Errorf("rebuilding the recorded tree: %w", err)
	}
	nodes := tree.Nodes()
	if len(nodes) != len(h.Nodes) {
		return nil, fmt.Errorf("rebuilding the recorded tree: %d nodes, the recording has %d", len(nodes), len(h.Nodes))
	}
	for i, n := range nodes {
		b := runtime.NodeOf(n)
		if want := h.Nodes[i]; want.Path != "" && b.Path() != want.Path {
			return nil, fmt.Errorf("rebuilding the recorded tree: node %d is %s, the recording's is %s", i+1, b.Path(), want.Path)
		}
	}
	return tree, nil
}

// firstInstances keeps the first of the BehaviorTree elements of one ID:
// TreeXML writes a subtree once per instance, as BT.CPP does, and a
// document defines each tree once.
func firstInstances(xml string) string {
	const open, end = "<BehaviorTree ID=\"", "</BehaviorTree>"
	var b strings.Builder
	seen := map[string]bool{}
	for {
		i := strings.Index(xml, open)
		if i < 0 {
			break
		}
		id, _, _ := strings.Cut(xml[i+len(open):], "\"")
		j := strings.Index(xml[i:], end)
		if j < 0 {
			break
		}
		j += i + len(end)
		b.WriteString(xml[:i])
		if !seen[id] {
			b.WriteString(xml[i:j])
		}
		seen[id] = true
		xml = xml[j:]
	}
	b.WriteString(xml)
	return b.String()
}

// PlayConf configures a Player. Zero fields take the defaults in brackets.
type PlayConf struct {
	// Tree is the recorded tree rebuilt (BuildTree): transitions are
	// reported as its nodes', blackboard changes written to its scopes.
	Tree *runtime.Tree
	// Observer receives the transitions (a view.Live), in batches of an
	// instant's as a running tree gives them; OnTick the ticks, after each
	// tick's transitions. A .btlog, which holds no ticks, gets
	// one after each instant that has transitions.
	Observer runtime.Observer
	OnTick   func(runtime.TickReport)
	// From and Until bound what is played [the recording's first instant,
	// its last event]. The state at From is played first, as transitions
	// from IDLE at From.
	From, Until time.Time
	// Speed is recorded seconds per wall second [1]; < 0 plays as fast as
	// possible.
	Speed float64
}

// Player plays a recording through a display made for a running tree.
type Player struct {
	rec    Recording
	conf   PlayConf
	nodes  []*runtime.Base
	scopes map[string]*runtime.Blackboard
	seq    uint64
	// batch holds the transitions of an instant not yet given to the
	// Observer; batched marks their nodes (by uid-1).
	batch   []runtime.Transition
	batched []bool
}

// NewPlayer checks that conf.Tree is the recording's tree. The tree is set
// explaining, and each node is given the reasons it recorded as they are
// played, so that a display reads them as from a running tree
// (runtime.Base.Reason).
func NewPlayer(rec Recording, conf PlayConf) (*Player, error) {
	if conf.Tree == nil {
		return nil, fmt.Errorf("play: no tree")
	}
	h := rec.Header()
	all := conf.Tree.Nodes()
	if len(all) != len(h.Nodes) {
		return nil, fmt.Errorf("play: the tree has %d nodes, the recording %d", len(all), len(h.Nodes))
	}
	conf.Tree.SetExplaining(true)
	p := &Player{rec: rec, conf: conf, scopes: map[string]*runtime.Blackboard{}, batched: make([]bool, len(all))}
	for _, n := range all {
		p.nodes = append(p.nodes, runtime.NodeOf(n))
	}
	for bb, name := range ScopeNames(conf.Tree) {
		p.scopes[name] = bb
	}
	if p.conf.Speed == 0 {
		p.conf.Speed = 1
	}
	return p, nil
}

// playWindow is how much recorded time is read at once.
const playWindow = time.Second

// Play plays the recording from From to Until, paced at Speed, until the
// end or ctx ends (its error then). It writes to the tree's blackboard
// and calls the display on the calling goroutine.
func (p *Player) Play(ctx context.Context) error {
	first, last := p.rec.Span()
	from, until := p.conf.From, p.conf.Until
	if from.IsZero() || from.Before(first) {
		from = first
	}
	if until.IsZero() || until.After(last) {
		until = last
	}
	st, err := p.rec.StateAt(from)
	if err != nil {
		return err
	}
	p.start(st)
	wall0 := time.Now()
	// The state at From holds its events: play what follows.
	for a := from.Add(time.Microsecond); !a.After(until); a = a.Add(playWindow) {
		b := a.Add(playWindow)
		if end := until.Add(time.Microsecond); b.After(end) {
			b = end
		}
		evs, err := p.window(a, b)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			// Skip a stretch without events at once: a recording whose
			// events lie years apart (a clock set wrong, a crafted file)
			// would otherwise take a window per second between them.
			next, ok, err := p.next(b)
			if err != nil {
				return err
			}
			if !ok || next.After(until) {
				break
			}
			a = next.Add(-playWindow)
			continue
		}
		for _, e := range evs {
			if len(p.batch) > 0 && !e.at.Equal(p.batch[0].Time) {
				p.deliver() // an instant's transitions, before waiting for the next
			}
			if err := p.wait(ctx, wall0, e.at.Sub(from)); err != nil {
				p.deliver()
				return err
			}
			p.apply(e)
		}
		p.deliver()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// start plays the state at From: every node not IDLE enters its status.
func (p *Player) start(st *State) {
	for i, s := range st.Statuses {
		p.nodes[i].SetReason(st.Reasons[i])
		if s != runtime.Idle {
			p.add(runtime.Transition{Node: p.nodes[i], From: runtime.Idle, To: s, Time: st.At, Reason: st.Reasons[i]})
		}
	}
	p.deliver()
	for scope, entries := range st.Blackboard {
		for key, v := range entries {
			p.write(scope, key, v.Value)
		}
	}
	if p.conf.OnTick != nil {
		p.seq = st.Tick
		p.conf.OnTick(runtime.TickReport{Seq: max(p.seq, 1), Start: st.At})
	}
}

// event is one recorded event of a window, in the order played.
type event struct {
	at time.Time
	t  *Transition
	c  *Change
	k  *Tick
}

// window reads the events of [a, b) in the order they are played: by
// time, a tick after the transitions and changes it made (a tick is
// played at its end).
func (p *Player) window(a, b time.Time) ([]event, error) {
	ts, err := p.rec.Transitions(a, b)
	if err != nil {
		return nil, err
	}
	cs, err := p.rec.Changes(a, b)
	if err != nil {
		return nil, err
	}
	ks, err := p.rec.Ticks(a, b)
	if err != nil {
		return nil, err
	}
	evs := make([]event, 0, len(ts)+len(cs)+len(ks))
	for i := range ts {
		evs = append(evs, event{at: ts[i].At, t: &ts[i]})
	}
	for i := range cs {
		evs = append(evs, event{at: cs[i].At, c: &cs[i]})
	}
	for i := range ks {
		evs = append(evs, event{at: ks[i].Start.Add(ks[i].Duration), k: &ks[i]})
	}
	slices.SortStableFunc(evs, func(x, y event) int {
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return rank(x) - rank(y)
	})
	if p.rec.Format() == "btlog" {
		// No ticks recorded: one after each instant with transitions.
		out := make([]event, 0, 2*len(evs))
		for i, e := range evs {
			out = append(out, e)
			if i+1 == len(evs) || !evs[i+1].at.Equal(e.at) {
				out = append(out, event{at: e.at, k: &Tick{Start: e.at}})
			}
		}
		evs = out
	}
	return evs, nil
}

// next returns the time of the first event at or after t, if the
// recording can say (both of this package's formats can).
func (p *Player) next(t time.Time) (time.Time, bool, error) {
	type nexter interface {
		nextEvent(t time.Time) (time.Time, bool, error)
	}
	if n, ok := p.rec.(nexter); ok {
		return n.nextEvent(t)
	}
	return t, true, nil
}

func rank(e event) int {
	if e.k != nil {
		return 1
	}
	return 0
}

// wait sleeps until recorded offset d is due at Speed.
func (p *Player) wait(ctx context.Context, wall0 time.Time, d time.Duration) error {
	if p.conf.Speed < 0 {
		return nil
	}
	due := wall0.Add(time.Duration(float64(d) / p.conf.Speed))
	wait := time.Until(due)
	if wait <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (p *Player) apply(e event) {
	switch {
	case e.t != nil:
		i := int(e.t.UID) - 1
		if i < 0 || i >= len(p.nodes) {
			return
		}
		if e.t.To == runtime.Success || e.t.To == runtime.Failure {
			if p.batched[i] {
				// The Observer reads the node's reason as it was at
				// the node's transition already batched.
				p.deliver()
			}
			p.nodes[i].SetReason(e.t.Reason)
		}
		p.add(runtime.Transition{Node: p.nodes[i], From: e.t.From, To: e.t.To, Time: e.t.At, Reason: e.t.Reason})
	case e.c != nil:
		p.deliver()
		p.write(e.c.Scope, e.c.Key, e.c.Value)
	case e.k != nil:
		p.deliver()
		if p.seq++; e.k.Seq > 0 {
			p.seq = e.k.Seq
		}
		if p.conf.OnTick != nil {
			p.conf.OnTick(runtime.TickReport{Seq: p.seq, Start: e.k.Start, Lateness: e.k.Lateness, Duration: e.k.Duration, Early: e.k.Early, Status: e.k.Status})
		}
	}
}

// add batches a transition for the Observer.
func (p *Player) add(t runtime.Transition) {
	if p.conf.Observer == nil {
		return
	}
	p.batch = append(p.batch, t)
	p.batched[t.Node.UID()-1] = true
}

// deliver gives the Observer the transitions batched.
func (p *Player) deliver() {
	if len(p.batch) == 0 {
		return
	}
	p.conf.Observer.OnTransitions(p.batch)
	for i := range p.batch {
		p.batched[p.batch[i].Node.UID()-1] = false
	}
	clear(p.batch)
	p.batch = p.batch[:0]
}

// write sets a recorded value (JSON; nil removes the entry) in a scope of
// the tree, as the JSON decodes: numbers as float64.
func (p *Player) write(scope, key string, raw []byte) {
	bb := p.scopes[scope]
	if bb == nil {
		return
	}
	bb.Unset(key)
	if raw == nil {
		return
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		v = string(raw)
	}
	bb.Set(key, v) // an untyped fresh entry: a recorded value always fits
}

// Snapshot is a State for scripts: nodes by UID and path, the blackboard
// as recorded JSON.
type Snapshot struct {
	At time.Time `json:"at"`
	// Offset is seconds since the recording's first instant.
	Offset     float64                               `json:"offset_s"`
	Tick       uint64                                `json:"tick"`
	Nodes      []SnapshotNode                        `json:"nodes"`
	Blackboard map[string]map[string]json.RawMessage `json:"blackboard,omitempty"`
}

// SnapshotNode is one node in a Snapshot.
type SnapshotNode struct {
	UID    uint32 `json:"uid"`
	Path   string `json:"path"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// Snapshot names the state's nodes with h's paths.
func (s *State) Snapshot(h Header) Snapshot {
	out := Snapshot{At: s.At, Offset: s.At.Sub(h.Start).Seconds(), Tick: s.Tick, Nodes: make([]SnapshotNode, len(s.Statuses))}
	for i, st := range s.Statuses {
		n := SnapshotNode{UID: uint32(i + 1), Status: st.String(), Reason: s.Reasons[i]}
		if i < len(h.Nodes) {
			n.Path = h.Nodes[i].Path
		}
		out.Nodes[i] = n
	}
	if s.Blackboard != nil {
		out.Blackboard = map[string]map[string]json.RawMessage{}
		for scope, entries := range s.Blackboard {
			m := map[string]json.RawMessage{}
			for k, v := range entries {
				m[k] = v.Value
			}
			out.Blackboard[scope] = m
		}
	}
	return out
}

// ParseInstant reads an instant of a recording that started at start: an
// offset in seconds ("12.5") or as a Go duration ("1m30s") from start, or
// a time in RFC 3339.
func ParseInstant(s string, start time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 {
		return start.Add(time.Duration(f * float64(time.Second))), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return start.Add(d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q: want seconds since the recording's start (12.5), a duration (1m30s) or an RFC 3339 time", s)
}
