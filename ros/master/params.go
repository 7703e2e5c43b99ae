package master

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// paramTree is the parameter server's store. Dictionaries are namespaces:
// setting /a to {x: 1} replaces everything under /a with /a/x = 1, and
// getting /a returns the dictionary {x: 1}. It is not safe for concurrent
// use; the master serializes access.
//
// The tree keeps count of the memory its values take (see sizeOf) and
// refuses a change that would bring it over its limit.
type paramTree struct {
	root  map[string]any
	bytes int64 // sizeOf(root), kept up to date by set and remove
	limit int64 // the most bytes may hold; 0 means no limit
}

var errParamNotSet = errors.New("parameter is not set")

// maxKeyDepth bounds the namespaces of a parameter key; with the nesting of
// its value (maxValueDepth) it bounds the depth of the tree, which the
// walks over it recurse through.
const maxKeyDepth = 100

// paramLimitError refuses a change that would take the parameters over the
// memory limit.
type paramLimitError struct {
	key          string
	value, total int64 // the new value's size, and the total it would make
	limit        int64
}

func (e *paramLimitError) Error() string {
	return fmt.Sprintf("parameter memory limit: setting %s (%s) would bring the parameters to %s, over the master's limit of %s (MaxParamBytes); delete parameters or raise the limit",
		e.key, formatBytes(e.value), formatBytes(e.total), formatBytes(e.limit))
}

func newParamTree(limit int64) *paramTree {
	root := map[string]any{}
	return &paramTree{root: root, bytes: sizeOf(root), limit: limit}
}

// segments splits a global name into its non-empty segments.
func segments(key string) []string {
	return strings.FieldsFunc(key, func(r rune) bool { return r == '/' })
}

// lookup returns the value stored at a global key, not a copy: a
// dictionary for a namespace, the whole tree for "/".
func (p *paramTree) lookup(key string) (any, bool) {
	var v any = p.root
	for _, s := range segments(key) {
		dict, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = dict[s]; !ok {
			return nil, false
		}
	}
	return v, true
}

// get returns a copy of the value at a global key: a dictionary for a
// namespace, the whole tree for "/".
func (p *paramTree) get(key string) (any, error) {
	v, ok := p.lookup(key)
	if !ok {
		return nil, errParamNotSet
	}
	return deepCopy(v), nil
}

// has reports whether a key holds a value or a namespace.
func (p *paramTree) has(key string) bool {
	_, ok := p.lookup(key)
	return ok
}

// set stores a copy of value at a global key, creating namespaces on the way
// and turning values that stood in the way into namespaces, as rosmaster does.
// Only a dictionary may replace the root. It fails with a *paramLimitError,
// changing nothing, when the tree would outgrow its limit.
func (p *paramTree) set(key string, value any) error {
	segs := segments(key)
	if len(segs) > maxKeyDepth {
		return fmt.Errorf("parameter key has %d levels, more than the %d a key may have", len(segs), maxKeyDepth)
	}
	if len(segs) == 0 {
		dict, ok := value.(map[string]any)
		if !ok {
			return errors.New("cannot set root of parameter tree to non-dictionary")
		}
		size := sizeOf(dict)
		if err := p.fits(key, size, size); err != nil {
			return err
		}
		p.root = deepCopy(dict).(map[string]any)
		p.bytes = size
		return nil
	}
	// Walk the namespaces that exist; from the first segment that is not
	// one, the value replaces what stood there, wrapped in new namespaces.
	dict := p.root
	i := 0
	for ; i < len(segs)-1; i++ {
		child, ok := dict[segs[i]].(map[string]any)
		if !ok {
			break
		}
		dict = child
	}
	replacement := value
	for j := len(segs) - 1; j > i; j-- {
		replacement = map[string]any{segs[j]: replacement}
	}
	size := sizeOf(replacement)
	delta := size
	if old, ok := dict[segs[i]]; ok {
		delta -= sizeOf(old)
	} else {
		delta += entrySize(segs[i])
	}
	if err := p.fits(key, sizeOf(value), p.bytes+delta); err != nil {
		return err
	}
	dict[segs[i]] = deepCopy(replacement)
	p.bytes += delta
	return nil
}

// fits checks that the tree may grow to total bytes by a value of size bytes.
func (p *paramTree) fits(key string, size, total int64) error {
	if p.limit > 0 && total > p.limit {
		return &paramLimitError{key: key, value: size, total: total, limit: p.limit}
	}
	return nil
}

// remove deletes the value or namespace at a global key.
func (p *paramTree) remove(key string) error {
	segs := segments(key)
	if len(segs) == 0 {
		return errors.New("cannot delete root of parameter tree")
	}
	dict := p.root
	for _, s := range segs[:len(segs)-1] {
		child, ok := dict[s].(map[string]any)
		if !ok {
			return errParamNotSet
		}
		dict = child
	}
	last := segs[len(segs)-1]
	old, ok := dict[last]
	if !ok {
		return errParamNotSet
	}
	delete(dict, last)
	p.bytes -= sizeOf(old) + entrySize(last)
	return nil
}

// namesSize is how many bytes the names of every value in the tree add up
// to. A name repeats its namespaces, so the list of names can weigh much
// more than the tree: getParamNames reserves this much before it builds it.
func (p *paramTree) namesSize() int64 {
	var total int64
	var walk func(prefix int64, dict map[string]any)
	walk = func(prefix int64, dict map[string]any) {
		for k, v := range dict {
			name := prefix + 1 + int64(len(k))
			if sub, ok := v.(map[string]any); ok {
				walk(name, sub)
			} else {
				total += name + stringOverhead
			}
		}
	}
	walk(0, p.root)
	return total
}

// names lists the global names of every value (not namespace) in the tree,
// sorted.
func (p *paramTree) names() []string {
	var out []string
	var walk func(prefix string, dict map[string]any)
	walk = func(prefix string, dict map[string]any) {
		for k, v := range dict {
			name := prefix + k
			if sub, ok := v.(map[string]any); ok {
				walk(name+"/", sub)
			} else {
				out = append(out, name)
			}
		}
	}
	walk("/", p.root)
	sort.Strings(out)
	if out == nil {
		out = []string{}
	}
	return out
}

// search looks for key upwards from the namespace of callerID, as
// searchParam does: the first namespace (from the caller's own up to the
// root) holding the key's first segment wins, and the full key is returned
// there even if its deeper segments are not set yet.
func (p *paramTree) search(callerID, key string) (string, bool) {
	if strings.HasPrefix(key, "/") {
		return key, p.has(key)
	}
	keySegs := segments(key)
	if len(keySegs) == 0 {
		return "", false
	}
	nsSegs := segments(namespaceOf(callerID))
	// rosmaster starts at the caller's own name treated as a namespace
	// (/ns/node/key), then walks up from its namespace.
	if p.has(joinName(callerID, keySegs[0])) {
		return joinName(callerID, canonicalName(key)), true
	}
	for i := len(nsSegs); i >= 0; i-- {
		ns := "/" + strings.Join(nsSegs[:i], "/")
		if p.has(joinName(ns, keySegs[0])) {
			return joinName(ns, canonicalName(key)), true
		}
	}
	return "", false
}

// The memory a value takes, as the parameter limit counts it: the bytes of
// its strings, plus an overhead for each value and dictionary entry close to
// what Go spends on them (an interface, a slice or map header, a map slot).
const (
	valueOverhead  = 16 // an interface holding the value
	stringOverhead = 16 // a string header
	sliceOverhead  = 24
	mapOverhead    = 48
	entryOverhead  = 32 // a map slot: key header, value interface, hash
)

// sizeOf returns the memory a value takes, as the parameter limit counts it.
func sizeOf(v any) int64 {
	switch x := v.(type) {
	case string:
		return valueOverhead + stringOverhead + int64(len(x))
	case dateTime:
		return valueOverhead + stringOverhead + int64(len(x))
	case []byte:
		return valueOverhead + sliceOverhead + int64(len(x))
	case []any:
		n := int64(valueOverhead + sliceOverhead)
		for _, e := range x {
			n += sizeOf(e)
		}
		return n
	case map[string]any:
		n := int64(valueOverhead + mapOverhead)
		for k, e := range x {
			n += entrySize(k) + sizeOf(e)
		}
		return n
	}
	return valueOverhead
}

// entrySize is what a dictionary entry named key takes besides its value.
func entrySize(key string) int64 {
	return entryOverhead + int64(len(key))
}

// formatBytes writes a size for people: "64 MiB", "60.0 MiB", "512 bytes".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// deepCopy copies dictionaries and arrays so that callers never share
// storage with the tree.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	case []byte:
		return append([]byte{}, x...)
	}
	return v
}
