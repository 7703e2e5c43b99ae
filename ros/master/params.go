package master

import (
	"errors"
	"sort"
	"strings"
)

// paramTree is the parameter server's store. Dictionaries are namespaces:
// setting /a to {x: 1} replaces everything under /a with /a/x = 1, and
// getting /a returns the dictionary {x: 1}. It is not safe for concurrent
// use; the master serializes access.
type paramTree struct {
	root map[string]any
}

var errParamNotSet = errors.New("parameter is not set")

func newParamTree() *paramTree {
	return &paramTree{root: map[string]any{}}
}

// segments splits a global name into its non-empty segments.
func segments(key string) []string {
	return strings.FieldsFunc(key, func(r rune) bool { return r == '/' })
}

// get returns a copy of the value at a global key: a dictionary for a
// namespace, the whole tree for "/".
func (p *paramTree) get(key string) (any, error) {
	var v any = p.root
	for _, s := range segments(key) {
		dict, ok := v.(map[string]any)
		if !ok {
			return nil, errParamNotSet
		}
		if v, ok = dict[s]; !ok {
			return nil, errParamNotSet
		}
	}
	return deepCopy(v), nil
}

// has reports whether a key holds a value or a namespace.
func (p *paramTree) has(key string) bool {
	_, err := p.get(key)
	return err == nil
}

// set stores a copy of value at a global key, creating namespaces on the way
// and turning values that stood in the way into namespaces, as rosmaster does.
// Only a dictionary may replace the root.
func (p *paramTree) set(key string, value any) error {
	segs := segments(key)
	if len(segs) == 0 {
		dict, ok := value.(map[string]any)
		if !ok {
			return errors.New("cannot set root of parameter tree to non-dictionary")
		}
		p.root = deepCopy(dict).(map[string]any)
		return nil
	}
	dict := p.root
	for _, s := range segs[:len(segs)-1] {
		child, ok := dict[s].(map[string]any)
		if !ok {
			child = map[string]any{}
			dict[s] = child
		}
		dict = child
	}
	dict[segs[len(segs)-1]] = deepCopy(value)
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
	if _, ok := dict[last]; !ok {
		return errParamNotSet
	}
	delete(dict, last)
	return nil
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
