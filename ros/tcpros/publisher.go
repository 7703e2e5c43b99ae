package tcpros

// A topic this node publishes: each subscriber that connects gets its own
// bounded queue and its own writer, so a slow one loses its oldest
// messages and one that reads nothing is closed, never holding up the
// others or the publisher.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// PublisherConf describes a topic to publish.
type PublisherConf struct {
	// Topic is the topic's resolved name ("/cmd_vel").
	Topic string
	// Type, MD5 and Definition are the message type's ROS name, MD5 sum
	// and full text, as subscribers check and rospy's AnyMsg needs them.
	Type, MD5, Definition string
	// Latch sends the last message to every subscriber that connects.
	Latch bool
	// Queue bounds the messages waiting for one subscriber (default 64);
	// when it is full the oldest is dropped.
	Queue int
}

// DefaultQueue is the default bound of a subscriber's queue.
const DefaultQueue = 64

// Publisher publishes one topic on a Server.
type Publisher struct {
	srv  *Server
	conf PublisherConf

	mu      sync.Mutex
	subs    map[*subscriberConn]struct{}
	last    []byte // the latched frame
	closed  bool
	dropped uint64
}

// Publish serves the topic conf.Topic on s.
func (s *Server) Publish(conf PublisherConf) (*Publisher, error) {
	if conf.Topic == "" || conf.Type == "" || conf.MD5 == "" {
		return nil, errors.New("tcpros: a publisher needs Topic, Type and MD5")
	}
	if conf.Queue <= 0 {
		conf.Queue = DefaultQueue
	}
	p := &Publisher{srv: s, conf: conf, subs: map[*subscriberConn]struct{}{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("tcpros: the server is closed")
	}
	if _, dup := s.topics[conf.Topic]; dup {
		return nil, fmt.Errorf("tcpros: topic %s is published already", conf.Topic)
	}
	s.topics[conf.Topic] = p
	return p, nil
}

// Publish encodes msg once and queues it for every subscriber; it does not
// wait for any of them.
func (p *Publisher) Publish(msg any) error {
	frame, err := AppendFrame(nil, msg)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("tcpros: publisher of %s is closed", p.conf.Topic)
	}
	if p.conf.Latch {
		p.last = frame
	}
	for sc := range p.subs {
		if sc.push(frame) {
			p.dropped++
		}
	}
	return nil
}

// Subscribers returns the caller IDs of the subscribers connected now: each
// from just before its reply header, from when it gets every message
// published.
func (p *Publisher) Subscribers() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for sc := range p.subs {
		out = append(out, sc.callerID)
	}
	return out
}

// Dropped is the number of messages dropped so far because a subscriber's
// queue was full.
func (p *Publisher) Dropped() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// CloseLinger bounds how long Close waits for the subscribers'
// connections to take what was queued for them.
const CloseLinger = time.Second

// Close stops publishing: what was published before it is written to each
// subscriber's connection (a goodbye published last reaches the peers),
// for CloseLinger at most, and every connection is closed. It returns
// when they are. It may be called more than once, also concurrently.
func (p *Publisher) Close() {
	p.srv.mu.Lock()
	if p.srv.topics[p.conf.Topic] == p {
		delete(p.srv.topics, p.conf.Topic)
	}
	p.srv.mu.Unlock()
	p.mu.Lock()
	p.closed = true
	scs := make([]*subscriberConn, 0, len(p.subs))
	for sc := range p.subs {
		scs = append(scs, sc)
	}
	p.mu.Unlock()
	until := time.Now().Add(CloseLinger)
	for _, sc := range scs {
		sc.close(until)
	}
	for _, sc := range scs {
		<-sc.ended
	}
}

// serve answers a subscriber's header and writes its queue until either
// side closes.
func (p *Publisher) serve(c net.Conn, h Header) {
	s := p.srv
	err := checkType("md5sum", h["md5sum"], p.conf.MD5)
	if err == nil && h["type"] != "" { // rospy's AnyMsg sends type "*"
		err = checkType("type", h["type"], p.conf.Type)
	}
	if err == nil && h["callerid"] == "" {
		err = errors.New("the header has no callerid")
	}
	if err != nil {
		WriteHeader(c, Header{"error": fmt.Sprintf("topic %s: %v", p.conf.Topic, err)})
		return
	}
	// The connection joins the subscribers before the reply: a subscriber
	// that has the reply gets every message published after it (queued
	// meanwhile, written after the header), which is what an action
	// client that waited for its result connection relies on.
	sc := &subscriberConn{c: c, callerID: h["callerid"], queue: make([][]byte, 0, p.conf.Queue), max: p.conf.Queue,
		wake: make(chan struct{}, 1), closing: make(chan struct{}), ended: make(chan struct{})}
	defer close(sc.ended)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if p.last != nil {
		sc.push(p.last)
	}
	p.subs[sc] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.subs, sc)
		p.mu.Unlock()
	}()
	latching := "0"
	if p.conf.Latch {
		latching = "1"
	}
	if err := WriteHeader(c, Header{
		"callerid": s.conf.CallerID, "topic": p.conf.Topic, "type": p.conf.Type, "md5sum": p.conf.MD5,
		"message_definition": p.conf.Definition, "latching": latching,
	}); err != nil {
		return
	}
	c.SetDeadline(time.Time{})
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(h["tcp_nodelay"] == "1")
	}

	// A subscriber sends nothing after its header: read only to learn
	// that it has gone, into a small buffer, whatever it sends.
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		io.CopyBuffer(io.Discard, c, make([]byte, 512))
		c.Close()
	}()
	defer func() { c.Close(); <-gone }()
	for {
		closing := false
		select {
		case <-gone:
			return
		case <-sc.wake:
		case <-sc.closing:
			closing = true
		}
		q := sc.take()
		for _, frame := range q {
			if !sc.write(frame, s.conf.WriteTimeout) {
				return
			}
		}
		sc.giveBack(q)
		if closing {
			return // the publisher is closed: nothing more is queued
		}
	}
}

// subscriberConn is one subscriber's connection and queue.
type subscriberConn struct {
	c        net.Conn
	callerID string
	wake     chan struct{}
	closing  chan struct{} // closed by close: write what is queued and end
	ended    chan struct{} // closed when the writer has ended

	closeOnce sync.Once

	mu    sync.Mutex
	queue [][]byte
	spare [][]byte // the writer's last slice, for the next take
	max   int
	until time.Time // set by close: no write goes on past it
}

// deadline bounds the next write: timeout from now, and never past the
// publisher's close's linger. Under mu, as close sets it: a write's
// deadline set just after close's does not lift it.
func (sc *subscriberConn) deadline(timeout time.Duration) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	d := time.Now().Add(timeout)
	if !sc.until.IsZero() && sc.until.Before(d) {
		d = sc.until
	}
	sc.c.SetWriteDeadline(d)
}

// write writes one frame; it reports false when the subscriber has gone
// or has taken nothing of it for timeout. A subscriber that reads, however
// slowly, is not closed for a frame it takes longer than timeout to read
// (a map of megabytes over a slow link): each timeout in which it took
// some of the frame gives it another. (The kernel wakes a blocked write
// once half of the send buffer has drained: "some" is that much.)
func (sc *subscriberConn) write(frame []byte, timeout time.Duration) bool {
	for {
		sc.deadline(timeout)
		n, err := sc.c.Write(frame)
		switch {
		case err == nil:
			return true
		case n == 0 || !errors.Is(err, os.ErrDeadlineExceeded):
			return false
		}
		frame = frame[n:]
		sc.mu.Lock()
		lingered := !sc.until.IsZero() && !time.Now().Before(sc.until)
		sc.mu.Unlock()
		if lingered { // the publisher's close allows no more
			return false
		}
	}
}

// close has the writer write what is queued, until at most, and end. It
// may be called more than once (the Publisher's Close may be): the first
// call's linger holds.
func (sc *subscriberConn) close(until time.Time) {
	sc.closeOnce.Do(func() {
		sc.mu.Lock()
		sc.until = until
		sc.c.SetWriteDeadline(until)
		sc.mu.Unlock()
		close(sc.closing)
	})
}

// push queues frame and reports whether the oldest was dropped for it.
func (sc *subscriberConn) push(frame []byte) (dropped bool) {
	sc.mu.Lock()
	if len(sc.queue) == sc.max {
		copy(sc.queue, sc.queue[1:])
		sc.queue = sc.queue[:len(sc.queue)-1]
		dropped = true
	}
	sc.queue = append(sc.queue, frame)
	sc.mu.Unlock()
	select {
	case sc.wake <- struct{}{}:
	default:
	}
	return dropped
}

// take returns the queued frames, leaving the queue empty; the writer
// hands the slice back with giveBack, so that the two alternate.
func (sc *subscriberConn) take() [][]byte {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	q := sc.queue
	if sc.spare != nil {
		sc.queue, sc.spare = sc.spare, nil
	} else {
		sc.queue = make([][]byte, 0, sc.max)
	}
	return q
}

func (sc *subscriberConn) giveBack(q [][]byte) {
	clear(q) // the frames may go
	sc.mu.Lock()
	sc.spare = q[:0]
	sc.mu.Unlock()
}
