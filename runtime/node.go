package runtime

import (
	"errors"
	"fmt"
	"time"

	"github.com/btrobot/btrobot/runtime/script"
)

// Node is one node of a behavior tree. Every implementation embeds [Base],
// which carries what all nodes share (name, path, status, children, ports,
// blackboard) and gives Node its unexported method; a node type adds only
// its own logic.
//
// Tick and Halt are called by the engine ([Execute], [HaltNode]), never
// directly by other nodes, so that pre/post conditions, status bookkeeping
// and observers stay in one place.
type Node interface {
	// Tick runs the node's own logic once and returns its new status. An
	// error aborts the tick of the whole tree, which is then halted.
	Tick() (Status, error)
	// Halt stops a RUNNING node: it halts the node's running children and
	// cancels its work. It must not block on the outside world. Base.Halt
	// halts the children, which is what control nodes and decorators need.
	Halt()

	base() *Base
}

// Base is embedded by every node. Its methods are the toolkit node authors
// use: children, ports, the blackboard, the clock and the wake-up.
type Base struct {
	// Who the node is and how it reaches its data: read when building,
	// reporting and reading ports.
	name   string
	typeID string
	path   string
	bb     *Blackboard
	ext    *nodeExtras // nil for a node without ports or conditions
	uid    uint32

	// What Execute touches on every tick, together (and next to the node
	// type's own fields, which follow Base), so that a tick of a big tree
	// pulls fewer cache lines per node.
	status  Status
	explain bool   // the tree is explaining (Tree.SetExplaining), kept here where the tick looks
	doneSt  Status // what the node returned when it last completed; IDLE: halted or failed with an error since (see doneAt)
	// detour says which of the rare things Execute and setStatus must
	// look at (a record of reasons, tick hooks, pre/post conditions,
	// observers): one byte the tick tests instead of four pointers, so
	// that a tree with nothing attached pays one test per node for all of
	// them. Kept by whoever attaches or detaches them (see setDetour).
	detour   detour
	children []Node
	tree     *Tree

	// What the node returned when it last completed and what it said about
	// it (see explain.go): Tree.Explain reads them after the root
	// completes, when the parents have reset their children to IDLE. Kept
	// small: every node carries them on every tick.
	why     *reasons // nil until the node first states a reason
	doneAt  uint64   // Tree.completions after the last completion (or when the node was halted or failed with an error since)
	startAt uint64   // Tree.completions when the last completed run began: the end of the run before it
}

func (b *Base) base() *Base { return b }

// nodeExtras is what only some nodes have, kept out of Base so that every
// node is smaller (a 100,000-node tree is mostly its Bases).
type nodeExtras struct {
	ports []portBinding
	conds *conditions // pre and post conditions; nil without
}

// portList returns the node's port bindings.
func (b *Base) portList() []portBinding {
	if b.ext == nil {
		return nil
	}
	return b.ext.ports
}

// conds returns the node's pre and post conditions, nil without.
func (b *Base) conds() *conditions {
	if b.ext == nil {
		return nil
	}
	return b.ext.conds
}

// detour is a set of the rare things a node's tick must look at.
type detour uint8

const (
	detourWhy      detour = 1 << iota // the node keeps reasons (why != nil)
	detourHooks                       // the tree has tick hooks, or TrackTicking is on
	detourConds                       // the node has pre or post conditions
	detourObserved                    // the tree has observers: setStatus notifies them
	detourTick     = detourWhy | detourHooks | detourConds
)

// setDetour turns d on or off on every node of t.
func (t *Tree) setDetour(d detour, on bool) {
	for _, n := range t.nodes {
		b := n.base()
		if on {
			b.detour |= d
		} else {
			b.detour &^= d
		}
	}
}

// Name returns the instance name (the type name when the tree gave none).
func (b *Base) Name() string { return b.name }

// Type returns the registered type name, such as "Sequence".
func (b *Base) Type() string { return b.typeID }

// Path returns the node's full path, such as "MainTree/Patrol/NavigateTo#2":
// the names of the trees and nodes from the root, a name repeated among
// siblings made unique with #N.
func (b *Base) Path() string { return b.path }

// UID returns the node's identifier, unique within its tree and stable
// across loads of the same tree (depth-first order, from 1 as in Groot2).
func (b *Base) UID() uint32 { return b.uid }

// Status returns the node's current status. Read it on the tick's goroutine
// (or from an observer); other goroutines watch transitions instead.
func (b *Base) Status() Status { return b.status }

// Children returns the node's children in order.
func (b *Base) Children() []Node { return b.children }

// Blackboard returns the blackboard scope the node reads and writes.
func (b *Base) Blackboard() *Blackboard { return b.bb }

// Tree returns the tree the node belongs to.
func (b *Base) Tree() *Tree { return b.tree }

// Now returns the tree clock's time.
func (b *Base) Now() time.Time { return b.tree.clock.Now() }

// Halt halts every running child and resets all children to IDLE, which is
// what a control node or decorator does when halted.
func (b *Base) Halt() { b.ResetChildren() }

// HaltChild halts child i when it is RUNNING and resets it to IDLE.
func (b *Base) HaltChild(i int) { haltChild(b.children[i]) }

func haltChild(c Node) {
	cb := c.base()
	switch cb.status {
	case Idle:
		return
	case Running:
		HaltNode(c)
	}
	cb.setStatus(Idle)
}

// HaltChildren halts children from index first on (see HaltChild). The
// loop resets a completed child without a call: every control node that
// completes resets all its children.
func (b *Base) HaltChildren(first int) {
	for _, c := range b.children[first:] {
		cb := c.base()
		switch cb.status {
		case Idle:
		case Running:
			HaltNode(c)
			cb.setStatus(Idle)
		default:
			cb.setStatus(Idle)
		}
	}
}

// ResetChildren halts the running children and resets all of them to IDLE.
func (b *Base) ResetChildren() { b.HaltChildren(0) }

// SetStatus sets the node's status outside a tick, as BehaviorTree.CPP's
// setStatus does for asynchronous nodes. Setting IDLE is a reset.
func (b *Base) SetStatus(s Status) { b.setStatus(s) }

// setStatus keeps the path of a tree nobody observes short: the
// observers' path is a call of its own.
func (b *Base) setStatus(s Status) {
	if b.status == s {
		return
	}
	if b.detour&detourObserved != 0 {
		b.notifyStatus(s)
		return
	}
	b.status = s
}

// notifyStatus is setStatus with observers; inlined, it would make every
// call of setStatus longer.
//
//go:noinline
func (b *Base) notifyStatus(s Status) {
	prev := b.status
	b.status = s
	b.tree.notify(b, prev, s)
}

// NodeOf returns the Base of n, for code that walks trees.
func NodeOf(n Node) *Base { return n.base() }

// Execute ticks n the way a parent must: pre-conditions first (which may
// decide the status without ticking), then Tick, then post-conditions; the
// status is stored (except SKIPPED, which leaves the node IDLE) and observers
// see the transition. It is BehaviorTree.CPP's executeTick.
func Execute(n Node) (Status, error) { return execute(n, n.base()) }

// execute is Execute for a parent that already holds the child's base
// (b is n.base()): one call through the interface fewer per child.
func execute(n Node, b *Base) (Status, error) {
	if b.detour&detourTick != 0 {
		return b.executeDetour(n)
	}
	// The path of nearly every tick of every node, without a call of its
	// own: it is what a big tree's tick time is made of.
	st, err := n.Tick()
	switch {
	case err != nil:
		return Failure, b.abandon(err)
	case st == Success || st == Failure:
		b.complete(st)
	case st == Skipped:
		return st, nil
	case st == Idle:
		return Failure, b.abandon(errTickIdle)
	}
	b.setStatus(st)
	return st, nil
}

// executeDetour is Execute for a node with a reason to clear, tick hooks
// or conditions.
func (b *Base) executeDetour(n Node) (Status, error) {
	if b.why != nil {
		b.why.now = ""
	}
	if t := b.tree; t != nil && t.hooks != nil {
		return executeHooked(n, b, t.hooks)
	}
	if b.conds() != nil {
		return b.executeWithConditions(n)
	}
	st, err := n.Tick()
	if err != nil {
		return Failure, b.abandon(err)
	}
	return b.commit(st)
}

var errTickIdle = errors.New("Tick returned IDLE; a ticked node must return RUNNING, SUCCESS, FAILURE or SKIPPED")

// executeWithConditions is Execute for a node with pre or post conditions
// (_skipIf, _failureIf, _onSuccess...).
func (b *Base) executeWithConditions(n Node) (Status, error) {
	st, decided, err := b.conds().checkPre(n)
	if err != nil {
		return Failure, b.abandon(err)
	}
	if !decided {
		if st, err = n.Tick(); err != nil {
			return Failure, b.abandon(err)
		}
	}
	if st.Completed() {
		if err := b.conds().checkPost(b, st); err != nil {
			return Failure, b.abandon(err)
		}
	}
	return b.commit(st)
}

// commit stores the status a tick ended with.
func (b *Base) commit(st Status) (Status, error) {
	if st == Idle {
		return Failure, b.abandon(errTickIdle)
	}
	if st.Completed() {
		b.complete(st)
	}
	if st != Skipped {
		b.setStatus(st)
	}
	return st, nil
}

// HaltNode halts n: its Halt runs, it becomes IDLE, then its _onHalted script
// runs. Parents call it (through HaltChild) only on RUNNING children.
func HaltNode(n Node) {
	b := n.base()
	n.Halt()
	b.abandon(nil)
	b.setStatus(Idle)
	if b.conds() != nil && b.conds().post[postHalted] != nil {
		if _, err := b.conds().post[postHalted].Eval(b.scriptEnv()); err != nil {
			b.tree.recordHaltError(b.wrap(fmt.Errorf("_onHalted: %w", err)))
		}
	}
}

// NodeError is an error raised while ticking a node, with the node's path.
type NodeError struct {
	Path string
	Type string
	Err  error
}

func (e *NodeError) Error() string { return fmt.Sprintf("%s (%s): %v", e.Path, e.Type, e.Err) }
func (e *NodeError) Unwrap() error { return e.Err }

func (b *Base) wrap(err error) error {
	var ne *NodeError
	if errors.As(err, &ne) {
		return err
	}
	return &NodeError{Path: b.path, Type: b.typeID, Err: err}
}

// scriptEnv is a node seen by its scripts: they read and write its
// blackboard scope and the registry's enums (through its tree). It is the
// node's Base itself, so that a node carries nothing more for scripts.
type scriptEnv Base

func (b *Base) scriptEnv() *scriptEnv { return (*scriptEnv)(b) }

func (e *scriptEnv) Lookup(name string) (script.Value, bool) { return e.bb.Get(name) }
func (e *scriptEnv) Assign(name string, v script.Value, create bool) error {
	return e.bb.Assign(name, v, create)
}
func (e *scriptEnv) Enum(name string) (int, bool) {
	if e.tree == nil {
		return 0, false
	}
	v, ok := e.tree.enums[name]
	return v, ok
}

// ScriptEnv returns the environment scripts of node n evaluate in.
func ScriptEnv(n Node) script.Env { return n.base().scriptEnv() }
