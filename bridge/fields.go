package bridge

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/bluenviron/goroslib/v2/pkg/msg"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// A field path names a part of a message as ROS users write it:
// "percentage", "pose.pose.position.x", "ranges.0". A field matches its Go
// name, its rosname tag, or its snake_case spelling (frame_id: FrameId).

// fieldPath is a path compiled against a message type.
type fieldPath struct {
	text  string
	steps []pathStep
	leaf  reflect.Type
}

type pathStep struct {
	field []int // struct field index, or nil for a list index
	index int
}

// compilePath resolves path in message type t (named typeName in errors).
func compilePath(t reflect.Type, typeName, path string) (fieldPath, error) {
	fp := fieldPath{text: path}
	if strings.TrimSpace(path) == "" {
		return fp, fmt.Errorf("empty field path")
	}
	cur := t
	where := typeName
	for _, seg := range strings.Split(path, ".") {
		switch {
		case seg == "":
			return fp, fmt.Errorf("field path %q has an empty part", path)
		case cur.Kind() == reflect.Struct:
			if cur == reflect.TypeFor[time.Time]() {
				return fp, fmt.Errorf("%s is a time, which has no field %q", where, seg)
			}
			f, err := findField(cur, seg)
			if err != nil {
				return fp, fmt.Errorf("%s has no field %q%s", where, seg, err.Error())
			}
			fp.steps = append(fp.steps, pathStep{field: f.Index})
			cur = f.Type
			where += "." + snakeName(f)
		case cur.Kind() == reflect.Slice || cur.Kind() == reflect.Array:
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 {
				return fp, fmt.Errorf("%s is a list: index it with a number (%s.0), not %q", where, where, seg)
			}
			if cur.Kind() == reflect.Array && n >= cur.Len() {
				return fp, fmt.Errorf("%s has %d elements; index %d is out of range", where, cur.Len(), n)
			}
			fp.steps = append(fp.steps, pathStep{index: n})
			cur = cur.Elem()
			where += "." + seg
		default:
			return fp, fmt.Errorf("%s is a %s, which has no field %q", where, rosTypeName(cur), seg)
		}
	}
	fp.leaf = cur
	return fp, nil
}

// findField matches name against the exported fields of struct t; the error
// suggests the nearest fields and lists them all.
func findField(t reflect.Type, name string) (reflect.StructField, error) {
	var fields []reflect.StructField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous || isMarker(f.Type) {
			continue
		}
		fields = append(fields, f)
	}
	for _, f := range fields {
		if f.Name == name || f.Tag.Get("rosname") == name {
			return f, nil
		}
	}
	want := strings.ToLower(strings.ReplaceAll(name, "_", ""))
	for _, f := range fields {
		if strings.ToLower(f.Name) == want {
			return f, nil
		}
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = snakeName(f)
	}
	if len(names) == 0 {
		return reflect.StructField{}, fmt.Errorf(" (it has no fields)")
	}
	hint := ""
	if near := runtime.NearestNames(name, names, 3); len(near) > 0 && len(near) < len(names) {
		hint = "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return reflect.StructField{}, fmt.Errorf(" (fields: %s%s)", strings.Join(names, ", "), hint)
}

func isMarker(t reflect.Type) bool {
	return t == reflect.TypeFor[msg.Package]() || t == reflect.TypeFor[msg.Name]() || t == reflect.TypeFor[msg.Definitions]()
}

// snakeName is the name ROS gives a field: its rosname tag, or its Go name
// in snake_case (PowerSupplyStatus: power_supply_status), as goroslib
// derives message definitions.
func snakeName(f reflect.StructField) string {
	if tag := f.Tag.Get("rosname"); tag != "" {
		return tag
	}
	var b strings.Builder
	for i, r := range f.Name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// rosTypeName spells a Go field type as a message definition would.
func rosTypeName(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[time.Time]():
		return "time"
	case reflect.TypeFor[time.Duration]():
		return "duration"
	}
	switch t.Kind() {
	case reflect.Slice:
		return rosTypeName(t.Elem()) + "[]"
	case reflect.Array:
		return fmt.Sprintf("%s[%d]", rosTypeName(t.Elem()), t.Len())
	case reflect.Struct:
		if n, ok := ros.BuiltinMessages().NameOf(t); ok {
			return n
		}
	}
	return t.String()
}

// get reads the path from v, a message value or pointer.
func (fp *fieldPath) get(v reflect.Value) (reflect.Value, error) {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	for _, s := range fp.steps {
		if s.field != nil {
			v = v.FieldByIndex(s.field)
			continue
		}
		if s.index >= v.Len() {
			return reflect.Value{}, fmt.Errorf("field %s: index %d is out of range (the list has %d elements)", fp.text, s.index, v.Len())
		}
		v = v.Index(s.index)
	}
	return v, nil
}

// set writes x into the path of v, an addressable message value, converting
// numbers when nothing is lost and parsing strings into other types. Lists
// grow to take an index past their end.
func (fp *fieldPath) set(v reflect.Value, x any) error {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	for _, s := range fp.steps {
		if s.field != nil {
			v = v.FieldByIndex(s.field)
			continue
		}
		if v.Kind() == reflect.Slice && s.index >= v.Len() {
			grown := reflect.MakeSlice(v.Type(), s.index+1, s.index+1)
			reflect.Copy(grown, v)
			v.Set(grown)
		}
		v = v.Index(s.index)
	}
	c, err := convertValue(x, fp.leaf)
	if err != nil {
		return fmt.Errorf("field %s: %v", fp.text, err)
	}
	v.Set(c)
	return nil
}

// convertValue converts x to type t: the same type, a number that fits
// exactly, or a string that parses as t (runtime.ParseLiteral's rules, plus
// numbers of seconds for durations).
func convertValue(x any, t reflect.Type) (reflect.Value, error) {
	rv := reflect.ValueOf(x)
	if !rv.IsValid() {
		return reflect.Value{}, fmt.Errorf("no value")
	}
	if rv.Type() == t {
		return rv, nil
	}
	if rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Type() == t {
		return rv.Elem(), nil
	}
	if s, ok := x.(string); ok {
		if t == reflect.TypeFor[time.Duration]() {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				return reflect.ValueOf(time.Duration(f * float64(time.Second))), nil
			}
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil {
				return reflect.Value{}, fmt.Errorf("%q is not a duration (write 1.5s, 200ms or a number of seconds)", s)
			}
			return reflect.ValueOf(d), nil
		}
		p, err := runtime.ParseLiteral(s, t)
		if err != nil {
			return reflect.Value{}, err
		}
		return reflect.ValueOf(p), nil
	}
	if f, ok := number(rv); ok {
		out := reflect.New(t).Elem()
		switch k := t.Kind(); {
		case k >= reflect.Int && k <= reflect.Int64:
			if f != math.Trunc(f) || out.OverflowInt(int64(f)) {
				return reflect.Value{}, fmt.Errorf("%v does not fit %s", x, rosTypeName(t))
			}
			out.SetInt(int64(f))
			return out, nil
		case k >= reflect.Uint && k <= reflect.Uint64:
			if f != math.Trunc(f) || f < 0 || out.OverflowUint(uint64(f)) {
				return reflect.Value{}, fmt.Errorf("%v does not fit %s", x, rosTypeName(t))
			}
			out.SetUint(uint64(f))
			return out, nil
		case k == reflect.Float32 || k == reflect.Float64:
			out.SetFloat(f)
			return out, nil
		case k == reflect.Bool && (f == 0 || f == 1):
			out.SetBool(f == 1)
			return out, nil
		}
	}
	if rv.Type().ConvertibleTo(t) && rv.Kind() == t.Kind() {
		return rv.Convert(t), nil
	}
	return reflect.Value{}, fmt.Errorf("a %s cannot go into a %s field", rv.Type(), rosTypeName(t))
}

func number(v reflect.Value) (float64, bool) {
	switch k := v.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		return float64(v.Int()), true
	case k >= reflect.Uint && k <= reflect.Uint64:
		return float64(v.Uint()), true
	case k == reflect.Float32 || k == reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}
