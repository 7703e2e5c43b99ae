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
// Resources are shared by the trees of one process (a fleet run with
// several --robot-ns) through the table BuildConf.Semaphores names, by
// default the process's own. Every holder of a resource must ask the same
// capacity.
type Semaphore struct {
	Base
	table *Semaphores
	me    *semHolder
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
			table := c.semaphores
			if table == nil {
				table = DefaultSemaphores
			}
			who := c.Path
			if c.owner != "" {
				who = c.owner + ": " + c.Path
			}
			return &Semaphore{table: table, me: &semHolder{who: who}}, nil
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
		n.me.wake = n.tree.Wake
		granted, err := n.table.request(name, int(capacity), n.me)
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
		if !n.table.granted(n.name, n.me) {
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
	holders, before := n.table.state(n.name, n.me)
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
		n.table.release(n.name, n.me)
		n.state = semIdle
	}
}

// Halt halts the child and gives the slot back (or leaves the queue).
func (n *Semaphore) Halt() {
	n.giveBack()
	n.ResetChildren()
}

// Semaphores is a table of named semaphores shared by the trees that are
// built with it (BuildConf.Semaphores). Safe for concurrent use: each tree
// ticks on its own goroutine.
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
	setBy    string       // who set the capacity
	holders  []*semHolder // in the order they got their slot
	queue    []*semHolder // first come, first served
}

type semHolder struct {
	who  string
	wake func()
}

// request asks h for a slot of name: granted at once when one is free and
// nobody waits; else h joins the queue.
func (s *Semaphores) request(name string, capacity int, h *semHolder) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sem := s.sems[name]
	if sem == nil {
		sem = &semaphore{capacity: capacity, setBy: h.who}
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

// granted moves h from the head of the queue to the holders when a slot
// is free, and reports whether h holds one.
func (s *Semaphores) granted(name string, h *semHolder) bool {
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

// release gives h's slot back, or takes h out of the queue, and wakes the
// first in line when a slot is free for it.
func (s *Semaphores) release(name string, h *semHolder) {
	s.mu.Lock()
	sem := s.sems[name]
	if sem == nil {
		s.mu.Unlock()
		return
	}
	sem.holders = slices.DeleteFunc(sem.holders, func(x *semHolder) bool { return x == h })
	sem.queue = slices.DeleteFunc(sem.queue, func(x *semHolder) bool { return x == h })
	var wake func()
	if len(sem.queue) > 0 && len(sem.holders) < sem.capacity {
		wake = sem.queue[0].wake
	}
	if len(sem.holders) == 0 && len(sem.queue) == 0 {
		delete(s.sems, name) // the next holder may set another capacity
	}
	s.mu.Unlock()
	if wake != nil {
		wake()
	}
}

// state returns who holds name and how many wait before h.
func (s *Semaphores) state(name string, h *semHolder) (holders []string, before int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sem := s.sems[name]
	if sem == nil {
		return nil, 0
	}
	for _, x := range sem.holders {
		holders = append(holders, x.who)
	}
	before = slices.Index(sem.queue, h)
	return holders, max(before, 0)
}

// Holders returns who holds a slot of name now, in the order they got it.
func (s *Semaphores) Holders(name string) []string {
	holders, _ := s.state(name, nil)
	return holders
}
