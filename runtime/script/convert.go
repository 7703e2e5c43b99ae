package script

import (
	"errors"
	"fmt"
	"math"
	"reflect"
)

// Truthy decides a condition the way BT.CPP's Any::cast<bool> does, for
// ScriptCondition, Precondition and the _successIf, _failureIf, _skipIf and
// _while attributes. It is strict:
//
//   - a bool is itself;
//   - an integer must be 0 or 1 (2 and -1 are errors);
//   - a real is true when non-zero (NaN is true), but a negative real is an
//     error;
//   - strings, nil and other values are errors ('true' is not a condition;
//     compare it: flag == 'true').
func Truthy(v Value) (bool, error) {
	return truthy(fromValue(v))
}

func truthy(v val) (bool, error) {
	switch v.k {
	case kBool:
		return v.n == 1, nil
	case kInt:
		switch i := v.int(); {
		case i == 0 || i == 1:
			return i == 1, nil
		case i < 0:
			return false, fmt.Errorf("%s is negative and cannot be used as a condition", v.describe())
		}
		return false, fmt.Errorf("%s cannot be used as a condition: only the integers 0 and 1 convert to bool", v.describe())
	case kUint:
		return false, fmt.Errorf("%s cannot be used as a condition: only the integers 0 and 1 convert to bool", v.describe())
	case kReal:
		f := v.real()
		if f < 0 {
			return false, fmt.Errorf("%s is negative and cannot be used as a condition", v.describe())
		}
		return f != 0, nil
	case kString:
		return false, fmt.Errorf("%s cannot be used as a condition: strings do not convert to bool", v.describe())
	case kNil:
		return false, errors.New("no value to use as a condition (a variable that was never written?)")
	}
	return false, fmt.Errorf("%s cannot be used as a condition", v.describe())
}

var (
	typeInt     = reflect.TypeOf(0)
	typeFloat64 = reflect.TypeOf(0.0)
	typeString  = reflect.TypeOf("")
	typeBool    = reflect.TypeOf(false)
)

// Convert converts a value a script assigns to the type t of the variable it
// assigns, following BT.CPP's rules for storing into an existing entry, so
// that an Env can enforce types the way BT.CPP's blackboard does:
//
//   - numbers convert between integer and real types when nothing is lost:
//     2.0 into an int is 2, 2.5 into an int is an error, and integers beyond
//     2^53 do not go into reals; integer types are range-checked;
//   - a bool variable takes 0, 1, 0.0, 1.0 and true/false;
//   - a numeric variable takes a string holding a number ('7', '2.5') or
//     'true'/'false'; a bool variable takes '0', '1', 'true', 'True',
//     'TRUE', 'false', 'False', 'FALSE';
//   - a string variable takes only strings;
//   - other types take values assignable to them.
//
// A nil t means an untyped variable: v is returned as it is. Convert is
// stricter than BT.CPP in three places: integer types are range-checked
// (BT.CPP stores 300 into a uint8 entry), a string must be a number as a
// whole ('7abc' is an error) and stays a number of the variable's type
// (BT.CPP turns the entry into a double), and enum names in strings are not
// resolved.
func Convert(v Value, t reflect.Type) (Value, error) {
	if t == nil {
		return v, nil
	}
	if v == nil {
		return nil, errors.New("no value to store")
	}
	vt := reflect.TypeOf(v)
	if vt == t {
		return v, nil
	}
	src := fromValue(v)
	fail := func(why string) (Value, error) {
		msg := "cannot store " + src.describe() + " in a variable of type " + t.String()
		if why != "" {
			msg += ": " + why
		}
		return nil, errors.New(msg)
	}
	switch t.Kind() {
	case reflect.Interface:
		if vt.Implements(t) {
			return v, nil
		}
		return fail("")
	case reflect.String:
		if src.k != kString {
			return fail("")
		}
		return convertTo(src.str(), t), nil
	case reflect.Bool:
		switch src.k {
		case kBool:
			return convertTo(src.n == 1, t), nil
		case kInt:
			if i := src.int(); i == 0 || i == 1 {
				return convertTo(i == 1, t), nil
			}
		case kReal:
			if f := src.real(); f == 0 || f == 1 {
				return convertTo(f == 1, t), nil
			}
		case kString:
			switch src.str() {
			case "1", "true", "True", "TRUE":
				return convertTo(true, t), nil
			case "0", "false", "False", "FALSE":
				return convertTo(false, t), nil
			}
		default:
			return fail("")
		}
		return fail("only 0 and 1 convert to bool")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if src.k == kString {
			f, ok := numberString(src.str())
			if !ok {
				return fail("the string is not a number")
			}
			src = f
		}
		if src.k == kUint {
			if t.Kind() == reflect.Uint64 || t.Kind() == reflect.Uint || t.Kind() == reflect.Uintptr {
				return reflect.ValueOf(src.n).Convert(t).Interface(), nil
			}
			return fail("out of range")
		}
		var n int64
		switch src.k {
		case kBool, kInt:
			n = src.int()
		case kReal:
			f := src.real()
			if math.IsNaN(f) {
				return fail("NaN is not a number")
			}
			if f != math.Trunc(f) {
				return fail("it has a fractional part")
			}
			if f >= 1<<63 || f < -(1<<63) {
				return fail("out of range")
			}
			n = int64(f)
		default:
			return fail("")
		}
		z := reflect.New(t).Elem()
		if z.CanInt() {
			if z.OverflowInt(n) {
				return fail("out of range")
			}
			z.SetInt(n)
		} else {
			if n < 0 || z.OverflowUint(uint64(n)) {
				return fail("out of range")
			}
			z.SetUint(uint64(n))
		}
		if t == typeInt {
			return int(n), nil
		}
		return z.Interface(), nil
	case reflect.Float32, reflect.Float64:
		if src.k == kString {
			f, ok := numberString(src.str())
			if !ok {
				return fail("the string is not a number")
			}
			src = f
		}
		if !src.isNumber() {
			return fail("")
		}
		f, ok := src.toReal()
		if !ok {
			return fail("too large to be exact")
		}
		if t.Kind() == reflect.Float32 && !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) > math.MaxFloat32 {
			return fail("out of range")
		}
		if t == typeFloat64 {
			return f, nil
		}
		return reflect.ValueOf(f).Convert(t).Interface(), nil
	}
	if vt.AssignableTo(t) {
		return reflect.ValueOf(v).Convert(t).Interface(), nil
	}
	return fail("")
}

// numberString reads a whole string as a number for Convert: an integer, a
// real, or 'true'/'false'.
func numberString(s string) (val, bool) {
	switch s {
	case "true":
		return intVal(1), true
	case "false":
		return intVal(0), true
	}
	if len(s) > 0 && (isDigit(s[0]) || s[0] == '-') {
		if v, ok := parseIntExact(s); ok {
			return intVal(v), true
		}
	}
	if f, ok := parseRealExact(s); ok {
		return realVal(f), true
	}
	return val{}, false
}

func parseIntExact(s string) (int64, bool) {
	neg := s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	if digits == "" {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !isDigit(c) || n > (math.MaxUint64-9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

func convertTo(x any, t reflect.Type) any {
	if t == typeString || t == typeBool {
		return x
	}
	return reflect.ValueOf(x).Convert(t).Interface()
}
