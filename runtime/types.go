package runtime

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime/script"
)

// AnyType is the type of a port or entry that accepts values of any type.
var AnyType = reflect.TypeFor[any]()

func isAnyType(t reflect.Type) bool { return t == nil || t == AnyType }

// TypeName is how a type reads in errors, the palette and the docs: Go's own
// spelling, "any" for a port of any type.
func TypeName(t reflect.Type) string {
	if isAnyType(t) {
		return "any"
	}
	return t.String()
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// ParseLiteral converts the text of a port or a string blackboard value into
// typ: Go's integer, float, bool and string kinds; time.Duration ("1.5s", or
// a number of milliseconds as BehaviorTree.CPP writes durations); slices as
// ';'-separated elements as in BehaviorTree.CPP; and any type implementing
// encoding.TextUnmarshaler. typ nil or any keeps the string.
func ParseLiteral(s string, typ reflect.Type) (any, error) {
	if isAnyType(typ) {
		return s, nil
	}
	v, err := parseInto(s, typ)
	if err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

func parseInto(s string, typ reflect.Type) (reflect.Value, error) {
	if typ == reflect.TypeFor[time.Duration]() {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return reflect.ValueOf(time.Duration(ms * float64(time.Millisecond))), nil
		}
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil {
			return reflect.Value{}, fmt.Errorf("%q is not a duration (write 1.5s, 200ms, or a number of milliseconds)", s)
		}
		return reflect.ValueOf(d), nil
	}
	if reflect.PointerTo(typ).Implements(textUnmarshaler) {
		p := reflect.New(typ)
		if err := p.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			return reflect.Value{}, fmt.Errorf("%q is not a valid %s: %v", s, TypeName(typ), err)
		}
		return p.Elem(), nil
	}
	out := reflect.New(typ).Elem()
	t := strings.TrimSpace(s)
	switch typ.Kind() {
	case reflect.String:
		out.SetString(s)
	case reflect.Bool:
		switch t {
		case "true", "True", "TRUE", "1":
			out.SetBool(true)
		case "false", "False", "FALSE", "0":
		default:
			return out, fmt.Errorf("%q is not a bool (write true or false)", s)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(t, 10, typ.Bits())
		if err != nil {
			return out, fmt.Errorf("%q is not an integer that fits %s", s, TypeName(typ))
		}
		out.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(t, 10, typ.Bits())
		if err != nil {
			return out, fmt.Errorf("%q is not a non-negative integer that fits %s", s, TypeName(typ))
		}
		out.SetUint(n)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(t, typ.Bits())
		if err != nil {
			return out, fmt.Errorf("%q is not a number", s)
		}
		out.SetFloat(f)
	case reflect.Slice:
		parts := []string{}
		if t != "" {
			if n := strings.Count(s, ";") + 1; n > script.MaxArrayLen {
				return out, fmt.Errorf("a list of %d elements, more than the %d a value may hold", n, script.MaxArrayLen)
			}
			parts = strings.Split(s, ";")
		}
		sl := reflect.MakeSlice(typ, len(parts), len(parts))
		for i, p := range parts {
			ev, err := parseInto(p, typ.Elem())
			if err != nil {
				return out, fmt.Errorf("element %d: %v", i+1, err)
			}
			sl.Index(i).Set(ev)
		}
		return sl, nil
	default:
		return out, fmt.Errorf("no conversion from text to %s (implement encoding.TextUnmarshaler on it)", TypeName(typ))
	}
	return out, nil
}

// convertTo converts v to typ when BehaviorTree.CPP would: strings parse,
// numbers convert when the value is represented exactly.
func convertTo(v any, typ reflect.Type) (any, error) {
	if isAnyType(typ) {
		return v, nil
	}
	vt := reflect.TypeOf(v)
	if vt == typ {
		return v, nil
	}
	if s, ok := v.(string); ok {
		return ParseLiteral(s, typ)
	}
	rv := reflect.ValueOf(v)
	if isNumberKind(vt.Kind()) && isNumberKind(typ.Kind()) {
		out := reflect.New(typ).Elem()
		var f float64
		switch {
		case isIntKind(vt.Kind()):
			f = float64(rv.Int())
		case isUintKind(vt.Kind()):
			f = float64(rv.Uint())
		default:
			f = rv.Float()
		}
		switch {
		case isIntKind(typ.Kind()):
			if f != math.Trunc(f) {
				return nil, fmt.Errorf("%v has a fractional part and the entry is an integer", v)
			}
			out.SetInt(int64(f))
			if float64(out.Int()) != f {
				return nil, fmt.Errorf("%v does not fit %s", v, TypeName(typ))
			}
		case isUintKind(typ.Kind()):
			if f != math.Trunc(f) || f < 0 {
				return nil, fmt.Errorf("%v is not a non-negative integer", v)
			}
			out.SetUint(uint64(f))
			if float64(out.Uint()) != f {
				return nil, fmt.Errorf("%v does not fit %s", v, TypeName(typ))
			}
		default:
			out.SetFloat(f)
		}
		return out.Interface(), nil
	}
	if vt.AssignableTo(typ) {
		out := reflect.New(typ).Elem()
		out.Set(rv)
		return out.Interface(), nil
	}
	return nil, fmt.Errorf("types differ")
}

func isIntKind(k reflect.Kind) bool  { return k >= reflect.Int && k <= reflect.Int64 }
func isUintKind(k reflect.Kind) bool { return k >= reflect.Uint && k <= reflect.Uintptr }
func isNumberKind(k reflect.Kind) bool {
	return isIntKind(k) || isUintKind(k) || k == reflect.Float32 || k == reflect.Float64
}
