package ros

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// What the graph says of a topic's publishers and subscribers, asked of the
// node's own slave API or of the master.

// Subscribers returns how many subscribers the node's publisher of topic is
// connected to, from the node's own bus information, asked of its slave API
// directly (it works without the master). A lockstep peer waits until the
// simulator has connected to its cmd_vel publisher before counting
// commands, since messages sent before that are lost.
func (c *Conn) Subscribers(topic string) (int, error) {
	return c.SubscriberConns(c.Resolve(topic))
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
	topics, err := c.wire.topics()
	if err != nil {
		return false, fmt.Errorf("ask the master for the publishers of %s: %w", topic, err)
	}
	if !topics[c.Resolve(topic)].Publishers[node] {
		return false, nil
	}
	if err := c.wire.ping(node); err != nil {
		return false, nil
	}
	return true, nil
}

// AwaitListedSubscribers waits, up to patience on the wall clock, until every
// subscriber the master lists for topic has connected to this node's
// publisher, so that a rosbag record started before a run receives its
// first transitions (a subscriber connects only after the master told it
// of the new publisher).
func (c *Conn) AwaitListedSubscribers(topic string, patience time.Duration) {
	topics, err := c.wire.topics()
	if err != nil || len(topics[topic].Subscribers) == 0 {
		return
	}
	want := len(topics[topic].Subscribers)
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n, err := c.SubscriberConns(topic); err != nil || n >= want {
			return
		}
	}
}

// Offered reports whether the graph offers name: a service some node
// provides, or a topic some node subscribes to (a command it listens
// for), as the master knows them now. hil asks it of the faults an
// external simulator or robot offers.
func (c *Conn) Offered(name string) (bool, error) {
	r := c.Resolve(name)
	svcs, err := c.wire.services()
	if err != nil {
		return false, fmt.Errorf("ask the master for its services: %w", err)
	}
	if _, ok := svcs[r]; ok {
		return true, nil
	}
	topics, err := c.wire.topics()
	if err != nil {
		return false, fmt.Errorf("ask the master for its topics: %w", err)
	}
	return len(topics[r].Subscribers) > 0, nil
}

// AwaitActionServers waits until each action client of the connection
// whose server is on the graph (a node subscribes to its goal topic) is
// connected to that server (ActionClient.Ready), or until ctx ends, and
// returns the names of the servers on the graph it is still not connected
// to. A client finds its server's connection on its own time, so a goal
// given to a client not yet connected leaves when the connection is made:
// a peer that must send its goals at given moments (a simulator's
// lockstep) waits for this before its first tick.
func (c *Conn) AwaitActionServers(ctx context.Context) []string {
	c.mu.Lock()
	clients := make([]*actionClient, 0, len(c.actions))
	for _, ac := range c.actions {
		clients = append(clients, ac)
	}
	c.mu.Unlock()
	var missing []string
	for _, ac := range clients {
		if up, err := c.Offered(ac.goalPub.Topic()); err != nil || !up {
			continue // no server yet: a goal waits for it whenever it comes
		}
		select {
		case <-ac.ready:
		case <-ctx.Done():
			missing = append(missing, ac.name)
		}
	}
	slices.Sort(missing)
	return missing
}
