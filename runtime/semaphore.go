package runtime

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Semaphore lets at most capacity of the nodes that name the same
// resource run their child at once: robots and trees sharing a dock, a
// lift, a narrow corridor or an arm.
//
//	<Semaphore resource="dock_west" capacity="1" wait_msec="60000">
//	  <Dock dock="dock_west"/>
//	</Semaphore>
//
// Contract (btrobot's; BehaviorTree.CPP has no such node — the
// behavior-tree literature's mutual exclusion of shared resources):
//   - the tick that starts it asks for a slot of the resource: it
//     gets one when fewer than capacity hold one and nobody waits before
//     it, and then ticks its child; otherwise it waits, RUNNING, its
//     reason naming the holders. Waiting is first come, first served;
//   - while it holds the slot every tick ticks the child; when the child
//     completes the slot is given back and the child's status returned;
//   - halting gives the slot back, or leaves the queue;
//   - wait_msec (0: no limit) bounds the wait: past it the node leaves
//     the queue and returns FAILURE, naming the holders;
//   - a slot given back wakes the tree that waits first in line (Tree.Wake),
//     so it does not wait for its next period.
//
// Resources are shared through the table BuildConf.Semaphores names: by
// default the process's own (a fleet run with several --robot-ns). A
// mission run on ROS (btrobot run, serve) shares them with every process
// on the master (skills.GraphSemaphores, over the /btrobot/semaphores
// topic): a holder whose process dies gives its slots back within a lease
// (2 s), and a process that has just joined listens for as long before it
// takes a slot. Every holder of a resource must ask the same capacity.
type Semaphore struct {
	Base
	table SemaphoreTable
	me    *SemaphoreHolder
	state semState
	since time.Time // when the wait began
	name  string    // the semaphore waited for or held
}

type semState uint8

const (
	semIdle semState = iota
	semWaiting
	semHolding
)

func semaphoreTypes() []NodeType {
	return []NodeType{{
		ID: "Semaphore", Kind: DecoratorKind,
		Summary: "Runs its child only while it holds one of capacity slots of a shared resource (first come, first served).",
		Ports: []PortSpec{
			InputPort[string]("resource", "what is shared: the nodes that name the same resource share its slots"),
			InputPort[uint]("capacity", "how many may hold a slot at once (every holder of the resource must say the same)").WithDefault("1"),
			InputPort[uint]("wait_msec", "how long to wait for a slot before failing, in milliseconds; 0: as long as it takes").WithDefault("0"),
		},
		New: func(c *Config) (Node, error) {
			if v, ok := LiteralAs[uint](c, "capacity"); ok && v == 0 {
				return nil, &PortError{Port: "capacity", Err: fmt.Errorf("0 slots would never run the child; want 1 or more")}
			}
			if err := checkMsecLiteral(c, "wait_msec"); err != nil {
				return nil, err
			}
			var table SemaphoreTable = DefaultSemaphores
			if c.semaphores != nil {
				table = c.semaphores
			}
			who := c.Path
			if c.owner != "" {
				who = c.owner + ": " + c.Path
			}
			return &Semaphore{table: table, me: &SemaphoreHolder{Who: who}}, nil
		},
	}}
}

// Tick waits for a slot, then runs the child while holding it.
func (n *Semaphore) Tick() (Status, error) {
	if n.state == semIdle {
		name, err := GetInput[string](n, "resource")
		if err != nil {
			return Failure, err
		}
		capacity, err := GetInput[uint](n, "capacity")
		if err != nil {
			return Failure, err
		}
		n.me.Wake = n.tree.Wake
		granted, err := n.table.Request(name, int(capacity), n.me)
		if err != nil {
			return Failure, err
		}
		n.name = name
		n.state, n.since = semWaiting, n.Now()
		if granted {
			n.state = semHolding
		}
	}
	if n.state == semWaiting {
		if !n.table.Granted(n.name, n.me) {
			return n.wait()
		}
		n.state = semHolding
	}
	st, err := Execute(n.children[0])
	if err != nil || st.Completed() {
		n.giveBack()
		n.ResetChildren()
	}
	return st, err
}

// wait is a tick spent waiting: RUNNING, or FAILURE past wait_msec.
func (n *Semaphore) wait() (Status, error) {
	ms, err := GetInput[uint](n, "wait_msec")
	if err != nil {
		return Failure, err
	}
	holders, before := n.table.State(n.name, n.me)
	if ms > 0 {
		d, err := msecDuration("wait_msec", ms)
		if err != nil {
			return Failure, err
		}
		deadline := n.since.Add(d)
		if !n.Now().Before(deadline) {
			n.giveBack()
			if n.Explaining() {
				n.SetReason(fmt.Sprintf("no slot of semaphore %s within %v: held by %s", n.name, d, strings.Join(holders, ", ")))
			}
			return Failure, nil
		}
		n.tree.WakeAt(deadline)
	}
	if n.Explaining() {
		queue := ""
		if before > 0 {
			queue = fmt.Sprintf(" (%d waiting before this one)", before)
		}
		n.SetReason(fmt.Sprintf("waiting for semaphore %s: held by %s%s", n.name, strings.Join(holders, ", "), queue))
	}
	return Running, nil
}

// giveBack releases the slot or leaves the queue.
func (n *Semaphore) giveBack() {
	if n.state != semIdle {
		n.table.Release(n.name, n.me)
		n.state = semIdle
	}
}

// Halt halts the child and gives the slot back (or leaves the queue).
func (n *Semaphore) Halt() {
	n.giveBack()
	n.ResetChildren()
}

// SemaphoreTable keeps the slots and queues of named semaphores for the
// Semaphore nodes of the trees built with it (BuildConf.Semaphores):
// Semaphores within a process, or a table shared with other processes (the
// ROS graph's: skills.GraphSemaphores). Safe for concurrent use: each tree
// ticks on its own goroutine.
type SemaphoreTable interface {
	// Request asks a slot of name for h: granted at once when one is free
	// and nobody waits before h; else h joins the queue. A capacity other
	// than the one the resource's holders asked is an error.
	Request(name string, capacity int, h *SemaphoreHolder) (bool, error)
	// Granted reports whether h holds a slot of name, giving it the slot
	// when its turn has come.
	Granted(name string, h *SemaphoreHolder) bool
	// Release gives h's slot back, or takes h out of the queue, and wakes
	// the first in line when a slot is free for it.
	Release(name string, h *SemaphoreHolder)
	// State returns who holds name and how many wait before h.
	State(name string, h *SemaphoreHolder) (holders []string, before int)
}

// SemaphoreHolder is one holder of (or waiter for) a semaphore's slot: a
// Semaphore node, named Who in the holders' lists. A table calls Wake
// when the holder's turn may have come.
type SemaphoreHolder struct {
	Who  string
	Wake func()
}

// Semaphores is the SemaphoreTable of the trees of one process.
type Semaphores struct {
	mu   sync.Mutex
	sems map[string]*semaphore
}

// DefaultSemaphores is the process's table, for trees built without one.
var DefaultSemaphores = NewSemaphores()

// NewSemaphores returns an empty table.
func NewSemaphores() *Semaphores { return &Semaphores{sems: map[string]*semaphore{}} }

type semaphore struct {
	capacity int
	setBy    string             // who set the capacity
	holders  []*SemaphoreHolder // in the order they got their slot
	queue    []*SemaphoreHolder // first come, first served
}

// Request implements SemaphoreTable.
func (s *Semaphores) Request(name string, capacity int, h *SemaphoreHolder) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sem := s.sems[name]
	if sem == nil {
		sem = &semaphore{capacity: capacity, setBy: h.Who}
		s.sems[name] = sem
	}
	if sem.capacity != capacity {
		return false, fmt.Errorf("semaphore %s has capacity %d (%s says so), not %d: every holder must ask the same", name, sem.capacity, sem.setBy, capacity)
	}
	if len(sem.holders) < sem.capacity && len(sem.queue) == 0 {
		sem.holders = append(sem.holders, h)
		return true, nil
	}
	sem.queue = append(sem.queue, h)
	return false, nil
}

// Granted implements SemaphoreTable.
func (s *Semaphores) Granted(name string, h *SemaphoreHolder) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sem := s.sems[name]
	if sem == nil {
		return false
	}
	if slices.Contains(sem.holders, h) {
		return true
	}
	if len(sem.queue) > 0 && sem.queue[0] == h && len(sem.holders) < sem.capacity {
		sem.queue = sem.queue[1:]
		sem.holders = append(sem.holders, h)
		return true
	}
	return false
}

// Release implements SemaphoreTable.
func (s *Semaphores) Release(name string, h *SemaphoreHolder) {
	s.mu.Lock()
	sem := s.sems[name]
	if sem == nil {
		s.mu.Unlock()
		return
	}
	sem.holders = slices.DeleteFunc(sem.holders, func(x *SemaphoreHolder) bool { return x == h })
	sem.queue = slices.DeleteFunc(sem.queue, func(x *SemaphoreHolder) bool { return x == h })
	var wake func()
	if len(sem.queue) > 0 && len(sem.holders) < sem.capacity {
		wake = sem.queue[0].Wake
	}
	if len(sem.holders) == 0 && len(sem.queue) == 0 {
		delete(s.sems, name) // the next holder may set another capacity
	}
	s.mu.Unlock()
	if wake != nil {
		wake()
	}
}

// State implements SemaphoreTable.
func (s *Semaphores) State(name string, h *SemaphoreHolder) (holders []string, before int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sem := s.sems[name]
	if sem == nil {
		return nil, 0
	}
	for _, x := range sem.holders {
		holders = append(holders, x.Who)
	}
	before = slices.Index(sem.queue, h)
	return holders, max(before, 0)
}

// Holders returns who holds a slot of name now, in the order they got it.
func (s *Semaphores) Holders(name string) []string {
	holders, _ := s.State(name, nil)
	return holders
}
