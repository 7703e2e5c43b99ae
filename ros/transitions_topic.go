package ros

import (
	"context"
	"sync"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// transitionTopic publishes every status transition of a tree as a
// btrobot_msgs/Transition (RunConf.Transitions). It is a runtime.Observer:
// on the tick's goroutine a transition is appended to a buffer under a
// mutex (no message is built there, nothing waits for ROS); the topic's
// goroutine turns the buffer into messages and publishes them in order.
type transitionTopic struct {
	pub   *Publisher
	runID string
	wake  chan struct{}
	quit  chan struct{}
	done  chan struct{}

	mu      sync.Mutex
	pending []pendingTransition
	spare   []pendingTransition
	dropped uint64
	seq     uint32 // transitions observed so far
}

type pendingTransition struct {
	seq      uint32
	at       time.Time
	node     *runtime.Base
	from, to runtime.Status
	reason   string
}

// maxPendingTransitions bounds the transitions waiting for the topic's
// goroutine; past it they are dropped and counted (the tick never waits).
const maxPendingTransitions = 1 << 16

// newTransitionTopic advertises topic (relative names resolve in the
// node's namespace, "~name" in its private one) and starts the topic's
// goroutine; observe the tree with the result, and close it after the
// last tick.
func newTransitionTopic(conn *Conn, topic, runID string) (*transitionTopic, error) {
	pub, err := conn.publisher(topic, typeOfTransition, false)
	if err != nil {
		return nil, err
	}
	t := &transitionTopic{pub: pub, runID: runID, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go t.run()
	return t, nil
}

// OnTransition queues a transition (runtime.Observer).
func (t *transitionTopic) OnTransition(tr runtime.Transition) {
	t.mu.Lock()
	t.seq++
	if len(t.pending) < maxPendingTransitions {
		t.pending = append(t.pending, pendingTransition{seq: t.seq, at: tr.Time, node: tr.Node, from: tr.From, to: tr.To, reason: tr.Reason})
	} else {
		t.dropped++
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *transitionTopic) run() {
	defer close(t.done)
	for {
		select {
		case <-t.wake:
			t.publish()
		case <-t.quit:
			t.publish()
			return
		}
	}
}

// publish sends what is pending, in order.
func (t *transitionTopic) publish() {
	t.mu.Lock()
	batch := t.pending
	t.pending, t.spare = t.spare[:0], nil
	t.mu.Unlock()
	for i := range batch {
		p := &batch[i]
		msg := &Transition{
			RunId: t.runID, Uid: uint16(p.node.UID()), Path: p.node.Path(), Type: p.node.Type(),
			PreviousStatus: uint8(p.from), Status: uint8(p.to), Reason: p.reason,
		}
		msg.Header.Seq, msg.Header.Stamp = p.seq, p.at
		// Wait for each to be taken, so a burst longer than the
		// publisher's queue loses nothing; a second at most.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.pub.PublishWait(ctx, msg)
		cancel()
	}
	clear(batch) // drop the node pointers and reasons
	t.mu.Lock()
	t.spare = batch[:0]
	t.mu.Unlock()
}

// close publishes what is left and unadvertises the topic; it returns how
// many transitions were dropped.
func (t *transitionTopic) close() uint64 {
	close(t.quit)
	<-t.done
	t.pub.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}
