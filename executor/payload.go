package executor

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Bounds of what a goal may carry; beyond them it is rejected before
// anything is allocated for it.
const (
	maxPayload     = 64 << 10
	maxPayloadKeys = 256
	maxMissionName = 256
)

// value is one entry a payload sets, typed as the mission's blackboard
// wants it.
type value struct {
	key string
	typ reflect.Type // nil: any
	v   any
}

// parsePayload reads a goal's payload: a YAML map of blackboard keys to
// scalars, each converted to the type of the mission's port it feeds. The
// error names the key and the type it wants.
func parsePayload(m *Mission, text string) ([]value, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	if len(text) > maxPayload {
		return nil, fmt.Errorf("payload: %d bytes, more than %d", len(text), maxPayload)
	}
	doc, err := input.YAML("payload", []byte(text))
	if err != nil {
		return nil, err
	}
	n := doc
	if n == nil {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("payload: want a YAML map of blackboard keys to values (target: kitchen), got %s", input.Describe(n))
	}
	if len(n.Content)/2 > maxPayloadKeys {
		return nil, fmt.Errorf("payload: %d keys, more than %d", len(n.Content)/2, maxPayloadKeys)
	}
	types := map[string]reflect.Type{}
	for _, p := range m.Ports {
		types[p.Name] = p.Type
	}
	var out []value
	var problems []string
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := fmt.Sprintf("payload:%d:%d", k.Line, k.Column)
		key := k.Value
		switch {
		case k.Kind != yaml.ScalarNode || !ros.ValidKey(key):
			problems = append(problems, fmt.Sprintf("%s: key %q: a key is a letter or '_' followed by letters, digits or '_'", at, key))
			continue
		case seen[key]:
			problems = append(problems, fmt.Sprintf("%s: key %q given twice", at, key))
			continue
		}
		seen[key] = true
		typ, known := types[key]
		x, err := scalar(v, typ)
		if err != nil {
			want := "a scalar"
			if known && typ != nil {
				want = runtime.TypeName(typ)
			}
			problems = append(problems, fmt.Sprintf("%s: key %q wants %s: %v", at, key, want, err))
			continue
		}
		out = append(out, value{key: key, typ: typ, v: x})
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return out, nil
}

// scalar converts a YAML value to typ by the blackboard's own rules (a
// string parses as the type; a number converts exactly); typ nil keeps
// YAML's own type (int, float64, bool or string).
func scalar(n *yaml.Node, typ reflect.Type) (any, error) {
	if n.Kind == yaml.AliasNode {
		return nil, fmt.Errorf("aliases are not read")
	}
	if n.Kind != yaml.ScalarNode {
		if typ != nil && typ.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode {
			parts := make([]string, 0, len(n.Content))
			for _, c := range n.Content {
				if c.Kind != yaml.ScalarNode || strings.Contains(c.Value, ";") {
					return nil, fmt.Errorf("got %s in a list", input.Describe(c))
				}
				parts = append(parts, c.Value)
			}
			return runtime.ParseLiteral(strings.Join(parts, ";"), typ)
		}
		return nil, fmt.Errorf("got %s", input.Describe(n))
	}
	if typ != nil && typ.Kind() == reflect.String && n.ShortTag() != "!!null" {
		return n.Value, nil // target: 12 is the place named "12"
	}
	var v any
	switch n.ShortTag() {
	case "!!null":
		return nil, fmt.Errorf("got null")
	case "!!int":
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is out of range", n.Value)
		}
		v = int(i)
	case "!!float":
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", n.Value)
		}
		v = f
	case "!!bool":
		v = n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
	default:
		v = n.Value
	}
	if typ == nil {
		return v, nil
	}
	// The blackboard's own conversion, on an entry of the port's type.
	bb := runtime.NewBlackboard(nil)
	e, err := bb.Declare("v", typ)
	if err != nil {
		return nil, err
	}
	if err := e.Store(v, time.Time{}); err != nil {
		return nil, fmt.Errorf("got %s %q", yamlType(n), n.Value)
	}
	x, _, _ := e.Load()
	return x, nil
}

func yamlType(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!int":
		return "an integer"
	case "!!float":
		return "a real"
	case "!!bool":
		return "a boolean"
	}
	return "the text"
}

// apply writes the values into a blackboard, each entry declared with its
// port's type first, so that the tree's ports find it as they declare it.
func apply(bb *runtime.Blackboard, vals []value) error {
	for _, v := range vals {
		if v.typ != nil {
			if _, err := bb.Declare(v.key, v.typ); err != nil {
				return fmt.Errorf("payload key %q: %v", v.key, err)
			}
		}
		if err := bb.Set(v.key, v.v); err != nil {
			return fmt.Errorf("payload key %q: %v", v.key, err)
		}
	}
	return nil
}
