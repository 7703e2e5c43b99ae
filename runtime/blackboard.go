package runtime

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/runtime/script"
)

// Blackboard is the typed key-value store that nodes share. It is safe for
// concurrent use: ROS callbacks and async leaves write from other goroutines
// while the tree ticks.
//
// Typing follows BehaviorTree.CPP: the type of an entry is fixed by the port
// that declares it or by its first non-string write; a string may be written
// into a typed entry when it parses as that type, a number when it converts
// exactly (3 into a float64 entry, not 1.5 into an int entry). A mismatching
// write is an error naming the key, both types and the writer.
//
// A subtree gets its own Blackboard whose parent is the caller's. A key is
// looked up locally, then through the subtree's explicit remapping, then
// (with auto-remapping, and unless the key starts with '_') in the parent. A
// key that starts with '@' always names the root blackboard.
type Blackboard struct {
	mu        sync.RWMutex
	entries   map[string]*Entry
	parent    *Blackboard
	remap     map[string]string // internal key -> key in the parent
	autoRemap bool
	now       func() time.Time
	watch     *changeWatch // shared by a root and all its scopes
}

// Change is one write or removal of a blackboard entry, as a change hook
// sees it (see [Blackboard.OnChange]).
type Change struct {
	// Scope is the blackboard that holds the entry: the root, or the own
	// scope of a subtree.
	Scope *Blackboard
	Key   string
	// Type is the entry's type after the write (nil while any type is
	// allowed). Value is the value written; nil when the entry was removed.
	Type  reflect.Type
	Value any
	// Seq is the entry's sequence number after the write (0 for a removal);
	// Stamp the time of the write.
	Seq   uint64
	Stamp time.Time
}

// changeWatch holds the change hook of a family of scopes. The pointer is
// loaded once per write: with no hook set, a write costs one atomic load.
type changeWatch struct{ hook atomic.Pointer[func(Change)] }

// Entry is one blackboard value with its type, a sequence number that grows
// with every write, and the time of the last write.
type Entry struct {
	mu    sync.Mutex
	scope *Blackboard // the scope that holds it; nil for an entry made by hand
	key   string
	typ   reflect.Type // nil: any type allowed until the first typed write
	value any          // nil: declared but never written
	seq   uint64
	stamp time.Time
}

// NewBlackboard returns an empty root blackboard whose timestamps come from
// now (time.Now when nil).
func NewBlackboard(now func() time.Time) *Blackboard {
	if now == nil {
		now = time.Now
	}
	return &Blackboard{entries: map[string]*Entry{}, now: now, watch: &changeWatch{}}
}

// OnChange sets f to be called after every write (Set, Assign, Entry.Store)
// and removal (Unset) in bb's root and every scope under it, replacing any
// hook set before; nil removes it.
//
// f runs on the writer's goroutine (the tick's, or a ROS callback's) while
// the entry is locked, so that the calls for one entry come in the order of
// its sequence numbers. It must be quick and must not touch the blackboard.
func (bb *Blackboard) OnChange(f func(Change)) {
	if f == nil {
		bb.watch.hook.Store(nil)
		return
	}
	bb.watch.hook.Store(&f)
}

// changed reports a write to the hook, if one is set. The caller holds
// e.mu.
func (e *Entry) changed(value any) {
	if e.scope == nil {
		return
	}
	if f := e.scope.watch.hook.Load(); f != nil {
		(*f)(Change{Scope: e.scope, Key: e.key, Type: e.typ, Value: value, Seq: e.seq, Stamp: e.stamp})
	}
}

// NewChild returns a blackboard scoped under bb, as a SubTree gets one.
// remap maps keys of the child to keys of bb; autoRemap makes every other
// non-private key of the child resolve in bb too.
func (bb *Blackboard) NewChild(remap map[string]string, autoRemap bool) *Blackboard {
	return &Blackboard{entries: map[string]*Entry{}, parent: bb, remap: remap, autoRemap: autoRemap, now: bb.now, watch: bb.watch}
}

// Root returns the outermost blackboard of the scope chain.
func (bb *Blackboard) Root() *Blackboard {
	for bb.parent != nil {
		bb = bb.parent
	}
	return bb
}

// Entry returns the entry that key names from this scope, or nil.
func (bb *Blackboard) Entry(key string) *Entry {
	if strings.HasPrefix(key, "@") {
		return bb.Root().Entry(key[1:])
	}
	bb.mu.RLock()
	e := bb.entries[key]
	bb.mu.RUnlock()
	if e != nil || bb.parent == nil {
		return e
	}
	if ext, ok := bb.remap[key]; ok {
		return bb.parent.Entry(ext)
	}
	if bb.autoRemap && !isPrivateKey(key) {
		return bb.parent.Entry(key)
	}
	return nil
}

func isPrivateKey(key string) bool { return strings.HasPrefix(key, "_") }

// Declare returns the entry that key names, creating it where BehaviorTree.CPP
// would (in the scope the key remaps to) with type typ when missing. typ nil
// declares an entry of any type. Declaring an existing typed entry with
// another type is an error.
func (bb *Blackboard) Declare(key string, typ reflect.Type) (*Entry, error) {
	if strings.HasPrefix(key, "@") {
		if strings.Contains(key[1:], "@") {
			return nil, fmt.Errorf("blackboard key %q: '@' may appear only once, at the start", key)
		}
		return bb.Root().Declare(key[1:], typ)
	}
	if key == "" {
		return nil, fmt.Errorf("empty blackboard key")
	}
	bb.mu.Lock()
	if e := bb.entries[key]; e != nil {
		bb.mu.Unlock()
		e.mu.Lock()
		defer e.mu.Unlock()
		// A string entry accepts ports of any type: strings convert on read.
		if typ != nil && e.typ != nil && e.typ != typ && !isAnyType(typ) && e.typ.Kind() != reflect.String {
			return nil, fmt.Errorf("blackboard entry %q is declared as %s; cannot declare it again as %s", key, TypeName(e.typ), TypeName(typ))
		}
		if e.typ == nil && typ != nil && !isAnyType(typ) && e.value == nil {
			e.typ = typ
		}
		return e, nil
	}
	if bb.parent != nil {
		if ext, ok := bb.remap[key]; ok {
			bb.mu.Unlock()
			return bb.parent.Declare(ext, typ)
		}
		if bb.autoRemap && !isPrivateKey(key) {
			bb.mu.Unlock()
			return bb.parent.Declare(key, typ)
		}
	}
	if isAnyType(typ) {
		typ = nil
	}
	e := &Entry{scope: bb, key: key, typ: typ}
	bb.entries[key] = e
	bb.mu.Unlock()
	return e, nil
}

// Get returns the value of key, and false when the entry is missing or was
// declared but never written.
func (bb *Blackboard) Get(key string) (any, bool) {
	e := bb.Entry(key)
	if e == nil {
		return nil, false
	}
	v, _, _ := e.Load()
	return v, v != nil
}

// Set writes v into key with the typing rules of the type comment, creating
// the entry when missing.
func (bb *Blackboard) Set(key string, v any) error {
	e := bb.Entry(key)
	if e == nil {
		var typ reflect.Type
		if _, isStr := v.(string); !isStr && v != nil {
			typ = reflect.TypeOf(v)
		}
		var err error
		if e, err = bb.Declare(key, typ); err != nil {
			return err
		}
	}
	return e.store(v, bb.now())
}

// Assign is a script's write: create (':=') makes the entry when missing,
// otherwise the entry must exist. The value converts to the type the entry
// already holds, as BehaviorTree.CPP's script assignment does.
func (bb *Blackboard) Assign(key string, v any, create bool) error {
	e := bb.Entry(key)
	if e == nil {
		if !create {
			return fmt.Errorf("%w %q: the blackboard has no such entry yet (use := to create it)", script.ErrUnknownVariable, key)
		}
		var err error
		if e, err = bb.Declare(key, nil); err != nil {
			return err
		}
	}
	return e.assign(v, bb.now())
}

// Unset removes key from this scope's own entries, as BehaviorTree.CPP's
// unset does: a key that this scope remaps to its parent, or an '@' key, is
// left alone. Removing a missing key is not an error.
func (bb *Blackboard) Unset(key string) {
	bb.mu.Lock()
	e := bb.entries[key]
	delete(bb.entries, key)
	bb.mu.Unlock()
	if e == nil {
		return
	}
	if f := bb.watch.hook.Load(); f != nil {
		e.mu.Lock()
		(*f)(Change{Scope: bb, Key: key, Type: e.typ, Stamp: bb.now()})
		e.mu.Unlock()
	}
}

// Keys returns the keys held in this scope (not the parent's), sorted.
func (bb *Blackboard) Keys() []string {
	bb.mu.RLock()
	defer bb.mu.RUnlock()
	keys := make([]string, 0, len(bb.entries))
	for k := range bb.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Snapshot returns the written values held in this scope.
func (bb *Blackboard) Snapshot() map[string]any {
	out := map[string]any{}
	for _, k := range bb.Keys() {
		if v, ok := bb.Get(k); ok {
			out[k] = v
		}
	}
	return out
}

// MarshalJSON exports the written entries of this scope as a JSON object.
func (bb *Blackboard) MarshalJSON() ([]byte, error) { return json.Marshal(bb.Snapshot()) }

// Key returns the entry's key in the scope that holds it.
func (e *Entry) Key() string { return e.key }

// Type returns the entry's type, or nil while any type is allowed.
func (e *Entry) Type() reflect.Type {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.typ
}

// Load returns the value, its sequence number and the time it was written.
func (e *Entry) Load() (v any, seq uint64, stamp time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.value, e.seq, e.stamp
}

// Seq returns the entry's sequence number: how many times it was written.
func (e *Entry) Seq() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seq
}

// Store writes v with the blackboard's typing rules and stamps it with at.
// ROS bridges use it to latch a message with its receive time.
func (e *Entry) Store(v any, at time.Time) error { return e.store(v, at) }

func (e *Entry) store(v any, at time.Time) error {
	if v == nil {
		return fmt.Errorf("blackboard entry %q: cannot write nil", e.key)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	vt := reflect.TypeOf(v)
	switch {
	case e.typ == nil:
		// The first write of a weakly typed entry fixes its type, except a
		// first string write into an empty entry, which BT.CPP keeps weak.
		if _, isStr := v.(string); !isStr || e.value != nil {
			e.typ = vt
		}
	case e.typ == vt:
	default:
		c, err := convertTo(v, e.typ)
		if err != nil {
			return fmt.Errorf("blackboard entry %q holds %s; cannot write %s %s: %v", e.key, TypeName(e.typ), TypeName(vt), quoteValue(v), err)
		}
		v = c
	}
	e.value = v
	e.seq++
	e.stamp = at
	e.changed(v)
	return nil
}

func (e *Entry) assign(v any, at time.Time) error {
	if v == nil {
		return fmt.Errorf("blackboard entry %q: cannot assign an empty value", e.key)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	target := e.typ
	if e.value != nil {
		target = reflect.TypeOf(e.value)
	}
	if s, isStr := v.(string); isStr && e.typ == nil && target != nil && isNumberKind(target.Kind()) {
		// A script writing text into a number that no port declared: the
		// entry becomes the real the text reads as, as in BehaviorTree.CPP.
		f, err := textToReal(s)
		if err != nil {
			return fmt.Errorf("cannot assign string %q to blackboard entry %q, which holds a number: %v", s, e.key, err)
		}
		v, target = f, nil
	}
	if target != nil && target != reflect.TypeOf(v) {
		c, err := convertTo(v, target)
		if err != nil {
			return fmt.Errorf("cannot assign %s %s to blackboard entry %q of type %s: %v", TypeName(reflect.TypeOf(v)), quoteValue(v), e.key, TypeName(target), err)
		}
		v = c
	}
	e.value = v
	e.seq++
	e.stamp = at
	e.changed(v)
	return nil
}

func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	s := fmt.Sprint(v)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// textToReal reads text as BehaviorTree.CPP's scripts read a string used as
// a number: a real, or true/false as 1 and 0.
func textToReal(s string) (float64, error) {
	switch strings.TrimSpace(s) {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}
