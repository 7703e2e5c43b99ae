package studio

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/runtime"
)

// maxTimeline bounds the transitions of a recording sent for its
// timeline.
const maxTimeline = 20000

// replay is a recording shown by the studio: its tree rebuilt, its state
// at the cursor (record.Recording.StateAt) sent as a snapshot whenever
// the cursor moves, played at a speed or sought.
type replay struct {
	run    *session
	rec    record.Recording
	tree   *runtime.Tree
	scopes map[string]*runtime.Blackboard
	t0     time.Time // the recording's start
	first  time.Time
	last   time.Time

	mu      sync.Mutex
	at      time.Time
	playing bool
	speed   float64
	state   *record.State
	stop    chan struct{}
	done    chan struct{}
}

func newReplay(s *session, file string) (*replay, error) {
	rec, err := record.Open(file)
	if err != nil {
		return nil, err
	}
	h := rec.Header()
	tree, err := record.BuildTree(h, mission.Nodes())
	if err != nil {
		rec.Close()
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	first, last := rec.Span()
	r := &replay{run: s, rec: rec, tree: tree, scopes: map[string]*runtime.Blackboard{}, t0: h.Start, first: first, last: last,
		speed: 1, stop: make(chan struct{}), done: make(chan struct{})}
	for bb, name := range record.ScopeNames(tree) {
		r.scopes[name] = bb
	}
	if err := r.seek(first); err != nil {
		rec.Close()
		return nil, err
	}
	go r.play()
	return r, nil
}

// seek moves the cursor to at (clamped to the recording) and publishes the
// state there.
func (r *replay) seek(at time.Time) error {
	if at.Before(r.first) {
		at = r.first
	}
	if at.After(r.last) {
		at = r.last
	}
	st, err := r.rec.StateAt(at)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.at, r.state = at, st
	r.writeBlackboard(st)
	data := r.snapshotLocked()
	r.run.hub.publish("snapshot", data)
	r.mu.Unlock()
	return nil
}

// writeBlackboard sets the rebuilt tree's scopes to the recorded values,
// so that a node's ports read them as in a running tree.
func (r *replay) writeBlackboard(st *record.State) {
	for name, bb := range r.scopes {
		for _, k := range bb.Keys() {
			if _, ok := st.Blackboard[name][k]; !ok {
				bb.Unset(k)
			}
		}
		for k, v := range st.Blackboard[name] {
			bb.Unset(k)
			var x any
			if json.Unmarshal(v.Value, &x) == nil && x != nil {
				_ = bb.Set(k, x)
			}
		}
	}
}

// play advances the cursor while playing.
func (r *replay) play() {
	defer close(r.done)
	const step = 100 * time.Millisecond
	t := time.NewTicker(step)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		r.mu.Lock()
		playing, at, speed := r.playing, r.at, r.speed
		r.mu.Unlock()
		if !playing {
			continue
		}
		next := at.Add(time.Duration(float64(step) * speed))
		if !next.Before(r.last) {
			next = r.last
			r.mu.Lock()
			r.playing = false
			r.mu.Unlock()
		}
		_ = r.seek(next)
	}
}

// control is a page's play, pause, speed or seek (offset seconds).
func (r *replay) control(op string, offset, speed float64) error {
	switch op {
	case "play":
		r.mu.Lock()
		if !r.at.Before(r.last) {
			r.at = r.first
		}
		r.playing = true
		r.mu.Unlock()
	case "pause":
		r.mu.Lock()
		r.playing = false
		r.mu.Unlock()
	case "speed":
		if !(speed > 0 && speed <= 1000) {
			return fmt.Errorf("speed %v: want more than 0 and at most 1000", speed)
		}
		r.mu.Lock()
		r.speed = speed
		r.mu.Unlock()
	case "seek":
		if offset < 0 {
			return fmt.Errorf("seek %v: want seconds since the recording's start, not negative", offset)
		}
		r.mu.Lock()
		r.playing = false
		r.mu.Unlock()
		return r.seek(r.t0.Add(time.Duration(offset * float64(time.Second))))
	default:
		return fmt.Errorf("replay: unknown operation %q: want play, pause, speed or seek", op)
	}
	r.mu.Lock()
	data := r.snapshotLocked()
	r.run.hub.publish("snapshot", data)
	r.mu.Unlock()
	return nil
}

// replayInfo is where the cursor is.
type replayInfo struct {
	At      float64 `json:"at_s"`
	First   float64 `json:"first_s"`
	Last    float64 `json:"last_s"`
	Playing bool    `json:"playing"`
	Speed   float64 `json:"speed"`
	Damage  string  `json:"damage,omitempty"`
}

func (r *replay) snapshot() (uint64, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run.hub.current(), r.snapshotLocked()
}

func (r *replay) snapshotLocked() []byte {
	st := r.state
	d := delta{Now: ms(st.At, r.t0), Blackboard: []bbEntry{}, Transitions: []trans{}}
	d.Statuses = make([]string, len(st.Statuses))
	for i, s := range st.Statuses {
		d.Statuses[i] = s.String()
	}
	d.Reasons = st.Reasons
	for name, entries := range st.Blackboard {
		for k, v := range entries {
			d.Blackboard = append(d.Blackboard, bbEntry{Scope: name, Key: k, Type: v.Type, Value: v.Value, shown: show(json.RawMessage(v.Value)), Seq: v.Seq, Stamp: ms(v.Stamp, r.t0)})
		}
	}
	info := replayInfo{At: st.At.Sub(r.t0).Seconds(), First: r.first.Sub(r.t0).Seconds(), Last: r.last.Sub(r.t0).Seconds(), Playing: r.playing, Speed: r.speed}
	if dmg := r.rec.Damage(); dmg != nil {
		info.Damage = dmg.Error()
	}
	d.Extra = map[string]any{"replay": info, "tick": st.Tick}
	data, _ := json.Marshal(d)
	return data
}

// timeline lists the recording's transitions (the first maxTimeline,
// read without reading the rest).
func (r *replay) timeline() ([]trans, error) {
	ts, err := record.FirstTransitions(r.rec, r.first, r.last.Add(time.Microsecond), maxTimeline)
	if err != nil {
		return nil, err
	}
	out := make([]trans, len(ts))
	for i, t := range ts {
		out[i] = trans{N: uint64(i + 1), UID: t.UID, From: t.From, To: t.To, At: ms(t.At, r.t0), Reason: t.Reason}
	}
	return out, nil
}

func (r *replay) close() error {
	select {
	case <-r.stop:
		return errors.New("closed")
	default:
	}
	close(r.stop)
	<-r.done
	return r.rec.Close()
}
