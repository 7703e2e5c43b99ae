package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// transitionTopic publishes every status transition of a tree, a
// btrobot_msgs/Transitions message per tick that had any (or per few
// ticks, when the topic's goroutine is behind) (RunConf.Transitions): one message per transition would overflow the
// subscribers' queues (goroslib's holds 64 messages, rosbag's 100) in the
// bursts a tick makes. It is a runtime.Observer: on the tick's goroutine a
// transition is appended to a buffer under a mutex (no message is built
// there, nothing waits for ROS), and the end of the tick (onTick) wakes the
// topic's goroutine, which turns the buffer into a message.
type transitionTopic struct {
	pub   *ros.Publisher
	runID string
	wake  chan struct{}
	quit  chan struct{}
	done  chan struct{}

	mu      sync.Mutex
	pending []pendingTransition
	spare   []pendingTransition
	dropped uint64
	seq     uint32 // transitions observed so far
	msgs    uint32 // messages sent so far; the topic's goroutine's
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
func newTransitionTopic(conn *ros.Conn, topic, runID string) (*transitionTopic, error) {
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: conn, Topic: topic, Msg: ros.Transitions{}})
	if err != nil {
		return nil, err
	}
	t := &transitionTopic{pub: pub, runID: runID, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	conn.AwaitListedSubscribers(pub.Topic(), subscriberPatience)
	go t.run()
	return t, nil
}

// subscriberPatience bounds the wait for the subscribers of the
// transitions topic that the master lists when the run starts.
const subscriberPatience = time.Second

// OnTransitions queues a batch of transitions (runtime.Observer), under
// one lock.
func (t *transitionTopic) OnTransitions(batch []runtime.Transition) {
	t.mu.Lock()
	for i := range batch {
		tr := &batch[i]
		t.seq++
		if len(t.pending) < maxPendingTransitions {
			t.pending = append(t.pending, pendingTransition{seq: t.seq, at: tr.Time, node: tr.Node, from: tr.From, to: tr.To, reason: tr.Reason})
		} else {
			t.dropped++
		}
	}
	t.mu.Unlock()
}

// onTick sends the tick's transitions; on the tick's goroutine.
func (t *transitionTopic) onTick(runtime.TickReport) {
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

// publish sends what is pending, in order, in one message.
func (t *transitionTopic) publish() {
	t.mu.Lock()
	batch := t.pending
	t.pending, t.spare = t.spare[:0], nil
	t.mu.Unlock()
	if len(batch) > 0 {
		t.msgs++
		msg := &ros.Transitions{RunId: t.runID, Transitions: make([]ros.Transition, len(batch))}
		msg.Header.Seq, msg.Header.Stamp = t.msgs, batch[0].at
		for i := range batch {
			p := &batch[i]
			msg.Transitions[i] = ros.Transition{
				Seq: p.seq, Stamp: p.at, Uid: uint16(p.node.UID()), Path: p.node.Path(), Type: p.node.Type(),
				PreviousStatus: uint8(p.from), Status: uint8(p.to), Reason: p.reason,
			}
		}
		// Wait until goroslib took it, a second at most: messages leave
		// in order, and none is dropped from the publisher's queue.
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
	time.Sleep(stopGrace) // goroslib drops what is queued when a publisher closes
	t.pub.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}
