package groot2

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/runtime"
)

// DefaultPort is Groot2's port: REP on it, PUB on the next.
const DefaultPort = 1667

// Conf configures a Server.
type Conf struct {
	// Tree is the tree to serve and Document the document it was built
	// from; Palette, when set, adds the node models to the tree's XML.
	Tree     *runtime.Tree
	Document *runtime.Document
	Palette  *runtime.Registry
	// Host is the address to listen on (loopback when empty: BT.CPP
	// listens on every interface, btrobot only when told, "0.0.0.0");
	// Port the REP port (DefaultPort when 0), the PUB socket takes
	// Port+1.
	Host string
	Port int
	// TreeID is the tree instance's UUID in every reply (a new random one
	// when zero).
	TreeID uuid.UUID
	// MaxHeartbeatDelay is how long Groot2 may stay silent before its hooks
	// are disabled, so that a robot whose debugger vanished does not stay
	// paused (5 s when 0, as BT.CPP); they are enabled again when it
	// speaks.
	MaxHeartbeatDelay time.Duration
	// OnPause, when set, is called on the tick's goroutine when a
	// breakpoint pauses the tree (paused true, before the tick blocks) and
	// when it resumes. The loop's owner stops the robot here and keeps its
	// watchdog quiet while Paused.
	OnPause func(node *runtime.Base, paused bool)
}

// Server serves a tree to Groot2 as BehaviorTree.CPP 4.10's Groot2Publisher
// does: the tree's XML, its nodes' statuses, blackboard dumps, breakpoints
// and replace-hooks, and a recording of transitions. It is a
// runtime.Observer and a runtime.TickHook, attached together by Attach.
//
// A breakpoint blocks the tick, as in BT.CPP: the whole tree stands still
// at that node until Groot2 unlocks it, Groot2 goes silent for
// MaxHeartbeatDelay, or the server closes. Paused and OnPause let the loop
// owner know.
type Server struct {
	conf Conf
	// shown is the tree served: its parts change together (SetTree),
	// under amu and smu both; a request or a transition reads them under
	// either.
	*shown

	ctx    context.Context
	cancel context.CancelFunc
	rep    *zlistener
	pub    *zlistener
	notes  chan []byte // breakpoint notifications for the publisher
	wg     sync.WaitGroup
	amu    sync.Mutex // one request answered at a time, as BT.CPP

	// the subscribers' queues, under submu
	submu sync.Mutex
	subs  map[*zconn]chan [][]byte

	// the statuses (shown's) and the transition recording, under smu
	smu         sync.Mutex
	recording   bool
	recordStart time.Time
	recorded    []transition // a ring of the last maxRecorded
	recordedAt  int

	// the hooks, and the tick they hold (shared with the studio's
	// breakpoints: runtime.Breakpoints)
	bp      *runtime.Breakpoints
	cmu     sync.Mutex
	closed  bool
	lastReq atomic.Int64 // wall time of the last request, ns
}

type transition struct {
	at  int64 // µs since the recording started
	uid uint16
	st  uint8
}

const maxRecorded = 1000 // as BT.CPP: Groot2 polls often

// New checks the tree (Groot2 numbers nodes in 16 bits), binds the REP and
// PUB sockets and starts serving. Attach it to the tree, and Close it when
// the run ends.
func New(conf Conf) (*Server, error) {
	if conf.Port == 0 {
		conf.Port = DefaultPort
	}
	if conf.Port < 0 || conf.Port > 65534 {
		return nil, fmt.Errorf("groot2: port %d: want 1 to 65534 (the PUB socket takes the next)", conf.Port)
	}
	if conf.Host == "" {
		conf.Host = "127.0.0.1"
	}
	if conf.MaxHeartbeatDelay <= 0 {
		conf.MaxHeartbeatDelay = 5 * time.Second
	}
	if conf.TreeID == uuid.Nil {
		conf.TreeID = uuid.New()
	}
	shown, err := show(conf.Tree, conf.Document, conf.Palette, conf.TreeID)
	if err != nil {
		return nil, err
	}
	s := &Server{conf: conf, shown: shown, notes: make(chan []byte, 64), subs: map[*zconn]chan [][]byte{}}
	s.bp = runtime.NewBreakpoints(runtime.BreakpointsConf{
		OnReach: func(h runtime.Hook) {
			note := requestHeader{protocol: protocolID, typ: reqBreakpointReach, id: rand.Uint32()}.encode()
			select {
			case s.notes <- append(note, strconv.Itoa(int(h.UID))...):
			default:
			}
		},
		OnPause: func(n *runtime.Base, _ runtime.HookAt, paused bool) {
			if conf.OnPause != nil {
				conf.OnPause(n, paused)
			}
		},
	})
	s.lastReq.Store(time.Now().UnixNano())

	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.rep, err = listenZMTP(net.JoinHostPort(conf.Host, strconv.Itoa(conf.Port)), "REP", []string{"REQ", "DEALER"}, s.serveRequests)
	if err != nil {
		s.cancel()
		return nil, fmt.Errorf("groot2: %w", err)
	}
	s.pub, err = listenZMTP(net.JoinHostPort(conf.Host, strconv.Itoa(conf.Port+1)), "PUB", []string{"SUB", "XSUB"}, s.serveSubscriber)
	if err != nil {
		s.cancel()
		s.rep.close()
		return nil, fmt.Errorf("groot2: %w", err)
	}
	s.wg.Add(2)
	go s.publish()
	go s.heartbeat()
	return s, nil
}

// statusOrder lists the UIDs in the order BT.CPP's status buffer has them:
// tree instance by tree instance (the main tree, then each SubTree depth
// first), each instance's own nodes in UID order.
func statusOrder(tree *runtime.Tree) []uint16 {
	var instances [][]uint16
	var walk func(n runtime.Node, inst int)
	walk = func(n runtime.Node, inst int) {
		b := runtime.NodeOf(n)
		instances[inst] = append(instances[inst], uint16(b.UID()))
		if _, sub := n.(*runtime.SubTree); sub {
			instances = append(instances, nil)
			inst = len(instances) - 1
		}
		for _, c := range b.Children() {
			walk(c, inst)
		}
	}
	if tree.Root() == nil {
		return nil
	}
	instances = append(instances, nil)
	walk(tree.Root(), 0)
	var out []uint16
	for _, in := range instances {
		out = append(out, in...)
	}
	return out
}

// Attach makes s observe the tree's transitions and hook its ticks. Call it,
// and the function it returns, between ticks.
func (s *Server) Attach() (detach func()) {
	s.smu.Lock()
	tree := s.tree
	s.smu.Unlock()
	unobserve := tree.Observe(s)
	unhook := tree.Hook(s)
	return func() { unhook(); unobserve() }
}

// Addr returns the REP socket's address.
func (s *Server) Addr() string { return s.rep.addr().String() }

// Paused reports whether a breakpoint holds the tree now.
func (s *Server) Paused() bool { return s.bp.Paused() }

// Resume releases a paused tick and removes every hook, as Groot2's
// "remove all hooks" does: call it when the run must stop (a signal, a
// shutdown) so that the loop gets its tick back.
func (s *Server) Resume() { s.bp.RemoveAll() }

// Close releases every paused tick, stops serving and closes the sockets.
func (s *Server) Close() error {
	s.cmu.Lock()
	if s.closed {
		s.cmu.Unlock()
		return nil
	}
	s.closed = true
	s.cmu.Unlock()
	s.bp.Close()
	s.cancel()
	err := errors.Join(s.rep.close(), s.pub.close())
	s.wg.Wait()
	return err
}

// OnTransitions keeps the status buffer and the recording
// (runtime.Observer), under one lock a batch.
func (s *Server) OnTransitions(batch []runtime.Transition) {
	s.smu.Lock()
	defer s.smu.Unlock()
	for i := range batch {
		t := &batch[i]
		uid := t.Node.UID()
		st := byte(t.To)
		if t.To == runtime.Idle {
			st = 10 + byte(t.From)
		}
		if int(uid) <= len(s.statuses) {
			s.statuses[uid-1] = st
		}
		if s.recording {
			tr := transition{at: max(0, t.Time.Sub(s.recordStart).Microseconds()), uid: uint16(uid), st: byte(t.To)}
			if len(s.recorded) < maxRecorded {
				s.recorded = append(s.recorded, tr)
			} else {
				s.recorded[s.recordedAt] = tr
				s.recordedAt = (s.recordedAt + 1) % maxRecorded
			}
		}
	}
}

// BeforeTick runs a PRE hook of n, if Groot2 set one (runtime.TickHook).
func (s *Server) BeforeTick(n *runtime.Base) runtime.Status { return s.bp.BeforeTick(n) }

// AfterTick runs a POST hook of n, if Groot2 set one (runtime.TickHook).
func (s *Server) AfterTick(n *runtime.Base, st runtime.Status) runtime.Status {
	return s.bp.AfterTick(n, st)
}

// Armed says whether Groot2 set a hook or asked for a pause: while it has
// not, the tree runs none of its hooks (runtime.ArmedHook).
func (s *Server) Armed() bool { return s.bp.Armed() }

// serveRequests answers one REQ (or DEALER) peer's requests, one at a
// time, until it fails or goes silent for repIdleTimeout: a peer that
// sends without reading fills its own socket and is closed after
// writeTimeout, and never holds up another peer's replies.
//
// A request is its envelope (the frames up to and including the first
// empty one: a REQ's delimiter, and what a proxy put before it), then its
// body; the reply is the envelope, then the answer. A message without a
// delimiter or without a body is dropped, as libzmq's REP does.
func (s *Server) serveRequests(c *zconn) {
	for {
		frames, err := c.readMessage(repIdleTimeout)
		if err != nil {
			return
		}
		i := slices.IndexFunc(frames, func(f []byte) bool { return len(f) == 0 })
		if i < 0 || i == len(frames)-1 {
			continue
		}
		s.amu.Lock()
		s.lastReq.Store(time.Now().UnixNano())
		reply := s.answer(frames[i+1:])
		s.amu.Unlock()
		if err := c.writeFrames(0, append(frames[:i+1:i+1], reply...)); err != nil {
			return
		}
	}
}

// serveSubscriber sends the notifications to one SUB peer, dropping those
// it is too slow for (as libzmq's PUB at its high-water mark), and reads
// (and forgets: every notification goes to every subscriber, and libzmq's
// SUB filters its own) what it sends, until it fails.
func (s *Server) serveSubscriber(c *zconn) {
	out := make(chan [][]byte, pubQueue)
	s.submu.Lock()
	s.subs[c] = out
	s.submu.Unlock()
	defer func() {
		s.submu.Lock()
		delete(s.subs, c)
		s.submu.Unlock()
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-c.done:
				return
			case m := <-out:
				if err := c.writeFrames(0, m); err != nil {
					c.close()
					return
				}
			}
		}
	}()
	for {
		if _, err := c.readMessage(0); err != nil {
			break
		}
	}
	c.close()
	wg.Wait()
}

func errorReply(msg string) [][]byte { return [][]byte{[]byte("error"), []byte(msg)} }

// answer builds the reply to one request.
func (s *Server) answer(frames [][]byte) [][]byte {
	req, err := decodeRequestHeader(frames[0])
	if err != nil {
		return errorReply(err.Error())
	}
	head := requestHeader{protocol: protocolID, typ: req.typ, id: req.id}.encode()
	head = append(head, s.treeID[:]...)
	arg := func() ([]byte, bool) {
		if len(frames) != 2 {
			return nil, false
		}
		return frames[1], true
	}
	switch req.typ {
	case reqFullTree:
		return [][]byte{head, []byte(s.xml)}
	case reqStatus:
		return [][]byte{head, s.statusBuffer()}
	case reqBlackboard:
		a, ok := arg()
		if !ok {
			return errorReply("must be 2 parts message")
		}
		dump, err := s.blackboardDump(string(a))
		if err != nil {
			return errorReply(err.Error())
		}
		return [][]byte{head, dump}
	case reqHookInsert:
		a, ok := arg()
		if !ok {
			return errorReply("must be 2 parts message")
		}
		if err := s.insertHooks(a); err != nil {
			return errorReply(err.Error())
		}
	case reqBreakpointUnlck:
		a, ok := arg()
		if !ok {
			return errorReply("must be 2 parts message")
		}
		var u unlockJSON
		if err := json.Unmarshal(a, &u); err != nil {
			return errorReply(err.Error())
		}
		desired := runtime.Skipped
		switch u.DesiredStatus {
		case "SUCCESS":
			desired = runtime.Success
		case "FAILURE":
			desired = runtime.Failure
		}
		if !s.unlock(u.Position, u.UID, desired, u.RemoveWhenDone) {
			return errorReply("Node ID not found")
		}
	case reqRemoveAllHooks:
		s.bp.RemoveAll()
	case reqDisableAllHooks:
		s.bp.EnableAll(false)
	case reqHookRemove:
		a, ok := arg()
		if !ok {
			return errorReply("must be 2 parts message")
		}
		var h struct {
			UID      uint16 `json:"uid"`
			Position int    `json:"position"`
		}
		if err := json.Unmarshal(a, &h); err != nil {
			return errorReply(err.Error())
		}
		if !s.removeHook(h.Position, h.UID) {
			return errorReply("Node ID not found")
		}
	case reqHooksDump:
		return [][]byte{head, s.hooksDump()}
	case reqToggleRecording:
		a, ok := arg()
		if !ok {
			return errorReply("must be 2 parts message")
		}
		switch string(a) {
		case "start":
			s.smu.Lock()
			s.recordStart = s.tree.Clock().Now()
			s.recorded, s.recordedAt = s.recorded[:0], 0
			s.recording = true
			s.smu.Unlock()
			return [][]byte{head, []byte(strconv.FormatInt(time.Now().UnixMicro(), 10))}
		case "stop":
			s.smu.Lock()
			s.recording = false
			s.smu.Unlock()
		}
	case reqGetTransitions:
		return [][]byte{head, s.takeTransitions()}
	default:
		return errorReply("Request not recognized")
	}
	return [][]byte{head}
}

func (s *Server) statusBuffer() []byte {
	out := make([]byte, 0, 3*len(s.order))
	s.smu.Lock()
	for _, uid := range s.order {
		out = binary.LittleEndian.AppendUint16(out, uid)
		out = append(out, s.statuses[uid-1])
	}
	s.smu.Unlock()
	return out
}

func (s *Server) takeTransitions() []byte {
	s.smu.Lock()
	ring := make([]transition, 0, len(s.recorded))
	ring = append(append(ring, s.recorded[s.recordedAt:]...), s.recorded[:s.recordedAt]...)
	s.recorded, s.recordedAt = s.recorded[:0], 0
	s.smu.Unlock()
	out := make([]byte, 0, 9*len(ring))
	for _, t := range ring {
		at := uint64(t.at)
		out = append(out, byte(at), byte(at>>8), byte(at>>16), byte(at>>24), byte(at>>32), byte(at>>40))
		out = binary.LittleEndian.AppendUint16(out, t.uid)
		out = append(out, t.st)
	}
	return out
}

// publish sends the breakpoint notifications, off the tick.
func (s *Server) publish() {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case note := <-s.notes:
			m := [][]byte{note[:requestHeaderSize], note[requestHeaderSize:]}
			s.submu.Lock()
			for _, out := range s.subs {
				select {
				case out <- m:
				default:
				}
			}
			s.submu.Unlock()
		}
	}
}

// heartbeat disables the hooks when Groot2 falls silent and enables them
// again when it speaks, as BT.CPP.
func (s *Server) heartbeat() {
	defer s.wg.Done()
	ticker := time.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	alive := true
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-ticker.C:
			was := alive
			alive = now.Sub(time.Unix(0, s.lastReq.Load())) < s.conf.MaxHeartbeatDelay
			if alive != was {
				s.bp.EnableAll(alive)
			}
		}
	}
}
