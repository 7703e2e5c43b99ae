package runtime

import (
	"fmt"
	"reflect"
	"strings"
)

// PortDir is the direction of a port.
type PortDir uint8

// The port directions.
const (
	Input PortDir = iota
	Output
	InOut
)

func (d PortDir) String() string {
	switch d {
	case Input:
		return "input"
	case Output:
		return "output"
	default:
		return "inout"
	}
}

// PortSpec declares one port of a node type: the loader, the validator, the
// palette export and the docs all read it.
type PortSpec struct {
	Name       string
	Dir        PortDir
	Type       reflect.Type // nil accepts any type
	Default    string       // the default as it would be written in XML
	HasDefault bool
	// Optional inputs may be left out of the tree although they have no
	// default; reading one that is not set is an error the node handles.
	Optional    bool
	Description string
	// Script marks a string input that holds a script (Script's code,
	// Precondition's if): editors check its syntax and read the blackboard
	// keys it uses.
	Script bool
	// EntryName marks a string input whose text names a blackboard entry
	// of the node's scope (UnsetBlackboard's key, TopicFresh's key):
	// editors count that entry among the keys the node uses, as they do a
	// "{key}".
	EntryName bool
}

// InputPort declares an input port of type T.
func InputPort[T any](name, description string) PortSpec {
	return PortSpec{Name: name, Dir: Input, Type: reflect.TypeFor[T](), Description: description}
}

// OutputPort declares an output port of type T.
func OutputPort[T any](name, description string) PortSpec {
	return PortSpec{Name: name, Dir: Output, Type: reflect.TypeFor[T](), Description: description}
}

// InOutPort declares a port that is read and written.
func InOutPort[T any](name, description string) PortSpec {
	return PortSpec{Name: name, Dir: InOut, Type: reflect.TypeFor[T](), Description: description}
}

// WithDefault returns the port with a default value, written as in XML: a
// literal, or a blackboard reference such as "{target}".
func (p PortSpec) WithDefault(value string) PortSpec {
	p.Default, p.HasDefault = value, true
	return p
}

// AsOptional returns the port marked optional: the tree may leave it out.
func (p PortSpec) AsOptional() PortSpec {
	p.Optional = true
	return p
}

// AsScript returns the port marked as holding a script.
func (p PortSpec) AsScript() PortSpec {
	p.Script = true
	return p
}

// AsEntryName returns the port marked as naming a blackboard entry.
func (p PortSpec) AsEntryName() PortSpec {
	p.EntryName = true
	return p
}

// Required reports whether the port must be given in the tree: inputs
// without a default that are not optional.
func (p PortSpec) Required() bool { return p.Dir != Output && !p.HasDefault && !p.Optional }

// BlackboardKey returns the key that a port value like "{key}" names. "{=}"
// names the key that is the port's own name.
func BlackboardKey(value, portName string) (string, bool) {
	if len(value) >= 2 && value[0] == '{' && value[len(value)-1] == '}' {
		key := strings.TrimSpace(value[1 : len(value)-1])
		if key == "=" {
			key = portName
		}
		return key, true
	}
	return "", false
}

// portBinding is a port of one node instance: bound to a blackboard key, or
// to a literal parsed once when the tree is built.
type portBinding struct {
	spec    *PortSpec
	key     string // blackboard key; empty for a literal
	literal any    // parsed literal
	raw     string
	given   bool // set in the tree or by a default
}

func (b *Base) port(name string) *portBinding {
	ports := b.portList()
	for i := range ports {
		if ports[i].spec.Name == name {
			return &ports[i]
		}
	}
	return nil
}

// GetInput reads input port name of node n as a T: the literal given in the
// tree (converted once at build time), or the blackboard entry it names,
// converted as BehaviorTree.CPP converts (a string entry parses, a number
// converts exactly).
func GetInput[T any](n Node, name string) (T, error) {
	var zero T
	b := n.base()
	p := b.port(name)
	if p == nil {
		return zero, fmt.Errorf("node type %s has no port %q", b.typeID, name)
	}
	if !p.given {
		return zero, fmt.Errorf("input port %q is not set and has no default", name)
	}
	v := p.literal
	if p.key != "" {
		var ok bool
		v, ok = b.bb.Get(p.key)
		if !ok {
			return zero, fmt.Errorf("input port %q: blackboard entry %q is not set", name, p.key)
		}
	}
	if t, ok := v.(T); ok {
		return t, nil
	}
	c, err := convertTo(v, reflect.TypeFor[T]())
	if err != nil {
		return zero, fmt.Errorf("input port %q: cannot read %s %s as %s: %v", name, TypeName(reflect.TypeOf(v)), quoteValue(v), TypeName(reflect.TypeFor[T]()), err)
	}
	return c.(T), nil
}

// GetInputOr reads input port name, or returns def when the port is not set or
// its blackboard entry is empty.
func GetInputOr[T any](n Node, name string, def T) (T, error) {
	b := n.base()
	p := b.port(name)
	if p == nil || !p.given {
		return def, nil
	}
	if p.key != "" {
		if _, ok := b.bb.Get(p.key); !ok {
			return def, nil
		}
	}
	return GetInput[T](n, name)
}

// SetOutput writes v to the blackboard entry that output port name of n is
// bound to. A port left unbound in the tree is not an error: the value is
// dropped, as nobody asked for it.
func SetOutput(n Node, name string, v any) error {
	b := n.base()
	p := b.port(name)
	if p == nil {
		return fmt.Errorf("node type %s has no port %q", b.typeID, name)
	}
	if p.key == "" {
		if p.given && p.raw != "" {
			return fmt.Errorf("output port %q must name a blackboard entry like {key}, not the literal %q", name, p.raw)
		}
		return nil
	}
	if err := b.bb.Set(p.key, v); err != nil {
		return fmt.Errorf("output port %q: %w", name, err)
	}
	return nil
}

// PortKey returns the blackboard key that port name is bound to, if any.
func PortKey(n Node, name string) (string, bool) {
	p := n.base().port(name)
	if p == nil || p.key == "" {
		return "", false
	}
	return p.key, true
}

// PortGiven reports whether port name was set in the tree or has a default.
func PortGiven(n Node, name string) bool {
	p := n.base().port(name)
	return p != nil && p.given
}

// PortInfo is one port of a node instance as the tree set it, for displays
// (the studio's node panel).
type PortInfo struct {
	Name string
	Dir  PortDir
	// Type is the port's declared type (nil: any).
	Type reflect.Type
	// Raw is the text the tree gave (or the default); Key the blackboard
	// key it names, looked up in the node's scope (empty for a literal).
	Raw   string
	Key   string
	Given bool
}

// Ports returns the node's ports in the order the node type declares them.
// The result is a copy, set when the tree was built: safe from any
// goroutine.
func (b *Base) Ports() []PortInfo {
	out := make([]PortInfo, len(b.portList()))
	for i, p := range b.portList() {
		out[i] = PortInfo{Name: p.spec.Name, Dir: p.spec.Dir, Type: p.spec.Type, Raw: p.raw, Key: p.key, Given: p.given}
	}
	return out
}
