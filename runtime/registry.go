package runtime

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
)

// Kind is the category of a node type, as BehaviorTree.CPP and Groot2 name them.
type Kind uint8

// The kinds of node.
const (
	ActionKind Kind = iota
	ConditionKind
	ControlKind
	DecoratorKind
	SubTreeKind
)

var kindNames = [...]string{"Action", "Condition", "Control", "Decorator", "SubTree"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind reads a kind as Groot2 writes it (Action, Condition, Control,
// Decorator, SubTree).
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return 0, false
}

// Unbounded is a MaxChildren that allows any number of children.
const Unbounded = -1

// NodeType is everything the engine knows of a node type: the one
// declaration the loader, the validator, the palette export and the docs
// read.
type NodeType struct {
	ID   string
	Kind Kind
	// Ports are declared next to the node that owns them.
	Ports []PortSpec
	// Summary is one line for the palette; Doc is the node's contract (what
	// it returns for each child status, when it halts its children), in
	// Markdown, for the node reference.
	Summary string
	Doc     string
	// Category groups the palette and the reference ("control", "decorator",
	// "action", "condition", "skills", "ros", ...).
	Category string
	// MinChildren and MaxChildren bound the children; both zero means the
	// kind's default (leaves none, decorators one, controls one or more).
	MinChildren, MaxChildren int
	// New builds one instance. It may read literal ports from c to reject
	// impossible configurations when the tree is built. c is valid during
	// the call only: New must not keep it (or a closure over it), since
	// the builder gives the same Config, changed, to the next node.
	New func(c *Config) (Node, error)
}

// ChildBounds returns the allowed number of children.
func (t *NodeType) ChildBounds() (lo, hi int) {
	if t.MinChildren != 0 || t.MaxChildren != 0 {
		return t.MinChildren, t.MaxChildren
	}
	switch t.Kind {
	case ControlKind:
		return 1, Unbounded
	case DecoratorKind, SubTreeKind:
		return 1, 1
	default:
		return 0, 0
	}
}

// Port returns the declaration of port name.
func (t *NodeType) Port(name string) (*PortSpec, bool) {
	for i := range t.Ports {
		if t.Ports[i].Name == name {
			return &t.Ports[i], true
		}
	}
	return nil, false
}

// Config is what a node constructor receives: the instance's name and
// literal ports, how many children it will have, and the tree's services.
type Config struct {
	Name     string
	Path     string
	Type     *NodeType
	Children int
	Clock    Clock
	Rand     *rand.Rand // seeded per tree, for nodes that shuffle
	Registry *Registry
	spec     *NodeSpec
	literals map[string]any

	semaphores SemaphoreTable // BuildConf's
	owner      string         // BuildConf's
}

// Literal returns port name's value when the tree gives it (or its default)
// as a literal rather than a blackboard reference.
func (c *Config) Literal(name string) (any, bool) {
	v, ok := c.literals[name]
	return v, ok
}

// Attr returns an attribute as written in the tree.
func (c *Config) Attr(name string) (string, bool) {
	if c.spec == nil {
		return "", false
	}
	return c.spec.Attr(name)
}

// LiteralAs returns literal port name as a T (see Literal).
func LiteralAs[T any](c *Config, name string) (T, bool) {
	var zero T
	v, ok := c.literals[name]
	if !ok {
		return zero, false
	}
	if t, ok := v.(T); ok {
		return t, true
	}
	cv, err := convertTo(v, reflect.TypeFor[T]())
	if err != nil {
		return zero, false
	}
	return cv.(T), true
}

// Registry maps node type names to their declarations. NewRegistry returns
// one holding the built-in palette; skills, ROS nodes and user nodes are
// registered on top.
type Registry struct {
	types map[string]*NodeType
	enums map[string]int
}

// NewRegistry returns a registry with every built-in node type.
func NewRegistry() *Registry {
	r := &Registry{types: map[string]*NodeType{}, enums: map[string]int{}}
	for _, t := range builtins() {
		if err := r.Register(t); err != nil {
			panic(err) // a bug in the built-in table, caught by every test
		}
	}
	return r
}

// Register adds a node type. A second type with the same ID is an error.
func (r *Registry) Register(t NodeType) error {
	switch {
	case t.ID == "":
		return fmt.Errorf("register: node type without ID")
	case t.New == nil:
		return fmt.Errorf("register %s: no constructor", t.ID)
	case !validName(t.ID):
		return fmt.Errorf("register %q: a node ID is a letter followed by letters, digits or '_'", t.ID)
	}
	if _, dup := r.types[t.ID]; dup {
		return fmt.Errorf("register %s: a node type with this ID is already registered", t.ID)
	}
	seen := map[string]bool{}
	for _, p := range t.Ports {
		if !validName(p.Name) || IsReservedAttr(p.Name) {
			return fmt.Errorf("register %s: invalid port name %q", t.ID, p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("register %s: port %q declared twice", t.ID, p.Name)
		}
		seen[p.Name] = true
		if p.HasDefault {
			if _, isKey := BlackboardKey(p.Default, p.Name); !isKey {
				if _, err := ParseLiteral(p.Default, p.Type); err != nil {
					return fmt.Errorf("register %s: default of port %q: %v", t.ID, p.Name, err)
				}
			}
		}
	}
	if t.Category == "" {
		t.Category = strings.ToLower(t.Kind.String())
	}
	tt := t
	r.types[t.ID] = &tt
	return nil
}

// MustRegister is Register for tables known to be right; it panics on error.
func (r *Registry) MustRegister(types ...NodeType) {
	for _, t := range types {
		if err := r.Register(t); err != nil {
			panic(err)
		}
	}
}

// Lookup returns the node type registered as id.
func (r *Registry) Lookup(id string) (*NodeType, bool) {
	t, ok := r.types[id]
	return t, ok
}

// Types returns every registered type, sorted by category then ID.
func (r *Registry) Types() []*NodeType {
	out := make([]*NodeType, 0, len(r.types))
	for _, t := range r.types {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Category != out[j].Category {
			return out[i].Category < out[j].Category
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// RegisterEnum makes name usable in scripts as the integer value.
func (r *Registry) RegisterEnum(name string, value int) { r.enums[name] = value }

// Enums returns the registered enum names and values.
func (r *Registry) Enums() map[string]int { return r.enums }

// Nearest returns up to n registered IDs closest to id, for "did you mean".
func (r *Registry) Nearest(id string, n int) []string {
	names := make([]string, 0, len(r.types))
	for k := range r.types {
		names = append(names, k)
	}
	return NearestNames(id, names, n)
}

// NearestNames returns up to n of names closest to s by edit distance
// (case-insensitive), closest first, leaving out the far-fetched.
func NearestNames(s string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	ls := strings.ToLower(s)
	var cs []cand
	for _, name := range names {
		ln := strings.ToLower(name)
		d := editDistance(ls, ln)
		if strings.Contains(ln, ls) || strings.Contains(ls, ln) {
			d = min(d, 2)
		}
		if d <= max(2, len(s)/3) {
			cs = append(cs, cand{name, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	out := []string{}
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		isLetter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if i == 0 && !isLetter {
			return false
		}
		if !isLetter && !(r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// IsReservedAttr reports whether an attribute name belongs to the engine
// (name, ID, _autoremap, the pre/post conditions) rather than to a port.
func IsReservedAttr(name string) bool {
	switch name {
	case "name", "ID", "_autoremap":
		return true
	}
	for _, n := range PreConditions {
		if n == name {
			return true
		}
	}
	for _, n := range PostConditions {
		if n == name {
			return true
		}
	}
	return false
}
