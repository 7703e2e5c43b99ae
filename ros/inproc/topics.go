package inproc

import (
	"fmt"
	"reflect"
	"sync"
)

// topic is a topic's registrations. pubs and subs change under both g.mu
// and mu; Publish reads them under mu alone.
type topic struct {
	name string
	typ  Type

	mu   sync.Mutex
	pubs []*Publisher
	subs []*Subscriber
}

// endpointLocked returns the topic name's topic, made for typ if there is
// none, or an error when typ does not match the topic's.
func (g *Graph) endpointLocked(name string, typ Type, what string) (*topic, error) {
	t := g.topics[name]
	if t == nil {
		t = &topic{name: name, typ: typ}
		g.topics[name] = t
		return t, nil
	}
	if !t.typ.matches(typ) {
		return nil, fmt.Errorf("%s %s as %s: %w: the topic is %s%s", what, name, typ, ErrTypeMismatch, t.typ, goTypes(typ, t.typ))
	}
	return t, nil
}

// goTypes says which Go types differ, when only they do.
func goTypes(a, b Type) string {
	if a.Name == b.Name && a.Go != b.Go {
		return fmt.Sprintf(" (held by Go type %v, not %v)", b.Go, a.Go)
	}
	return ""
}

func (g *Graph) forgetTopicLocked(t *topic) {
	if len(t.pubs) == 0 && len(t.subs) == 0 && g.topics[t.name] == t {
		delete(g.topics, t.name)
	}
}

// PublisherConf configures Node.NewPublisher.
type PublisherConf struct {
	// Topic is the global topic name.
	Topic string
	Type  Type
	// Latch hands the last message published to every subscriber that
	// comes later.
	Latch bool
}

// Publisher publishes on a topic. Publish never blocks on a subscriber.
type Publisher struct {
	node  *Node
	t     *topic
	latch bool

	// Under t.mu:
	last   any // latched: the last message, a copy
	closed bool
	dead   bool
}

// NewPublisher advertises a topic.
func (n *Node) NewPublisher(conf PublisherConf) (*Publisher, error) {
	if err := checkGlobal("topic", conf.Topic); err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	if err := conf.Type.check(); err != nil {
		return nil, fmt.Errorf("publish on %s: %w", conf.Topic, err)
	}
	g := n.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if n.state != nodeLive {
		return nil, fmt.Errorf("publish on %s: %s: %w", conf.Topic, n.conf.Name, ErrNodeClosed)
	}
	t, err := g.endpointLocked(conf.Topic, conf.Type, "publish on")
	if err != nil {
		return nil, err
	}
	p := &Publisher{node: n, t: t, latch: conf.Latch}
	t.mu.Lock()
	t.pubs = append(t.pubs, p)
	t.mu.Unlock()
	n.pubs[p] = struct{}{}
	return p, nil
}

// Topic returns the topic's name.
func (p *Publisher) Topic() string { return p.t.name }

// Publish hands a copy of msg (a value of the topic's Go type, or a pointer
// to one) to every live subscriber of the topic, and returns how many took
// it: the delivery check of a zero velocity. A subscriber whose queue is
// full drops its oldest message for it.
func (p *Publisher) Publish(msg any) (int, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	t := p.t
	if !v.IsValid() || v.Type() != t.typ.Go {
		return 0, fmt.Errorf("publish on %s: want a %s (%v), got %T", t.name, t.typ.Name, t.typ.Go, msg)
	}
	plan, err := planOf(t.typ.Go)
	if err != nil {
		return 0, fmt.Errorf("publish on %s: %w", t.name, err)
	}
	dup := func() any {
		c := reflect.New(t.typ.Go)
		plan.copy(c.Elem(), v)
		return c.Interface()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case p.closed:
		return 0, fmt.Errorf("publish on %s: the publisher is closed", t.name)
	case p.dead:
		return 0, fmt.Errorf("publish on %s: %s: %w", t.name, p.node.conf.Name, ErrNodeClosed)
	}
	if p.latch {
		p.last = dup()
	}
	n := 0
	for _, s := range t.subs {
		if s.push(dup) {
			n++
		}
	}
	return n, nil
}

// Subscribers returns how many live subscribers the topic has.
func (p *Publisher) Subscribers() int {
	p.t.mu.Lock()
	defer p.t.mu.Unlock()
	n := 0
	for _, s := range p.t.subs {
		if s.live() {
			n++
		}
	}
	return n
}

// Peers returns the names of the nodes of the topic's live subscribers, one
// per subscriber: the publisher's connections, as a node's bus information
// lists them.
func (p *Publisher) Peers() []string {
	p.t.mu.Lock()
	defer p.t.mu.Unlock()
	var peers []string
	for _, s := range p.t.subs {
		if s.live() {
			peers = append(peers, s.node.conf.Name)
		}
	}
	return peers
}

// Close unadvertises the topic. It may be called more than once.
func (p *Publisher) Close() {
	n := p.node
	n.g.dropIfLive(n, func() bool { _, ok := n.pubs[p]; return ok }, func() { n.g.unpublishLocked(p) })
}

func (g *Graph) unpublishLocked(p *Publisher) {
	delete(p.node.pubs, p)
	t := p.t
	t.mu.Lock()
	if !p.closed && !p.dead {
		for _, s := range t.subs {
			s.lose(p.node.conf.Name)
		}
	}
	p.closed, p.last = true, nil
	for i, q := range t.pubs {
		if q == p {
			t.pubs = append(t.pubs[:i], t.pubs[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	g.forgetTopicLocked(t)
}

// die marks a killed node's publisher dead, its registration left, and
// tells the topic's subscribers that they lost it.
func (p *Publisher) die() {
	t := p.t
	t.mu.Lock()
	defer t.mu.Unlock()
	p.dead, p.last = true, nil
	for _, s := range t.subs {
		s.lose(p.node.conf.Name)
	}
}

// DefaultQueueSize is a subscriber's queue when SubscriberConf.QueueSize is
// not set.
const DefaultQueueSize = 100

// SubscriberConf configures Node.NewSubscriber.
type SubscriberConf struct {
	// Topic is the global topic name.
	Topic string
	Type  Type
	// QueueSize bounds the messages waiting for the callback; when it is
	// full the oldest is dropped [DefaultQueueSize].
	QueueSize int
	// Callback is called with a pointer to every message, the subscriber's
	// own copy, on the subscriber's goroutine, in order.
	Callback func(msg any)
	// OnPublisherLost, when set, is called on the same goroutine, after the
	// messages queued before, when a publisher of the topic left: it
	// closed, its node closed or was shut down, or died (Node.Kill). It is
	// TCPROS's closed connection; whether the publisher is still
	// registered (Graph.Topics) and answers (Graph.Ping) tells which.
	OnPublisherLost func(node string)
}

// Subscriber receives a topic's messages.
type Subscriber struct {
	node *Node
	t    *topic
	conf SubscriberConf
	wake chan struct{} // a token: something is queued
	quit chan struct{}

	mu      sync.Mutex
	queue   []any // a ring of conf.QueueSize
	head, n int
	dropped uint64
	lost    []string // publishers lost, not yet told
	stopped bool
}

// NewSubscriber subscribes to a topic; the last message of each latched
// publisher comes first.
func (n *Node) NewSubscriber(conf SubscriberConf) (*Subscriber, error) {
	if err := checkGlobal("topic", conf.Topic); err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	if err := conf.Type.check(); err != nil {
		return nil, fmt.Errorf("subscribe to %s: %w", conf.Topic, err)
	}
	if conf.QueueSize <= 0 {
		conf.QueueSize = DefaultQueueSize
	}
	g := n.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if n.state != nodeLive {
		return nil, fmt.Errorf("subscribe to %s: %s: %w", conf.Topic, n.conf.Name, ErrNodeClosed)
	}
	t, err := g.endpointLocked(conf.Topic, conf.Type, "subscribe to")
	if err != nil {
		return nil, err
	}
	s := &Subscriber{node: n, t: t, conf: conf, wake: make(chan struct{}, 1), quit: make(chan struct{}),
		queue: make([]any, conf.QueueSize)}
	t.mu.Lock()
	t.subs = append(t.subs, s)
	for _, p := range t.pubs {
		if p.last != nil {
			last := p.last
			s.push(func() any { c, _ := Copy(last); return c })
		}
	}
	t.mu.Unlock()
	n.subs[s] = struct{}{}
	n.subsWG.Add(1)
	go s.run()
	return s, nil
}

// Topic returns the topic's name.
func (s *Subscriber) Topic() string { return s.t.name }

// Dropped returns how many messages the full queue dropped.
func (s *Subscriber) Dropped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Publishers returns how many live publishers the topic has.
func (s *Subscriber) Publishers() int { return len(s.Peers()) }

// Peers returns the names of the nodes of the topic's live publishers, one
// per publisher: the subscriber's connections, as a node's bus information
// lists them.
func (s *Subscriber) Peers() []string {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	var peers []string
	for _, p := range s.t.pubs {
		if !p.dead {
			peers = append(peers, p.node.conf.Name)
		}
	}
	return peers
}

// Close unsubscribes. Messages still queued are dropped; a callback under
// way finishes (Node.Close waits for it). It may be called more than once,
// and from the callback.
func (s *Subscriber) Close() {
	n := s.node
	n.g.dropIfLive(n, func() bool { _, ok := n.subs[s]; return ok }, func() { n.g.unsubscribeLocked(s) })
}

func (g *Graph) unsubscribeLocked(s *Subscriber) {
	delete(s.node.subs, s)
	t := s.t
	t.mu.Lock()
	for i, q := range t.subs {
		if q == s {
			t.subs = append(t.subs[:i], t.subs[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	s.stop()
	g.forgetTopicLocked(t)
}

// push queues the message dup makes, dropping the oldest when the queue is
// full; false when the subscriber is stopped.
func (s *Subscriber) push(dup func() any) bool {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return false
	}
	size := len(s.queue)
	if s.n == size {
		s.queue[s.head] = nil
		s.head = (s.head + 1) % size
		s.n--
		s.dropped++
	}
	s.queue[(s.head+s.n)%size] = dup()
	s.n++
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

func (s *Subscriber) lose(node string) {
	s.mu.Lock()
	if s.stopped || s.conf.OnPublisherLost == nil {
		s.mu.Unlock()
		return
	}
	s.lost = append(s.lost, node)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Subscriber) live() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.stopped
}

func (s *Subscriber) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.stopped = true
		clear(s.queue)
		s.n = 0
		s.lost = nil
		close(s.quit)
	}
}

// run calls the callback with each message, then tells of lost publishers.
func (s *Subscriber) run() {
	defer s.node.subsWG.Done()
	for {
		select {
		case <-s.quit:
			return
		case <-s.wake:
		}
		for s.next() {
		}
	}
}

// next runs the callback for the next message or lost publisher; false when
// there is none, or the subscriber stopped.
func (s *Subscriber) next() bool {
	{
		{
			s.mu.Lock()
			if s.stopped {
				s.mu.Unlock()
				return false
			}
			var msg any
			var lost string
			switch {
			case s.n > 0:
				msg = s.queue[s.head]
				s.queue[s.head] = nil
				s.head = (s.head + 1) % len(s.queue)
				s.n--
			case len(s.lost) > 0:
				lost = s.lost[0]
				s.lost = s.lost[1:]
			}
			s.mu.Unlock()
			switch {
			case msg != nil:
				if s.conf.Callback != nil {
					s.conf.Callback(msg)
				}
			case lost != "":
				s.conf.OnPublisherLost(lost)
			default:
				return false
			}
			return true
		}
	}
}
