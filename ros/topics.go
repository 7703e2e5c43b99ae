package ros

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"
)

// A goroslib node may subscribe to and publish on a topic only once, so a
// Conn keeps one subscriber and one publisher per topic and shares them
// among the bridge, the tree's ROS leaves and the simulator.

// messageType returns the struct type of a message given as a value, a
// pointer or a reflect.Type.
func MessageGoType(msg any) (reflect.Type, error) {
	var t reflect.Type
	switch x := msg.(type) {
	case reflect.Type:
		t = x
	case MessageType:
		t = x.Go
	default:
		t = reflect.TypeOf(msg)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("a message is a struct, not %v", reflect.TypeOf(msg))
	}
	return t, nil
}

// SubscriberConf configures NewSubscriber.
type SubscriberConf struct {
	Conn *Conn
	// Topic as written: relative, private or global; it is resolved and
	// remapped by the Conn.
	Topic string
	// Msg is the message type: a value, a pointer or a MessageType.
	Msg any
	// Callback, when set, is called with a pointer to every message, on a
	// goroutine of the connection. Messages are shared among subscribers:
	// do not modify them.
	Callback func(msg any)
}

// Subscription is one user's share of a topic subscription.
type Subscription struct {
	ts   *topicSub
	id   int
	once sync.Once
}

// NewSubscriber subscribes to a topic. Subscribing twice to one topic with
// the same type shares one ROS subscriber; another type is an error.
func NewSubscriber(conf SubscriberConf) (*Subscription, error) {
	if conf.Conn == nil {
		return nil, fmt.Errorf("subscribe to %s: no ROS connection", conf.Topic)
	}
	t, err := MessageGoType(conf.Msg)
	if err != nil {
		return nil, fmt.Errorf("subscribe to %s: %v", conf.Topic, err)
	}
	var cb func(any, time.Time)
	if conf.Callback != nil {
		cb = func(m any, _ time.Time) { conf.Callback(m) }
	}
	return conf.Conn.subscribe(conf.Topic, t, cb)
}

// Subscribe subscribes to a topic of message type T and calls cb (if not
// nil) with every message, on a goroutine of the connection.
func Subscribe[T any](c *Conn, topic string, cb func(*T)) (*Subscription, error) {
	var f func(any, time.Time)
	if cb != nil {
		f = func(m any, _ time.Time) { cb(m.(*T)) }
	}
	if c == nil {
		return nil, fmt.Errorf("subscribe to %s: no ROS connection", topic)
	}
	return c.subscribe(topic, reflect.TypeFor[T](), f)
}

// Topic returns the resolved topic name.
func (s *Subscription) Topic() string { return s.ts.topic }

// Newest returns a pointer to the newest message received (nil before the
// first), when it was received on the connection's clock, and how many
// messages came so far.
func (s *Subscription) Newest() (msg any, at time.Time, count uint64) { return s.ts.newest() }

// Inject hands msg (a pointer of the topic's type) to the subscription as
// if it had come on its topic: it becomes the newest and the callbacks get
// it. For benchmarks and tests that feed a subscriber without a publisher.
func (s *Subscription) Inject(msg any) { s.ts.receive(msg) }

// Close ends this share of the subscription; the last one unsubscribes.
func (s *Subscription) Close() { s.once.Do(func() { s.ts.conn.unsubscribe(s.ts, s.id) }) }

type topicSub struct {
	conn  *Conn
	topic string
	typ   reflect.Type
	unsub func()

	mu        sync.Mutex
	msg       any
	at        time.Time
	count     uint64
	listeners map[int]func(any, time.Time)
	nextID    int

	// latched is the newest message as of the last LatchTopics.
	latched latchedMsg
}

type latchedMsg struct {
	msg   any
	at    time.Time
	count uint64
}

func (c *Conn) subscribe(topic string, t reflect.Type, cb func(any, time.Time)) (*Subscription, error) {
	if err := CheckName(topic); err != nil {
		return nil, fmt.Errorf("subscribe: topic %v", err)
	}
	name := c.Resolve(topic)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("subscribe to %s: %w", name, errClosed)
	}
	ts := c.subs[name]
	if ts == nil {
		// The first listener is in place before the wire subscribes: a
		// wire may deliver a latched message before subscribe returns.
		ts = &topicSub{conn: c, topic: name, typ: t, listeners: map[int]func(any, time.Time){1: cb}, nextID: 1}
		unsub, err := c.wire.subscribe(name, t, ts.receive)
		if err != nil {
			return nil, fmt.Errorf("subscribe to %s: %w", name, err)
		}
		ts.mu.Lock()
		ts.unsub = unsub
		ts.mu.Unlock()
		c.subs[name] = ts
		return &Subscription{ts: ts, id: 1}, nil
	} else if ts.typ != t {
		return nil, fmt.Errorf("subscribe to %s as %s: the node already subscribes to it as %s", name, c.typeName(t), c.typeName(ts.typ))
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.nextID++
	ts.listeners[ts.nextID] = cb
	return &Subscription{ts: ts, id: ts.nextID}, nil
}

func (c *Conn) typeName(t reflect.Type) string {
	if n, ok := c.msgs.NameOf(t); ok {
		return n
	}
	return t.String()
}

func (c *Conn) unsubscribe(ts *topicSub, id int) {
	c.mu.Lock()
	ts.mu.Lock()
	delete(ts.listeners, id)
	last := len(ts.listeners) == 0
	ts.mu.Unlock()
	if last && !c.closed && c.subs[ts.topic] == ts {
		delete(c.subs, ts.topic)
	} else {
		last = false
	}
	c.mu.Unlock()
	if last {
		ts.close()
	}
}

// receive keeps the newest message and passes it on. It runs on the wire's
// goroutine for the topic.
func (ts *topicSub) receive(msg any) {
	at := ts.conn.clock.Now()
	ts.mu.Lock()
	ts.msg, ts.at = msg, at
	ts.count++
	var cbs []func(any, time.Time)
	for _, cb := range ts.listeners {
		if cb != nil {
			cbs = append(cbs, cb)
		}
	}
	ts.mu.Unlock()
	for _, cb := range cbs {
		cb(msg, at)
	}
}

func (ts *topicSub) newest() (any, time.Time, uint64) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.msg, ts.at, ts.count
}

func (ts *topicSub) close() { ts.conn.unregister("its subscriber of "+ts.topic, ts.unsub) }

// LatchTopics snapshots the newest message of every subscribed topic,
// which each Subscription's Latched then returns: a scan cycle (package
// bridge) latches at the start of every tick, so that everything the tick
// reads of a topic is one message.
func (c *Conn) LatchTopics() {
	c.mu.Lock()
	subs := make([]*topicSub, 0, len(c.subs))
	for _, ts := range c.subs {
		subs = append(subs, ts)
	}
	c.mu.Unlock()
	for _, ts := range subs {
		ts.mu.Lock()
		ts.latched = latchedMsg{ts.msg, ts.at, ts.count}
		ts.mu.Unlock()
	}
}

// Latched returns the message LatchTopics snapshot last (nil before the
// first), when it was received and how many messages had come by then.
func (s *Subscription) Latched() (any, time.Time, uint64) {
	s.ts.mu.Lock()
	defer s.ts.mu.Unlock()
	l := s.ts.latched
	return l.msg, l.at, l.count
}

// PublisherConf configures NewPublisher.
type PublisherConf struct {
	Conn *Conn
	// Topic as written: relative, private or global.
	Topic string
	// Msg is the message type: a value, a pointer or a MessageType.
	Msg any
	// Latch sends the last message to subscribers that connect later.
	Latch bool
}

// Publisher is one user's share of a topic's publisher. Publish never
// blocks: messages go out from a goroutine of the connection, in order.
type Publisher struct {
	tp   *topicPub
	once sync.Once
}

// publishQueue bounds the messages waiting to go out on one topic; when it
// is full the oldest is dropped, as a robot wants the newest command.
const publishQueue = 64

type topicPub struct {
	conn  *Conn
	topic string
	typ   reflect.Type
	latch bool
	pub   wirePublisher
	queue chan outgoing
	quit  chan struct{}
	done  chan struct{}
	refs  int

	mu      sync.Mutex
	dropped uint64
}

type outgoing struct {
	msg  any
	sent chan struct{} // closed once goroslib took the message; may be nil
}

// NewPublisher advertises a topic. Publishing twice on one topic with the
// same type shares one ROS publisher; another type is an error.
func NewPublisher(conf PublisherConf) (*Publisher, error) {
	if conf.Conn == nil {
		return nil, fmt.Errorf("publish on %s: no ROS connection", conf.Topic)
	}
	t, err := MessageGoType(conf.Msg)
	if err != nil {
		return nil, fmt.Errorf("publish on %s: %v", conf.Topic, err)
	}
	return conf.Conn.publisher(conf.Topic, t, conf.Latch)
}

func (c *Conn) publisher(topic string, t reflect.Type, latch bool) (*Publisher, error) {
	if err := CheckName(topic); err != nil {
		return nil, fmt.Errorf("publish: topic %v", err)
	}
	name := c.Resolve(topic)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("publish on %s: %w", name, errClosed)
	}
	tp := c.pubs[name]
	switch {
	case tp == nil:
		pub, err := c.wire.publish(name, t, latch)
		if err != nil {
			return nil, fmt.Errorf("publish on %s: %w", name, err)
		}
		tp = &topicPub{conn: c, topic: name, typ: t, latch: latch, pub: pub,
			queue: make(chan outgoing, publishQueue), quit: make(chan struct{}), done: make(chan struct{})}
		go tp.run()
		c.pubs[name] = tp
	case tp.typ != t:
		return nil, fmt.Errorf("publish on %s as %s: the node already publishes it as %s", name, c.typeName(t), c.typeName(tp.typ))
	case tp.latch != latch:
		return nil, fmt.Errorf("publish on %s: the node already publishes it with latch %v", name, tp.latch)
	}
	tp.refs++
	return &Publisher{tp: tp}, nil
}

// Topic returns the resolved topic name.
func (p *Publisher) Topic() string { return p.tp.topic }

// Dropped returns how many messages were dropped because the queue was full.
func (p *Publisher) Dropped() uint64 {
	p.tp.mu.Lock()
	defer p.tp.mu.Unlock()
	return p.tp.dropped
}

// Publish queues msg (a value or a pointer of the publisher's type) and
// returns at once. The message is copied first, but not the slices it holds:
// do not modify those afterwards.
func (p *Publisher) Publish(msg any) error {
	m, err := p.tp.prepare(msg)
	if err != nil {
		return err
	}
	p.tp.enqueue(outgoing{msg: m})
	return nil
}

// PublishWait is Publish, then waits until the message has been handed to
// the subscribers' connections or ctx ends.
func (p *Publisher) PublishWait(ctx context.Context, msg any) error {
	m, err := p.tp.prepare(msg)
	if err != nil {
		return err
	}
	sent := make(chan struct{})
	p.tp.enqueue(outgoing{msg: m, sent: sent})
	select {
	case <-sent:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("publish on %s: %w", p.tp.topic, ctx.Err())
	}
}

// Close ends this share of the publisher; the last one unadvertises.
func (p *Publisher) Close() { p.once.Do(func() { p.tp.conn.unpublish(p.tp) }) }

func (c *Conn) unpublish(tp *topicPub) {
	c.mu.Lock()
	tp.refs--
	last := tp.refs == 0 && !c.closed && c.pubs[tp.topic] == tp
	if last {
		delete(c.pubs, tp.topic)
	}
	c.mu.Unlock()
	if last {
		tp.close()
	}
}

func (tp *topicPub) prepare(msg any) (any, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || v.Type() != tp.typ {
		return nil, fmt.Errorf("publish on %s: want a %s, got %T", tp.topic, tp.conn.typeName(tp.typ), msg)
	}
	cp := reflect.New(tp.typ)
	cp.Elem().Set(v)
	return cp.Interface(), nil
}

func (tp *topicPub) enqueue(o outgoing) {
	for {
		select {
		case <-tp.quit:
			return
		case tp.queue <- o:
			return
		default:
		}
		select {
		case <-tp.queue: // drop the oldest
			tp.mu.Lock()
			tp.dropped++
			tp.mu.Unlock()
		default:
		}
	}
}

func (tp *topicPub) run() {
	defer close(tp.done)
	for {
		select {
		case <-tp.quit:
			return
		case o := <-tp.queue:
			tp.pub.write(o.msg)
			if o.sent != nil {
				close(o.sent)
			}
		}
	}
}

func (tp *topicPub) close() {
	close(tp.quit)
	<-tp.done
	tp.conn.unregister("its publisher of "+tp.topic, tp.pub.close)
}
