package skills

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/google/uuid"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// GraphSemaphores is a runtime.SemaphoreTable shared by every process on a
// ROS graph: the Semaphore nodes of robots run by different processes
// share a resource's slots (a dock, a lift, a narrow corridor) as the trees
// of one process share a runtime.Semaphores.
//
// The protocol is Lamport's mutual exclusion over one topic
// (DefaultSemaphoreTopic, std_msgs/String holding JSON, readable with
// `rostopic echo`). Every participant — one per connection — says its whole
// state on the topic when it changes and every Beat: the slots it holds and
// the requests it waits with, each stamped with its Lamport clock when it
// was made. A waiting request gets a slot when fewer than capacity hold one,
// no request ordered before it (stamp, then participant, then request)
// waits, the participant has listened for a Lease since it joined, and every
// live peer has said a clock later than the request's stamp — so no earlier
// request of a peer can still be on its way.
//
// A peer silent for a Lease is gone: its slots come back to the others a
// Lease after its last word (plus a Beat at most). A participant that closes
// says so and its slots come back at once. The price of the bound is the
// usual one: a holder cut off from the others for a Lease while it goes on
// holding shares the resource with whoever comes next.
type GraphSemaphores struct {
	conf GraphSemaphoresConf
	id   string // this participant, in every message

	mu      sync.Mutex
	clock   uint64 // Lamport
	serial  uint64 // requests made here
	joined  time.Time
	pub     *ros.Publisher
	sub     *ros.Subscription
	mine    map[*runtime.SemaphoreHolder]*semEntry
	peers   map[string]*semPeer
	quit    chan struct{}
	done    chan struct{}
	closed  bool
	lastErr error
}

// DefaultSemaphoreTopic is the topic GraphSemaphores share.
const DefaultSemaphoreTopic = "/btrobot/semaphores"

// GraphSemaphoresConf configures GraphSemaphores.
type GraphSemaphoresConf struct {
	Conn *ros.Conn
	// Topic [DefaultSemaphoreTopic].
	Topic string
	// Beat is how often a participant says its state [250 ms]; Lease how
	// long a silent peer counts as alive [2 s]; Listen how long a
	// participant listens after joining before it takes a slot, to hear
	// the holders [Lease]: longer than the graph takes to connect a new
	// subscriber to the publishers. Wall time.
	Beat, Lease, Listen time.Duration
}

// maxSemaphoreMessage bounds what a peer may send: a larger message, or
// one with more entries, is ignored.
const (
	maxSemaphoreMessage = 64 << 10
	maxSemaphoreEntries = 256
)

type semEntry struct {
	Res     string `json:"res"`
	Cap     int    `json:"cap"`
	Who     string `json:"who"`
	Stamp   uint64 `json:"stamp"`
	Serial  uint64 `json:"serial"`
	Holding bool   `json:"holding,omitempty"`

	peer   string                   // who made it; not on the wire
	holder *runtime.SemaphoreHolder // a local entry's holder
}

type semState struct {
	Peer    string      `json:"peer"`
	Node    string      `json:"node"`
	Clock   uint64      `json:"clock"`
	Entries []*semEntry `json:"entries"`
	Bye     bool        `json:"bye,omitempty"`
}

type semPeer struct {
	state  semState
	heard  time.Time
	newest uint64 // the newest stamp of its requests
}

// NewGraphSemaphores returns the graph's table on conf.Conn. It joins the
// topic on the first request.
func NewGraphSemaphores(conf GraphSemaphoresConf) (*GraphSemaphores, error) {
	if conf.Conn == nil {
		return nil, fmt.Errorf("semaphores: no ROS connection")
	}
	if conf.Topic == "" {
		conf.Topic = DefaultSemaphoreTopic
	}
	if conf.Beat <= 0 {
		conf.Beat = 250 * time.Millisecond
	}
	if conf.Lease <= 0 {
		conf.Lease = 2 * time.Second
	}
	if conf.Listen <= 0 {
		conf.Listen = conf.Lease
	}
	if conf.Lease < 2*conf.Beat {
		return nil, fmt.Errorf("semaphores: a lease of %v is under two beats of %v: live peers would be taken for gone", conf.Lease, conf.Beat)
	}
	return &GraphSemaphores{conf: conf, id: uuid.NewString(), mine: map[*runtime.SemaphoreHolder]*semEntry{}, peers: map[string]*semPeer{}}, nil
}

// Join joins the topic now rather than at the first request, so that the
// listening is over by then.
func (g *GraphSemaphores) Join() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.join()
}

// join subscribes and starts saying the state; under g.mu.
func (g *GraphSemaphores) join() error {
	if g.pub != nil {
		return nil
	}
	if g.closed {
		return fmt.Errorf("semaphores: closed")
	}
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: g.conf.Conn, Topic: g.conf.Topic, Msg: &std_msgs.String{}})
	if err != nil {
		return fmt.Errorf("semaphores: %w", err)
	}
	sub, err := ros.Subscribe(g.conf.Conn, g.conf.Topic, g.receive)
	if err != nil {
		pub.Close()
		return fmt.Errorf("semaphores: %w", err)
	}
	g.pub, g.sub, g.joined = pub, sub, time.Now()
	g.quit, g.done = make(chan struct{}), make(chan struct{})
	go g.beat()
	return nil
}

func (g *GraphSemaphores) beat() {
	defer close(g.done)
	t := time.NewTicker(g.conf.Beat)
	defer t.Stop()
	for {
		select {
		case <-g.quit:
			return
		case <-t.C:
			g.mu.Lock()
			g.sayLocked()
			wake := g.wakeLocked()
			g.mu.Unlock()
			callAll(wake)
		}
	}
}

// sayLocked publishes this participant's state.
func (g *GraphSemaphores) sayLocked() {
	if err := g.pub.Publish(g.stateLocked(false)); err != nil {
		g.lastErr = err
	}
}

// stateLocked is this participant's state as a message; a goodbye holds
// no entries.
func (g *GraphSemaphores) stateLocked(bye bool) *std_msgs.String {
	g.clock++
	st := semState{Peer: g.id, Node: g.conf.Conn.Name(), Clock: g.clock, Bye: bye}
	if !bye {
		for _, e := range g.mine {
			st.Entries = append(st.Entries, e)
		}
		slices.SortFunc(st.Entries, compareEntries)
	}
	b, _ := json.Marshal(st) // strings, numbers and booleans only
	return &std_msgs.String{Data: string(b)}
}

func (g *GraphSemaphores) receive(m *std_msgs.String) {
	if len(m.Data) > maxSemaphoreMessage {
		return
	}
	var st semState
	if err := json.Unmarshal([]byte(m.Data), &st); err != nil || st.Peer == "" || len(st.Entries) > maxSemaphoreEntries {
		return
	}
	g.mu.Lock()
	if st.Peer == g.id || g.closed {
		g.mu.Unlock()
		return
	}
	g.clock = max(g.clock, st.Clock) + 1
	if st.Bye {
		delete(g.peers, st.Peer)
	} else {
		var newest uint64
		if p := g.peers[st.Peer]; p != nil {
			newest = p.newest
		}
		ack := false
		for _, e := range st.Entries {
			e.peer = st.Peer
			if e.Stamp > newest {
				newest, ack = e.Stamp, true
			}
		}
		g.peers[st.Peer] = &semPeer{state: st, heard: time.Now(), newest: newest}
		if ack && g.pub != nil {
			// A new request: say a later clock at once, so that its
			// maker need not wait for the next beat.
			g.sayLocked()
		}
	}
	wake := g.wakeLocked()
	g.mu.Unlock()
	callAll(wake)
}

func callAll(fs []func()) {
	for _, f := range fs {
		f()
	}
}

// livePeersLocked returns the peers heard within the lease, forgetting the
// others.
func (g *GraphSemaphores) livePeersLocked(now time.Time) []*semPeer {
	var out []*semPeer
	for id, p := range g.peers {
		if now.Sub(p.heard) > g.conf.Lease {
			delete(g.peers, id)
			continue
		}
		out = append(out, p)
	}
	return out
}

// entriesLocked returns every live entry of res: the peers' and this
// participant's.
func (g *GraphSemaphores) entriesLocked(res string, peers []*semPeer) []*semEntry {
	var out []*semEntry
	for _, p := range peers {
		for _, e := range p.state.Entries {
			if e.Res == res {
				out = append(out, e)
			}
		}
	}
	for _, e := range g.mine {
		if e.Res == res {
			out = append(out, e)
		}
	}
	return out
}

func compareEntries(a, b *semEntry) int {
	return cmp.Or(cmp.Compare(a.Stamp, b.Stamp), cmp.Compare(a.peer, b.peer), cmp.Compare(a.Serial, b.Serial))
}

// grantableLocked reports whether e, a local waiting entry, may take a
// slot now.
func (g *GraphSemaphores) grantableLocked(e *semEntry, now time.Time) bool {
	if now.Sub(g.joined) < g.conf.Listen {
		return false // still listening for the holders
	}
	peers := g.livePeersLocked(now)
	for _, p := range peers {
		if p.state.Clock <= e.Stamp {
			return false // an earlier request of p may be on its way
		}
	}
	var holding int
	var waiting []*semEntry
	for _, x := range g.entriesLocked(e.Res, peers) {
		if x.Holding {
			holding++
		} else {
			waiting = append(waiting, x)
		}
	}
	slices.SortFunc(waiting, compareEntries)
	free := e.Cap - holding
	i := slices.Index(waiting, e)
	return i >= 0 && i < free
}

// wakeLocked returns the wakes of the local waiters whose turn has come.
func (g *GraphSemaphores) wakeLocked() []func() {
	now := time.Now()
	var out []func()
	for h, e := range g.mine {
		if !e.Holding && h.Wake != nil && g.grantableLocked(e, now) {
			out = append(out, h.Wake)
		}
	}
	return out
}

// Request implements runtime.SemaphoreTable.
func (g *GraphSemaphores) Request(name string, capacity int, h *runtime.SemaphoreHolder) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.join(); err != nil {
		return false, err
	}
	now := time.Now()
	for _, x := range g.entriesLocked(name, g.livePeersLocked(now)) {
		if x.Cap != capacity {
			return false, fmt.Errorf("semaphore %s has capacity %d (%s says so), not %d: every holder must ask the same", name, x.Cap, x.Who, capacity)
		}
	}
	g.clock++
	g.serial++
	e := &semEntry{Res: name, Cap: capacity, Who: h.Who, Stamp: g.clock, Serial: g.serial, peer: g.id, holder: h}
	g.mine[h] = e
	e.Holding = g.grantableLocked(e, now)
	g.sayLocked()
	return e.Holding, nil
}

// Granted implements runtime.SemaphoreTable.
func (g *GraphSemaphores) Granted(name string, h *runtime.SemaphoreHolder) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.mine[h]
	if e == nil || e.Res != name {
		return false
	}
	if !e.Holding && g.grantableLocked(e, time.Now()) {
		e.Holding = true
		g.sayLocked()
	}
	return e.Holding
}

// Release implements runtime.SemaphoreTable.
func (g *GraphSemaphores) Release(name string, h *runtime.SemaphoreHolder) {
	g.mu.Lock()
	e := g.mine[h]
	if e == nil || e.Res != name {
		g.mu.Unlock()
		return
	}
	delete(g.mine, h)
	if g.pub != nil && !g.closed {
		g.sayLocked()
	}
	wake := g.wakeLocked()
	g.mu.Unlock()
	callAll(wake)
}

// State implements runtime.SemaphoreTable: the holders by name (a peer's
// as it said them), and how many wait before h.
func (g *GraphSemaphores) State(name string, h *runtime.SemaphoreHolder) (holders []string, before int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var waiting []*semEntry
	var held []*semEntry
	for _, x := range g.entriesLocked(name, g.livePeersLocked(time.Now())) {
		if x.Holding {
			held = append(held, x)
		} else {
			waiting = append(waiting, x)
		}
	}
	slices.SortFunc(held, compareEntries)
	for _, x := range held {
		holders = append(holders, x.Who)
	}
	slices.SortFunc(waiting, compareEntries)
	if e := g.mine[h]; e != nil {
		before = max(slices.Index(waiting, e), 0)
	}
	return holders, before
}

// Err returns the last error publishing the state, if any.
func (g *GraphSemaphores) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lastErr
}

// Close says goodbye — the slots held here come back to the others at
// once — and leaves the topic. The tables' holders must not be used after.
func (g *GraphSemaphores) Close() {
	g.leave(true)
}

// leave stops the participant, saying goodbye or (as a process that dies
// would) not.
func (g *GraphSemaphores) leave(bye bool) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	var goodbye *std_msgs.String
	if bye && g.pub != nil {
		goodbye = g.stateLocked(true)
	}
	g.closed = true
	quit, done, pub, sub := g.quit, g.done, g.pub, g.sub
	g.mu.Unlock()
	if quit != nil {
		close(quit)
		<-done
	}
	if goodbye != nil {
		// Handed to the peers' connections before the publisher closes;
		// a peer that misses it lets the slots go a lease later.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = pub.PublishWait(ctx, goodbye)
		cancel()
	}
	if sub != nil {
		sub.Close()
	}
	if pub != nil {
		pub.Close()
	}
}
