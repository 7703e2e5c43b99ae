package ros

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
)

// This file holds the peer's half of the simulator's lockstep (the
// simulator's half is in sim/simnode). A ROS graph gives no ordering between
// topics and no acknowledgement of a message, so a simulator that runs as
// fast as its slowest listener needs the listeners to say when they are
// done. A lockstep peer publishes std_msgs/Header on LockstepTopic:
//
//	frame_id  the peer's node name, which identifies it
//	stamp     the ROS time the simulator may run to: it stops at the first
//	          physics step at or after stamp and waits there, having
//	          published /clock, until the peer sends a later stamp
//	seq       how many messages the peer has published on the robots'
//	          cmd_vel topics so far; the simulator also waits until it has
//	          received that many (summed over its peers), so that a command
//	          sent before the acknowledgement acts at the step it was sent at
//
// A zero stamp means the peer leaves. Service calls and action goals need no
// counting: a peer waits for the reply (or the goal's ACTIVE status) before it
// acknowledges, and the simulator has then taken them in.

// LockstepTopic is the topic lockstep peers report on, where btrobot's
// simulator listens when its node has the default name "sim".
const LockstepTopic = "/sim/lockstep"

// LockstepPeer is one participant in the simulator's lockstep. Its methods
// are safe for concurrent use.
type LockstepPeer struct {
	conn  *Conn
	pub   *Publisher
	topic string

	mu   sync.Mutex
	sent uint32
	left bool
}

// NewLockstepPeer joins the lockstep of the simulator that listens on topic
// (LockstepTopic when empty). Nothing is sent until Ready.
func NewLockstepPeer(c *Conn, topic string) (*LockstepPeer, error) {
	if topic == "" {
		topic = LockstepTopic
	}
	// Latched: an acknowledgement is the peer's whole state, so the newest
	// one is all a simulator that connects late needs, and it cannot be lost
	// to a connection still being set up.
	pub, err := NewPublisher(PublisherConf{Conn: c, Topic: topic, Msg: &std_msgs.Header{}, Latch: true})
	if err != nil {
		return nil, fmt.Errorf("lockstep: %w", err)
	}
	return &LockstepPeer{conn: c, pub: pub, topic: pub.Topic()}, nil
}

// CountSent records that n more messages went out on cmd_vel topics the
// simulator subscribes to. Count a message once it has been published.
func (p *LockstepPeer) CountSent(n int) {
	p.mu.Lock()
	p.sent += uint32(n)
	p.mu.Unlock()
}

// Ready tells the simulator it may run until ROS time until (see the
// protocol above); until must be later than the newest /clock the peer has
// seen, or the simulator stays where it is.
func (p *LockstepPeer) Ready(until time.Time) error {
	if until.IsZero() || !until.After(time.Unix(0, 0)) {
		return fmt.Errorf("lockstep: ready until %v: want a time after ROS time zero", until)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left {
		return fmt.Errorf("lockstep: the peer has left")
	}
	return p.pub.Publish(&std_msgs.Header{Seq: p.sent, Stamp: until, FrameId: p.conn.Name()})
}

// Leave tells the simulator to stop waiting for this peer and waits, up to
// ctx, until the message is out. The publisher stays, latched with the
// message, until the connection closes: closing it at once could lose it.
func (p *LockstepPeer) Leave(ctx context.Context) error {
	p.mu.Lock()
	if p.left {
		p.mu.Unlock()
		return nil
	}
	p.left = true
	msg := &std_msgs.Header{Seq: p.sent, Stamp: time.Unix(0, 0), FrameId: p.conn.Name()}
	p.mu.Unlock()
	return p.pub.PublishWait(ctx, msg)
}

// Subscribers returns how many subscribers the node's publisher of topic is
// connected to, from the node's own bus information. A lockstep peer waits
// until the simulator has connected to its cmd_vel publisher before counting
// commands, since messages sent before that are lost.
func (c *Conn) Subscribers(topic string) (int, error) {
	name := c.Resolve(topic)
	conns, err := c.node.NodeGetConns(c.name)
	if err != nil {
		return 0, fmt.Errorf("bus information of %s: %w", c.name, err)
	}
	n := 0
	for _, ci := range conns {
		if ci.Direction == 'o' && ci.Topic == name && ci.Connected {
			n++
		}
	}
	return n, nil
}

// WaitSubscribers polls Subscribers until topic has at least n subscribers
// or ctx ends.
func (c *Conn) WaitSubscribers(ctx context.Context, topic string, n int) error {
	for {
		got, err := c.Subscribers(topic)
		if err != nil {
			return err
		}
		if got >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %d subscribers of %s (%d so far): %w", n, c.Resolve(topic), got, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// NodePublishes reports whether node answers on its XML-RPC API and is
// registered with the master as a publisher of topic: whether a lockstep
// peer that has gone quiet is still there.
func (c *Conn) NodePublishes(node, topic string) (bool, error) {
	topics, err := c.node.MasterGetTopics()
	if err != nil {
		return false, fmt.Errorf("ask the master for the publishers of %s: %w", topic, err)
	}
	t := topics[c.Resolve(topic)]
	if t == nil {
		return false, nil
	}
	if _, ok := t.Publishers[node]; !ok {
		return false, nil
	}
	if _, err := c.node.NodePing(node); err != nil {
		return false, nil
	}
	return true, nil
}
