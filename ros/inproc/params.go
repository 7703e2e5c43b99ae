package inproc

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The parameter server keeps leaves by global name; a namespace is every
// leaf under it, read as a map, as the ROS master's is.

// SetParam sets the parameter name (a global name) to v: a bool, an int,
// a float64, a string, a []any of those, or a map[string]any, which sets
// the namespace's leaves (after removing what was under name).
func (g *Graph) SetParam(name string, v any) error {
	if err := checkGlobal("parameter", name); err != nil {
		return err
	}
	leaves := map[string]any{}
	if err := flatten(name, v, leaves); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.deleteParamLocked(name)
	// A leaf that is now a namespace, or a namespace's parent that was a
	// leaf, goes.
	for p := parent(name); p != "/"; p = parent(p) {
		delete(g.params, p)
	}
	for k, v := range leaves {
		g.params[k] = v
	}
	return nil
}

func parent(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i <= 0 {
		return "/"
	}
	return name[:i]
}

func flatten(name string, v any, out map[string]any) error {
	switch x := v.(type) {
	case bool, int, float64, string:
		out[name] = x
	case int32:
		out[name] = int(x)
	case int64:
		out[name] = int(x)
	case float32:
		out[name] = float64(x)
	case []any:
		for i, e := range x {
			switch e.(type) {
			case bool, int, float64, string:
			default:
				return fmt.Errorf("parameter %s: element %d: a %T cannot be set (only bool, int, float64 and string)", name, i, e)
			}
		}
		out[name] = append([]any(nil), x...)
	case map[string]any:
		for k, e := range x {
			if err := flatten(name+"/"+k, e, out); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("parameter %s: a %T cannot be set (only bool, int, float64, string, []any and map[string]any)", name, v)
	}
	return nil
}

// Param returns the parameter name: a leaf's value, or a namespace's
// leaves as nested map[string]any; false when nothing is set there.
func (g *Graph) Param(name string) (any, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if v, ok := g.params[name]; ok {
		if l, ok := v.([]any); ok {
			return append([]any(nil), l...), true
		}
		return v, true
	}
	prefix := strings.TrimSuffix(name, "/") + "/"
	var m map[string]any
	for k, v := range g.params {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		if m == nil {
			m = map[string]any{}
		}
		segs := strings.Split(rest, "/")
		at := m
		for _, s := range segs[:len(segs)-1] {
			sub, _ := at[s].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
				at[s] = sub
			}
			at = sub
		}
		at[segs[len(segs)-1]] = v
	}
	if m == nil {
		return nil, false
	}
	return m, true
}

// HasParam says whether a leaf or a namespace is set at name.
func (g *Graph) HasParam(name string) bool {
	_, ok := g.Param(name)
	return ok
}

// DeleteParam removes the parameter or namespace name; false when nothing
// was set there.
func (g *Graph) DeleteParam(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.deleteParamLocked(name)
}

func (g *Graph) deleteParamLocked(name string) bool {
	found := false
	prefix := strings.TrimSuffix(name, "/") + "/"
	for k := range g.params {
		if k == name || strings.HasPrefix(k, prefix) {
			delete(g.params, k)
			found = true
		}
	}
	return found
}

// ParamNames returns the names of every leaf, sorted.
func (g *Graph) ParamNames() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Sorted(maps.Keys(g.params))
}
