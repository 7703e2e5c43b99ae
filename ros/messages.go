package ros

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bluenviron/goroslib/v2/pkg/actionproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"

	"github.com/btrobot/btrobot/runtime"
)

// TypeKind says whether a type name is a message, a service or an action.
type TypeKind uint8

// The kinds of ROS types.
const (
	MessageKind TypeKind = iota
	ServiceKind
	ActionKind
)

func (k TypeKind) String() string {
	switch k {
	case ServiceKind:
		return "service"
	case ActionKind:
		return "action"
	default:
		return "message"
	}
}

// MessageType is a ROS type name bound to the Go type that encodes it.
type MessageType struct {
	// Name is the ROS name, such as "geometry_msgs/Twist" or
	// "move_base_msgs/MoveBaseAction".
	Name string
	Kind TypeKind
	// Go is the struct type (not a pointer) goroslib encodes.
	Go reflect.Type
}

// New returns a pointer to a new zero value of the type, as goroslib wants
// it for publishers, service calls and goals.
func (t MessageType) New() any { return reflect.New(t.Go).Interface() }

// Messages maps ROS type names to Go types: every message, service and
// action goroslib ships, move_base_msgs, btrobot_msgs, and the types registered with
// Register. Profiles and tree ports name types through it. It is safe for
// concurrent use.
type Messages struct {
	mu    sync.RWMutex
	types map[string]MessageType
	names map[reflect.Type]string
}

// NewMessages returns a registry holding the built-in types.
func NewMessages() *Messages {
	m := &Messages{types: map[string]MessageType{}, names: map[reflect.Type]string{}}
	for _, e := range goroslibTypes {
		m.add(e.name, e.kind, e.typ)
	}
	for _, e := range moveBaseTypes {
		m.add(e.name, e.kind, e.typ)
	}
	for _, e := range btrobotTypes {
		m.add(e.name, e.kind, e.typ)
	}
	return m
}

var (
	builtinOnce     sync.Once
	builtinMessages *Messages
)

// BuiltinMessages returns a shared registry of the built-in types. Register
// user types on a registry of your own (NewMessages) rather than on it.
func BuiltinMessages() *Messages {
	builtinOnce.Do(func() { builtinMessages = NewMessages() })
	return builtinMessages
}

type typeEntry struct {
	name string
	kind TypeKind
	typ  reflect.Type
}

var moveBaseTypes = []typeEntry{
	{"move_base_msgs/MoveBaseAction", ActionKind, reflect.TypeFor[MoveBaseAction]()},
	{"move_base_msgs/MoveBaseGoal", MessageKind, reflect.TypeFor[MoveBaseActionGoal]()},
	{"move_base_msgs/MoveBaseResult", MessageKind, reflect.TypeFor[MoveBaseActionResult]()},
	{"move_base_msgs/MoveBaseFeedback", MessageKind, reflect.TypeFor[MoveBaseActionFeedback]()},
	{"move_base_msgs/RecoveryStatus", MessageKind, reflect.TypeFor[RecoveryStatus]()},
}

func (m *Messages) add(name string, kind TypeKind, t reflect.Type) {
	m.types[name] = MessageType{Name: name, Kind: kind, Go: t}
	if _, dup := m.names[t]; !dup {
		m.names[t] = name
	}
}

// Register adds a user type under its ROS name ("my_msgs/Status"). v is a
// value or pointer of a goroslib-style struct: a message; a service (a
// struct embedding its request and response); or an action (a struct
// embedding goal, result and feedback), whose goal, result and feedback are
// registered too as <Name>Goal, <Name>Result and <Name>Feedback when name
// ends in "Action". A name already taken is an error.
func (m *Messages) Register(name string, v any) error {
	if err := checkTypeName(name); err != nil {
		return err
	}
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return fmt.Errorf("register %s: want a struct type, got %v", name, reflect.TypeOf(v))
	}
	kind, err := classify(t)
	if err != nil {
		return fmt.Errorf("register %s: %v", name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	names := []string{name}
	var parts []reflect.Type
	if kind == ActionKind && strings.HasSuffix(name, "Action") {
		base := strings.TrimSuffix(name, "Action")
		names = append(names, base+"Goal", base+"Result", base+"Feedback")
		parts = EmbeddedParts(t)
	}
	for _, n := range names {
		if _, dup := m.types[n]; dup {
			return fmt.Errorf("register %s: the type name %s is already registered", name, n)
		}
	}
	m.add(name, kind, t)
	for i, p := range parts {
		m.add(names[i+1], MessageKind, p)
	}
	return nil
}

// classify tells a message from a service and an action by its shape, and
// checks that goroslib can encode it.
func classify(t reflect.Type) (TypeKind, error) {
	zero := reflect.New(t).Elem().Interface()
	parts := EmbeddedParts(t)
	switch len(parts) {
	case 3:
		if _, _, _, err := actionproc.GoalResultFeedback(zero); err == nil {
			return ActionKind, nil
		}
	case 2:
		if _, _, err := serviceproc.RequestResponse(zero); err == nil {
			return ServiceKind, nil
		}
	}
	if _, err := msgproc.MD5(zero); err != nil {
		return 0, fmt.Errorf("goroslib cannot encode %s: %v", t, err)
	}
	return MessageKind, nil
}

// EmbeddedParts returns the embedded struct fields of a service or action
// definition (request, response; or goal, result, feedback).
func EmbeddedParts(t reflect.Type) []reflect.Type {
	var out []reflect.Type
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, f.Type)
		}
	}
	return out
}

func checkTypeName(name string) error {
	pkg, typ, ok := strings.Cut(name, "/")
	if !ok || pkg == "" || typ == "" || strings.Contains(typ, "/") {
		return fmt.Errorf("type name %q: write package/Type, like geometry_msgs/Twist", name)
	}
	return nil
}

// Lookup returns the type registered as name. An unknown name is an error
// that lists close matches.
func (m *Messages) Lookup(name string) (MessageType, error) { return m.LookupKind(name, anyKind) }

// LookupKind is Lookup for a type that must be of kind k: a message, a
// service or an action.
func (m *Messages) LookupKind(name string, k TypeKind) (MessageType, error) {
	m.mu.RLock()
	t, ok := m.types[name]
	m.mu.RUnlock()
	what := "ROS type"
	if k != anyKind {
		what = "ROS " + k.String() + " type"
	}
	switch {
	case !ok && checkTypeName(name) != nil:
		return MessageType{}, fmt.Errorf("%s name %q: write package/Type, like geometry_msgs/Twist%s", what, name, m.hint(name, k))
	case !ok:
		return MessageType{}, fmt.Errorf("unknown %s %q%s", what, name, m.hint(name, k))
	case k != anyKind && t.Kind != k:
		return MessageType{}, fmt.Errorf("%s is %s type, not %s type%s", name, article(t.Kind), article(k), m.hint(name, k))
	}
	return t, nil
}

// article spells a kind with its article: "a message", "an action".
func article(k TypeKind) string {
	if k == ActionKind {
		return "an action"
	}
	return "a " + k.String()
}

// anyKind asks hint for names of every kind.
const anyKind TypeKind = 255

// hint suggests registered names close to name, of kind k unless anyKind.
func (m *Messages) hint(name string, k TypeKind) string {
	near := m.nearest(name, k)
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

// nearest returns up to five names close to name: by the whole name, then
// by the type name alone in any package (Twist finds geometry_msgs/Twist).
func (m *Messages) nearest(name string, k TypeKind) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var all, short []string
	byShort := map[string][]string{}
	for n, t := range m.types {
		if k != anyKind && t.Kind != k {
			continue
		}
		all = append(all, n)
		_, s, _ := strings.Cut(n, "/")
		if len(byShort[s]) == 0 {
			short = append(short, s)
		}
		byShort[s] = append(byShort[s], n)
	}
	near := runtime.NearestNames(name, all, 3)
	typ := name
	if _, t, ok := strings.Cut(name, "/"); ok {
		typ = t
	}
	for _, s := range runtime.NearestNames(typ, short, 3) {
		ns := byShort[s]
		sort.Strings(ns)
		for _, n := range ns {
			if !slices.Contains(near, n) && len(near) < 5 {
				near = append(near, n)
			}
		}
	}
	return near
}

// NameOf returns the ROS name registered for the Go type of v (a value, a
// pointer or a reflect.Type), or false.
func (m *Messages) NameOf(v any) (string, bool) {
	t, ok := v.(reflect.Type)
	if !ok {
		t = reflect.TypeOf(v)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	n, ok := m.names[t]
	return n, ok
}

// Names returns every registered name of kind k, sorted.
func (m *Messages) Names(k TypeKind) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for n, t := range m.types {
		if t.Kind == k {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// btrobotTypes are btrobot's own messages (btrobot_msgs.go).
var btrobotTypes = []typeEntry{
	{"btrobot_msgs/Transitions", MessageKind, reflect.TypeFor[Transitions]()},
	{"btrobot_msgs/Transition", MessageKind, reflect.TypeFor[Transition]()},
	{"btrobot_msgs/MissionPort", MessageKind, reflect.TypeFor[MissionPort]()},
	{"btrobot_msgs/Mission", MessageKind, reflect.TypeFor[Mission]()},
	{"btrobot_msgs/ListMissions", ServiceKind, reflect.TypeFor[ListMissions]()},
	{"btrobot_msgs/ReloadMissions", ServiceKind, reflect.TypeFor[ReloadMissions]()},
	{"btrobot_msgs/ExecuteMissionAction", ActionKind, reflect.TypeFor[ExecuteMissionAction]()},
	{"btrobot_msgs/ExecuteMissionGoal", MessageKind, reflect.TypeFor[ExecuteMissionActionGoal]()},
	{"btrobot_msgs/ExecuteMissionResult", MessageKind, reflect.TypeFor[ExecuteMissionActionResult]()},
	{"btrobot_msgs/ExecuteMissionFeedback", MessageKind, reflect.TypeFor[ExecuteMissionActionFeedback]()},
}
