package script

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
)

// pathStep is one part of a dotted name after the root: a field or map key
// (percentage), or an index into a list (0).
type pathStep struct {
	name  string
	index int // >= 0 for an index step
	// cache remembers which struct field the name resolved to for the last
	// struct type seen, so that steady-state reads skip the name matching.
	cache *atomic.Pointer[fieldCache]
}

type fieldCache struct {
	t     reflect.Type
	index []int
}

func newPathStep(seg string) pathStep {
	s := pathStep{name: seg, index: -1, cache: new(atomic.Pointer[fieldCache])}
	if isDigit(seg[0]) {
		n, err := strconv.Atoi(seg)
		if err != nil {
			n = math.MaxInt // out of range of any list
		}
		s.index = n
	}
	return s
}

// readPath walks ref's path into the value v of its root variable. Structs
// are read by field (percentage matches Percentage, power_supply_status
// matches PowerSupplyStatus, a rosname or json tag matches too), maps with
// string keys by key, lists by index; pointers and interfaces are followed.
func readPath(ref *nameRef, v any) (val, error) {
	rv := reflect.ValueOf(v)
	for i := range ref.path {
		step := &ref.path[i]
		var err error
		if rv, err = deref(rv, ref, i); err != nil {
			return val{}, err
		}
		switch rv.Kind() {
		case reflect.Struct:
			index, err := step.field(rv.Type(), ref, i)
			if err != nil {
				return val{}, err
			}
			if len(index) == 1 {
				rv = rv.Field(index[0])
			} else if rv, err = rv.FieldByIndexErr(index); err != nil {
				return val{}, fmt.Errorf("cannot read %s: %v", prefix(ref, i+1), err)
			}
		case reflect.Map:
			if rv.Type().Key().Kind() != reflect.String {
				return val{}, fmt.Errorf("cannot read %s: %s is a map with %s keys; only string keys can be read with a dot", prefix(ref, i+1), prefix(ref, i), rv.Type().Key())
			}
			got := rv.MapIndex(reflect.ValueOf(step.name).Convert(rv.Type().Key()))
			if !got.IsValid() {
				return val{}, fmt.Errorf("%s has no key '%s' (keys: %s)", prefix(ref, i), step.name, mapKeys(rv))
			}
			rv = got
		case reflect.Slice, reflect.Array:
			if step.index < 0 {
				return val{}, fmt.Errorf("cannot read %s: %s is a list (%s); read an element with an index, like %s.0", prefix(ref, i+1), prefix(ref, i), rv.Type(), prefix(ref, i))
			}
			if step.index >= rv.Len() {
				return val{}, fmt.Errorf("cannot read %s: index %s is out of range (%s has %d elements)", prefix(ref, i+1), step.name, prefix(ref, i), rv.Len())
			}
			rv = rv.Index(step.index)
		case reflect.String:
			return val{}, fmt.Errorf("cannot read %s: %s is a string", prefix(ref, i+1), prefix(ref, i))
		default:
			return val{}, fmt.Errorf("cannot read %s: %s is %s, which has no fields", prefix(ref, i+1), prefix(ref, i), rv.Type())
		}
	}
	rv, err := deref(rv, ref, -1)
	if err != nil || !rv.IsValid() {
		return val{}, err
	}
	switch rv.Kind() {
	case reflect.Bool:
		return boolVal(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intVal(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintVal(rv.Uint(), nil), nil
	case reflect.Float32, reflect.Float64:
		return realVal(rv.Float()), nil
	case reflect.String:
		return strVal(rv.String()), nil
	}
	if !rv.CanInterface() {
		return val{}, fmt.Errorf("cannot read %s: it is not exported", ref.text)
	}
	return val{k: kOther, x: rv.Interface()}, nil
}

// deref follows pointers and interfaces. A nil on the way (at < 0 means at
// the end) is an error, since there is nothing to read a field from; a nil
// at the end is simply no value.
func deref(rv reflect.Value, ref *nameRef, at int) (reflect.Value, error) {
	for rv.IsValid() && (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface) {
		if rv.IsNil() {
			if at < 0 {
				return reflect.Value{}, nil
			}
			return rv, fmt.Errorf("cannot read %s: %s is nil", prefix(ref, at+1), prefix(ref, at))
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() && at >= 0 {
		return rv, fmt.Errorf("cannot read %s: %s has no value", prefix(ref, at+1), prefix(ref, at))
	}
	return rv, nil
}

// prefix returns the dotted name up to n steps: prefix(battery.header.stamp, 1)
// is battery.header.
func prefix(ref *nameRef, n int) string {
	var b strings.Builder
	b.WriteString(ref.root)
	for i := 0; i < n && i < len(ref.path); i++ {
		b.WriteByte('.')
		b.WriteString(ref.path[i].name)
	}
	return b.String()
}

// field resolves the step's name to a field of struct type t.
func (s *pathStep) field(t reflect.Type, ref *nameRef, at int) ([]int, error) {
	if c := s.cache.Load(); c != nil && c.t == t {
		return c.index, nil
	}
	index, err := findField(t, s.name)
	if err != nil {
		return nil, fmt.Errorf("%s has no field '%s' (%s fields: %s)", prefix(ref, at), s.name, t, err)
	}
	s.cache.Store(&fieldCache{t: t, index: index})
	return index, nil
}

// findField matches name to an exported field of t: the exact Go name
// first, then a rosname or json tag, then the name ignoring case and
// underscores (percentage: Percentage, power_supply_status:
// PowerSupplyStatus, frame_id: FrameId). The error lists the fields.
func findField(t reflect.Type, name string) ([]int, error) {
	fields := readableFields(t)
	for _, f := range fields {
		if f.Name == name {
			return f.Index, nil
		}
	}
	for _, f := range fields {
		if tagName(f, "rosname") == name || tagName(f, "json") == name {
			return f.Index, nil
		}
	}
	want := normalize(name)
	var found []int
	for _, f := range fields {
		if normalize(f.Name) == want {
			if found != nil {
				return nil, fmt.Errorf("ambiguous between several fields")
			}
			found = f.Index
		}
	}
	if found != nil {
		return found, nil
	}
	names := make([]string, 0, len(fields))
	for _, f := range fields {
		names = append(names, snakeName(f))
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("none")
	}
	return nil, fmt.Errorf("%s", strings.Join(names, ", "))
}

// readableFields lists the exported fields of t, promoted ones included,
// leaving out embedded markers such as goroslib's msg.Package.
func readableFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if f.IsExported() && !f.Anonymous {
			out = append(out, f)
		}
	}
	return out
}

func tagName(f reflect.StructField, key string) string {
	tag := f.Tag.Get(key)
	if i := strings.IndexByte(tag, ','); i >= 0 {
		tag = tag[:i]
	}
	return tag
}

func normalize(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// snakeName is the name a ROS user would write for a field:
// PowerSupplyStatus is power_supply_status.
func snakeName(f reflect.StructField) string {
	if tag := tagName(f, "rosname"); tag != "" {
		return tag
	}
	rs := []rune(f.Name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func mapKeys(rv reflect.Value) string {
	keys := make([]string, 0, rv.Len())
	for _, k := range rv.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	const max = 20
	if len(keys) > max {
		return strings.Join(keys[:max], ", ") + fmt.Sprintf(" and %d more", len(keys)-max)
	}
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}
