package runtime

import (
	"errors"
	"fmt"
	"strings"
)

// entryWatch follows the writes to one blackboard entry by its sequence
// number (Entry.Seq), as BehaviorTree.CPP's EntryUpdatedAction and
// EntryUpdatedDecorator do. The entry port names the entry either as
// "{key}" or as the bare key. Each node instance remembers the sequence
// number it saw last (0 before its first look), so "updated" means
// "written since this node last looked"; an entry that was declared but
// never written, or that does not exist, is not updated.
type entryWatch struct {
	key string
	seq uint64
}

func newEntryWatch(c *Config) (entryWatch, error) {
	raw, given := c.Attr("entry")
	if !given {
		return entryWatch{}, nil // the builder reports the missing port
	}
	key := strings.TrimSpace(raw)
	if k, isKey := BlackboardKey(raw, "entry"); isKey {
		key = k
	}
	if key == "" {
		return entryWatch{}, errors.New("port \"entry\" is empty; name a blackboard entry, as {key} or key")
	}
	return entryWatch{key: key}, nil
}

// updated reports whether the entry was written since the last call.
func (w *entryWatch) updated(bb *Blackboard) bool {
	e := bb.Entry(w.key)
	if e == nil {
		return false
	}
	seq := e.Seq()
	prev := w.seq
	w.seq = seq
	return seq != prev
}

// WasEntryUpdated succeeds when a blackboard entry was written since its
// previous tick.
//
//	<WasEntryUpdated entry="{goal}"/>   SUCCESS once per new goal
//
// Contract (BehaviorTree.CPP v4 WasEntryUpdated): the entry port names the
// entry as "{key}" or as the bare key; SUCCESS when the entry's sequence
// number (Entry.Seq) changed since this node's previous tick, FAILURE when
// it did not, or when the entry does not exist or was never written. Each
// instance remembers what it saw, so two nodes watching one entry both see
// each write.
type WasEntryUpdated struct {
	Base
	watch entryWatch
}

// EntryUpdated is SkipUnlessUpdated and WaitValueUpdate: decorators that
// tick their child only after a blackboard entry was written.
//
//	<SkipUnlessUpdated entry="{goal}">
//	  <ComputePath goal="{goal}" path="{path}"/>   only after a new goal
//	</SkipUnlessUpdated>
//
// Contract (BehaviorTree.CPP v4 SkipUnlessUpdated and WaitValueUpdate):
//   - the entry port names the entry as "{key}" or as the bare key; the node
//     remembers the entry's sequence number (Entry.Seq) it saw last;
//   - while the child is RUNNING it is ticked again, without looking at the
//     entry, and its status returned;
//   - otherwise, when the entry was written since the last look, the child
//     is ticked and its status returned; when it was not (or it does not
//     exist, or was never written), SkipUnlessUpdated returns SKIPPED and
//     WaitValueUpdate returns RUNNING, without ticking the child;
//   - a completed child is reset (after the node's own transition, as in
//     BT.CPP); halting halts it.
type EntryUpdated struct {
	Base
	watch        entryWatch
	notUpdated   Status
	childRunning bool
}

var entryPort = InputPort[any]("entry", "Entry to check: {key} or key").AsEntryName()

func wasEntryUpdatedTypes() []NodeType {
	return []NodeType{{
		ID: "WasEntryUpdated", Kind: ActionKind,
		Summary: "SUCCESS when the blackboard entry was written since this node's last tick, else FAILURE.",
		Ports:   []PortSpec{entryPort},
		New: func(c *Config) (Node, error) {
			w, err := newEntryWatch(c)
			if err != nil {
				return nil, err
			}
			return &WasEntryUpdated{watch: w}, nil
		},
	}}
}

func updatedDecoratorTypes() []NodeType {
	mk := func(notUpdated Status) func(c *Config) (Node, error) {
		return func(c *Config) (Node, error) {
			w, err := newEntryWatch(c)
			if err != nil {
				return nil, err
			}
			return &EntryUpdated{watch: w, notUpdated: notUpdated}, nil
		}
	}
	return []NodeType{
		{
			ID: "SkipUnlessUpdated", Kind: DecoratorKind,
			Summary: "Ticks its child only when the entry was written since the last look; otherwise SKIPPED.",
			Ports:   []PortSpec{entryPort},
			New:     mk(Skipped),
		},
		{
			ID: "WaitValueUpdate", Kind: DecoratorKind,
			Summary: "Ticks its child only when the entry was written since the last look; otherwise RUNNING.",
			Ports:   []PortSpec{entryPort},
			New:     mk(Running),
		},
	}
}

// Tick compares the entry's sequence number with the one seen last.
func (n *WasEntryUpdated) Tick() (Status, error) {
	if n.watch.updated(n.bb) {
		return Success, nil
	}
	if n.Explaining() {
		n.SetReason(fmt.Sprintf("%s was not written since the last look", n.watch.key))
	}
	return Failure, nil
}

// Tick resumes a running child, or ticks it after an update.
func (n *EntryUpdated) Tick() (Status, error) {
	if !n.childRunning && !n.watch.updated(n.bb) {
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("%s was not written since the last look", n.watch.key))
		}
		return n.notUpdated, nil
	}
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	n.childRunning = st == Running
	if st.Completed() {
		n.completeBeforeChild(st)
	}
	return st, nil
}

// Halt halts the child.
func (n *EntryUpdated) Halt() {
	n.childRunning = false
	n.ResetChildren()
}

// completeBeforeChild records a decorator's completed status, then resets
// its child. BT.CPP's decorators that do not reset their child themselves
// (EntryUpdatedDecorator, Nav2's RateController) rely on
// DecoratorNode::executeTick, which resets the child after the decorator's
// own transition; doing the same keeps the order observers see.
func (b *Base) completeBeforeChild(st Status) {
	b.setStatus(st)
	b.HaltChild(0)
}
