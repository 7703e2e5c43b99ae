package ros

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
)

// This file holds how a connection notices that it lost ROS, and the
// errors that say so. goroslib v2.1.5 gives no hook for either:
//
//   - The master (rosnode kill, a second node registering the same name)
//     ends a node by calling "shutdown" on its slave API; goroslib then
//     cancels the node's internal context, which closes every publisher and
//     subscriber, and tells nobody. Its handler logs "got shutdown request
//     from CALLER: REASON" through the node's log callback first, on the
//     goroutine answering the call, before it cancels anything. The Conn's
//     log callback recognises that line: it marks the connection lost and,
//     while a Run holds the connection (HoldShutdown), keeps the call
//     waiting until the run has stopped the robot, so that the zero velocity
//     and the goal cancels still leave over the live connections. The wait
//     is bounded (ShutdownHoldMax); the master gets its answer after it.
//   - goroslib never looks at the master again after registering: a master
//     that died or restarted leaves the node running unregistered. The Conn
//     asks the master on the wall clock whether it still knows the node at
//     its own slave URI (lookupNode), every Conf.MasterCheck; a master that
//     refuses the connection is gone at once, one that does not answer
//     within Conf.MasterTimeout is asked once more.
//
// Connections to other nodes are peer to peer: a dead master does not close
// them, so a node that lost its master can still stop the robot.

//   - goroslib reconnects a subscriber whose publisher closed the connection
//     and says nothing but the log line "subscriber 'TOPIC' got an error:
//     ..."; the Conn counts those lines per topic (PublisherDrops), so that
//     Run notices a simulator or a robot whose process died: its /clock, or
//     every input of the profile, lost its publisher.
//
// ErrLost is matched by errors.Is for every error that says the node lost
// ROS: a *ShutdownError, a *ClockStoppedError, a *MasterLostError, a
// *RobotLostError or a *ServerLostError.
var ErrLost = errors.New("lost ROS")

// ShutdownError says that the node was shut down through its slave API: by
// the master when another node registered with the same name, or by a tool
// such as rosnode kill.
type ShutdownError struct {
	Caller string // who called shutdown, as it said
	Reason string
}

func (e *ShutdownError) Error() string {
	return fmt.Sprintf("shut down by the master: %s (called by %s)", e.Reason, e.Caller)
}

// Is makes the error match ErrLost.
func (e *ShutdownError) Is(target error) bool { return target == ErrLost }

// ClockStoppedError says that /clock went silent under /use_sim_time for
// longer than the run allows (RunConf.ClockTimeout): the simulator or the
// robot's clock source died or hangs.
type ClockStoppedError struct {
	Since time.Duration // wall time since the last /clock message
	// Closed says that the publisher of /clock closed its connection (its
	// process died or left), rather than going silent.
	Closed bool
}

func (e *ClockStoppedError) Error() string {
	s := fmt.Sprintf("/clock stopped %.1f s ago", e.Since.Seconds())
	if e.Closed {
		s += ": its publisher closed the connection"
	}
	return s
}

// Is makes the error match ErrLost.
func (e *ClockStoppedError) Is(target error) bool { return target == ErrLost }

// MasterLostError says that the master no longer answers, or answers but no
// longer knows the node (it restarted, or another node took the name): the
// node must not go on unregistered.
type MasterLostError struct {
	URI    string
	Reason string
	Err    error // the failed call, when there was one
	taken  bool  // another node registered with the name
	// silent says that the master did not answer in time (rather than
	// refusing the connection, or answering): calls to it hang.
	silent bool
}

func (e *MasterLostError) Error() string {
	s := "lost the master at " + e.URI + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes the error match ErrLost.
func (e *MasterLostError) Is(target error) bool { return target == ErrLost }

func (e *MasterLostError) Unwrap() error { return e.Err }

// RobotLostError says that every input of the robot's profile lost its
// publisher, with no message since: the robot's drivers (or the simulator)
// died.
type RobotLostError struct {
	Topics []string
}

func (e *RobotLostError) Error() string {
	return "lost the robot: the publishers of " + strings.Join(e.Topics, ", ") + " closed their connections"
}

// Is makes the error match ErrLost.
func (e *RobotLostError) Is(target error) bool { return target == ErrLost }

// ServerLostError says that an action server of the robot's profile died:
// the publisher of its status closed the connection and its node no longer
// answers (a server that stops cleanly inside a live node, as the
// simulator's stop_move_base does, is not lost: the tree's action leaves
// deal with it).
type ServerLostError struct {
	Server string
	Nodes  []string // the nodes that served it
}

func (e *ServerLostError) Error() string {
	return fmt.Sprintf("lost the action server %s: its node %s closed its connections and no longer answers", e.Server, strings.Join(e.Nodes, ", "))
}

// Is makes the error match ErrLost.
func (e *ServerLostError) Is(target error) bool { return target == ErrLost }

// DeadPublishers returns the nodes the master lists as publishers of the
// resolved topic, and those of them whose slave API does not answer.
func (c *Conn) DeadPublishers(topic string) (registered, dead []string, err error) {
	topics, err := c.wire.topics()
	if err != nil {
		return nil, nil, err
	}
	t, ok := topics[topic]
	if !ok {
		return nil, nil, nil
	}
	for node := range t.Publishers {
		registered = append(registered, node)
		if err := c.wire.ping(node); err != nil {
			dead = append(dead, node)
		}
	}
	return registered, dead, nil
}

// Defaults of the master check (Conf.MasterCheck, Conf.MasterTimeout).
const (
	DefaultMasterCheck   = 250 * time.Millisecond
	DefaultMasterTimeout = time.Second
)

// ShutdownHoldMax bounds how long a shutdown call from the master waits for
// the run to stop the robot.
const ShutdownHoldMax = 2 * time.Second

// shutdownLogPrefix begins the line goroslib logs when its slave API gets a
// shutdown call, before it tears the node down.
const shutdownLogPrefix = "got shutdown request from "

// lostState is the part of a Conn that records how it lost ROS.
type lostState struct {
	once sync.Once
	ch   chan struct{}
	err  error

	holdMu sync.Mutex
	holds  map[chan struct{}]bool // each closed by its holder's release

	// silent is closed once a close found the master silent (unregister).
	silentOnce sync.Once
	silent     chan struct{}

	dropMu sync.Mutex
	drops  map[string]uint64 // publisher connections lost, by topic
}

// subscriberErrPrefix and subscriberErrInfix frame the topic in the line
// goroslib logs when a publisher's connection to a subscriber of the node
// breaks.
const (
	subscriberErrPrefix = "subscriber '"
	subscriberErrInfix  = "' got an error: "
)

// PublisherDrops returns how many times a publisher of the resolved topic
// closed its connection to the node's subscriber.
func (c *Conn) PublisherDrops(topic string) uint64 {
	c.lost.dropMu.Lock()
	defer c.lost.dropMu.Unlock()
	return c.lost.drops[topic]
}

// Lost is closed once the node has lost ROS; Err then says how.
func (c *Conn) Lost() <-chan struct{} { return c.lost.ch }

// Err returns why the node lost ROS (matching ErrLost), or nil while it
// has not.
func (c *Conn) Err() error {
	select {
	case <-c.lost.ch:
		return c.lost.err
	default:
		return nil
	}
}

// lose records the first way the node lost ROS.
func (c *Conn) Lose(err error) {
	c.lost.once.Do(func() {
		c.lost.err = err
		close(c.lost.ch)
	})
}

// HoldShutdown makes a shutdown call from the master wait, up to
// ShutdownHoldMax, until release is called: Run stops the robot meanwhile.
// Every run on the connection holds it.
func (c *Conn) HoldShutdown() (release func()) {
	ch := make(chan struct{})
	c.lost.holdMu.Lock()
	if c.lost.holds == nil {
		c.lost.holds = map[chan struct{}]bool{}
	}
	c.lost.holds[ch] = true
	c.lost.holdMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.lost.holdMu.Lock()
			delete(c.lost.holds, ch)
			c.lost.holdMu.Unlock()
			close(ch)
		})
	}
}

// onLog receives every log line of the node.
func (c *Conn) onLog(level LogLevel, msg string) {
	if c.conf.OnLog != nil {
		c.conf.OnLog(level, msg)
	}
}

// onPublisherLost counts a publisher of topic that closed its connection to
// the node's subscriber.
func (c *Conn) onPublisherLost(topic string) {
	c.lost.dropMu.Lock()
	if c.lost.drops == nil {
		c.lost.drops = map[string]uint64{}
	}
	c.lost.drops[topic]++
	c.lost.dropMu.Unlock()
}

// onShutdown marks the connection lost by a shutdown call, and keeps the
// call waiting (ShutdownHoldMax at most) while the runs holding the
// connection stop the robot.
func (c *Conn) onShutdown(caller, reason string) {
	c.Lose(&ShutdownError{Caller: caller, Reason: reason})
	c.lost.holdMu.Lock()
	var holds []chan struct{}
	for ch := range c.lost.holds {
		holds = append(holds, ch)
	}
	c.lost.holdMu.Unlock()
	bound := time.NewTimer(ShutdownHoldMax)
	defer bound.Stop()
	for _, ch := range holds {
		select {
		case <-ch:
		case <-bound.C:
			return
		}
	}
}

// masterClient is a client of the master API with the check's timeout
// (goroslib's: the goroslib wire's check and lookup).
func (c *Conn) masterClient() *apimaster.Client {
	addr, _ := masterAddress(c.conf.MasterURI)
	return apimaster.NewClient(addr, c.name, &http.Client{Timeout: c.conf.MasterTimeout})
}

// masterLookup is a wire that asks the master itself where a node's slave
// API is (lookupNode), every call bounded in time (Conf.MasterTimeout) and
// its answer in size; the master check uses it. A wire without it is
// checked through goroslib's master client, bounded in time only.
type masterLookup interface {
	lookupNode(name string) (uri string, err error)
}

// apiRefusal is a ROS XML-RPC API's answer with a status code other than
// 1: the API answered, and said no.
type apiRefusal struct {
	method, uri string
	code        any
	msg         string
}

func (e *apiRefusal) Error() string {
	return fmt.Sprintf("%s: %s answered %v: %s", e.method, e.uri, e.code, e.msg)
}

// lookupSelf returns how the master check asks the master for the node's
// own slave URI: the wire's bounded lookup, or goroslib's client.
func (c *Conn) lookupSelf() func() (string, error) {
	if ml, ok := c.wire.(masterLookup); ok {
		return func() (string, error) { return ml.lookupNode(c.name) }
	}
	mc := c.masterClient()
	return func() (string, error) {
		uri, err := mc.LookupNode(c.name)
		var ue *url.Error
		if err != nil && !errors.As(err, &ue) {
			// goroslib's client answers a refusal with a plain error.
			err = &apiRefusal{method: "lookupNode", uri: c.conf.MasterURI, code: -1, msg: err.Error()}
		}
		return uri, err
	}
}

// watchMaster asks the master every MasterCheck whether it still knows the
// node at its slave URI, until the connection closes or is lost.
func (c *Conn) watchMaster() {
	defer c.wg.Done()
	lookup := c.lookupSelf()
	t := time.NewTicker(c.conf.MasterCheck)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.lost.ch:
			return
		case <-t.C:
		}
		err := c.checkMaster(lookup)
		if err != nil && !errors.Is(err, syscall.ECONNREFUSED) {
			// A master too slow to answer may be this process's fault
			// (a stall, a starved machine): ask once more before
			// giving up on it. One that refuses is gone.
			err = c.checkMaster(lookup)
		}
		if err != nil {
			var ml *MasterLostError
			if errors.As(err, &ml) && ml.taken {
				// The master calls shutdown on a node whose name was
				// taken: let that call name the cause when it comes.
				select {
				case <-c.lost.ch:
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
			select {
			case <-c.ctx.Done(): // closing: the node unregistered itself
				return
			default:
			}
			c.Lose(err)
			return
		}
	}
}

func (c *Conn) checkMaster(lookup func() (string, error)) error {
	uri, err := lookup()
	var ue *url.Error
	var refusal *apiRefusal
	switch {
	case errors.As(err, &ue):
		return &MasterLostError{URI: c.conf.MasterURI, Reason: "it does not answer", Err: ue.Err, silent: ue.Timeout()}
	case errors.As(err, &refusal):
		return &MasterLostError{URI: c.conf.MasterURI, Reason: "it no longer knows " + c.name + " (did it restart?); not running unregistered"}
	case err != nil:
		// An answer too large, or not a ROS answer: whatever answers
		// there is not a master to run under.
		return &MasterLostError{URI: c.conf.MasterURI, Reason: "its answer to lookupNode is not a ROS master's", Err: err}
	case uri != c.slaveURI:
		return &MasterLostError{URI: c.conf.MasterURI, Reason: "another node registered as " + c.name + " (at " + uri + ")", taken: true}
	}
	return nil
}

// SubscriberConns counts the subscribers connected to the node's publisher
// of the resolved topic name, from the node's own slave API (no master
// needed: it works after the master died).
func (c *Conn) SubscriberConns(topic string) (int, error) {
	conns, err := c.wire.bus()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range conns {
		if b.topic == topic && !b.in {
			n++
		}
	}
	return n, nil
}

// Unacknowledged waits until what the node wrote to its subscribers has
// been acknowledged, or until deadline, and returns how many connections
// had not then; ok is false when that cannot be known (tcpack.go).
func (c *Conn) Unacknowledged(topic string, deadline time.Time) (n int, ok bool) {
	return c.wire.unacknowledged(topic, deadline)
}

// unregisterMax bounds how long a connection waits for one of goroslib's
// closes, each of which unregisters from the master: goroslib bounds a
// call to the master only by its ReadTimeout (ten seconds), and a node
// makes one per topic, service and action topic, so a hung master would
// hold the program's exit for minutes.
func (c *Conn) unregisterMax() time.Duration { return 2 * c.conf.MasterTimeout }

// unregister runs f, a goroslib close that unregisters from the master,
// and waits for it, at most unregisterMax. A master that does not answer
// in time is lost (a *MasterLostError that says so, logged as an error);
// from then on, and once the master check found it silent, closes are not
// waited for: they go on in the background and end when goroslib's own
// timeout ends their calls (or with the process). Connections to other
// nodes are closed by goroslib after the master's answer, so they stay
// open meanwhile.
func (c *Conn) unregister(what string, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	if c.masterSilent() {
		return
	}
	t := time.NewTimer(c.unregisterMax())
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.onUnregisterSilent(what, c.unregisterMax())
	}
}

// onUnregisterSilent records that the master did not answer within bound
// while the node unregistered what: the connection is lost (a
// *MasterLostError that says so, logged as an error), and no later
// unregistration waits for the master.
func (c *Conn) onUnregisterSilent(what string, bound time.Duration) {
	err := &MasterLostError{
		URI:    c.conf.MasterURI,
		Reason: fmt.Sprintf("it did not answer within %v while %s unregistered %s; the node's other registrations are left to the master", bound, c.name, what),
		silent: true,
	}
	c.Lose(err)
	if c.wire != nil {
		c.wire.log(LogError, err.Error())
	}
	c.lost.silentOnce.Do(func() { close(c.lost.silent) })
}

// masterSilent reports whether the master was found not to answer.
func (c *Conn) masterSilent() bool {
	select {
	case <-c.lost.silent:
		return true
	default:
	}
	var ml *MasterLostError
	return errors.As(c.Err(), &ml) && ml.silent
}
