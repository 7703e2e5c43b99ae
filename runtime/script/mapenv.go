package script

import (
	"fmt"
	"reflect"
	"strings"
)

// MapEnv is an Env backed by maps, for tests and tools: a one-scope
// blackboard where '@name' is the same variable as 'name'. A variable's type
// is fixed by the first value it holds, and later assignments are converted
// to it with Convert; a variable holding nil takes anything. It is not safe
// for concurrent use.
type MapEnv struct {
	Vars  map[string]Value
	Enums map[string]int
}

// Lookup implements Env.
func (m *MapEnv) Lookup(name string) (Value, bool) {
	v, ok := m.Vars[strings.TrimPrefix(name, "@")]
	return v, ok
}

// Assign implements Env.
func (m *MapEnv) Assign(name string, v Value, create bool) error {
	key := strings.TrimPrefix(name, "@")
	cur, ok := m.Vars[key]
	if !ok && !create {
		return fmt.Errorf("%w '%s' (use := to create it)", ErrUnknownVariable, name)
	}
	if m.Vars == nil {
		m.Vars = map[string]Value{}
	}
	if cur == nil {
		m.Vars[key] = v
		return nil
	}
	conv, err := Convert(v, reflect.TypeOf(cur))
	if err != nil {
		return err
	}
	m.Vars[key] = conv
	return nil
}

// Enum implements Env.
func (m *MapEnv) Enum(name string) (int, bool) {
	n, ok := m.Enums[name]
	return n, ok
}
