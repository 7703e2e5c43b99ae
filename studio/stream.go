package studio

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Stream sizes: how many events a reconnecting page can catch up on, and
// how many a client may have queued before it is sent a snapshot instead.
const (
	historyEvents       = 256
	historyBytes        = 8 << 20 // and at most this much of them
	clientQueue         = 64
	defaultWriteTimeout = 10 * time.Second
)

// event is one server-sent event: its ID, its name ("snapshot", "delta")
// and its JSON.
type event struct {
	id   uint64
	name string
	data []byte
}

// hub fans a run's events out to its pages. publish never blocks: a page
// whose queue is full is marked lost and gets a snapshot when it reads
// again.
type hub struct {
	mu      sync.Mutex
	seq     uint64
	history []event // the last historyEvents (historyBytes), oldest first
	bytes   int     // in history
	clients map[*client]struct{}
	closed  bool
	had     bool      // a page has connected
	left    time.Time // when the last page left
	// joined receives when a page connects: a pump that sleeps while no
	// page reads wakes.
	joined chan struct{}
	// unread: idle found that no page reads, and none has connected
	// since. Set and cleared under mu, with the clients it is about, so
	// that a page that connects is read for from the next tick on,
	// however late the pump wakes for it (a flag of the pump's own,
	// cleared when it woke, let a tick begun meanwhile go unnoted).
	unread atomic.Bool
}

type client struct {
	ch   chan event
	lost atomic.Bool
}

func newHub() *hub { return &hub{clients: map[*client]struct{}{}, joined: make(chan struct{}, 1)} }

// publish assigns the next ID to an event and queues it for every page.
func (h *hub) publish(name string, data []byte) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	e := event{id: h.seq, name: name, data: data}
	h.history = append(h.history, e)
	h.bytes += len(data)
	drop := 0
	for len(h.history)-drop > historyEvents || h.bytes > historyBytes && len(h.history)-drop > 1 {
		h.bytes -= len(h.history[drop].data)
		drop++
	}
	if drop > 0 {
		n := copy(h.history, h.history[drop:])
		clear(h.history[n:])
		h.history = h.history[:n]
	}
	for c := range h.clients {
		select {
		case c.ch <- e:
		default:
			c.lost.Store(true)
		}
	}
	return e.id
}

// current returns the last ID given.
func (h *hub) current() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}

// since returns the events after id, if the history still holds them all.
func (h *hub) since(id uint64) ([]event, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id > h.seq {
		return nil, false
	}
	if id == h.seq {
		return nil, true
	}
	if len(h.history) == 0 || h.history[0].id > id+1 {
		return nil, false
	}
	var out []event
	for _, e := range h.history {
		if e.id > id {
			out = append(out, e)
		}
	}
	return out, true
}

func (h *hub) subscribe() *client {
	c := &client{ch: make(chan event, clientQueue)}
	h.mu.Lock()
	if !h.closed {
		h.clients[c] = struct{}{}
		h.had = true
		h.unread.Store(false)
		select {
		case h.joined <- struct{}{}:
		default:
		}
	} else {
		close(c.ch)
	}
	h.mu.Unlock()
	return c
}

func (h *hub) unsubscribe(c *client) {
	h.mu.Lock()
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		close(c.ch)
		if len(h.clients) == 0 {
			h.left = time.Now()
		}
	}
	h.mu.Unlock()
}

// idle reports whether no page reads the events and none left within
// grace (one that left longer ago will not resume). Then the caller
// publishes nothing: the history is given up and the IDs move on, so that
// a page naming an old event gets a snapshot, never a gap.
func (h *hub) idle(grace time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) > 0 || h.had && time.Since(h.left) <= grace {
		return false
	}
	h.unread.Store(true)
	h.seq++
	clear(h.history)
	h.history, h.bytes = h.history[:0], 0
	return true
}

// close ends every page's stream.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		delete(h.clients, c)
		close(c.ch)
	}
}

// clients returns how many pages are connected.
func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// serveEvents streams a run's events to one page: the events since its
// Last-Event-ID when the history holds them, else a snapshot, then every
// event as it comes; a page that fell behind gets a snapshot again.
func serveEvents(w http.ResponseWriter, r *http.Request, h *hub, snapshot func() (uint64, []byte), done <-chan struct{}, writeTimeout time.Duration) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	c := h.subscribe()
	defer h.unsubscribe(c)
	var buf []byte
	send := func(e event) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		// One write an event (one chunk on the wire), built in a buffer
		// kept for the stream rather than through fmt.
		buf = strconv.AppendUint(append(buf[:0], "id: "...), e.id, 10)
		buf = append(append(append(buf, "\nevent: "...), e.name...), "\ndata: "...)
		buf = append(append(buf, e.data...), "\n\n"...)
		if _, err := w.Write(buf); err != nil {
			return false
		}
		if cap(buf) > 1<<20 {
			buf = nil // not kept after a snapshot of a huge tree
		}
		fl.Flush()
		return true
	}
	sendSnapshot := func() (uint64, bool) {
		id, data := snapshot()
		return id, send(event{id: id, name: "snapshot", data: data})
	}
	var last uint64
	resumed := false
	if s := r.Header.Get("Last-Event-ID"); s != "" {
		if id, err := strconv.ParseUint(s, 10, 64); err == nil {
			if evs, ok := h.since(id); ok {
				resumed, last = true, id
				for _, e := range evs {
					if !send(e) {
						return
					}
					last = e.id
				}
			}
		}
	}
	if !resumed {
		id, ok := sendSnapshot()
		if !ok {
			return
		}
		last = id
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-done:
			return
		case <-keepAlive.C:
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		case e, ok := <-c.ch:
			if !ok {
				return
			}
			if c.lost.Swap(false) {
				for len(c.ch) > 0 {
					<-c.ch
				}
				id, ok := sendSnapshot()
				if !ok {
					return
				}
				last = id
				continue
			}
			if e.id <= last {
				continue
			}
			if !send(e) {
				return
			}
			last = e.id
		}
	}
}
