package script

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Value is what scripts compute and what an Env holds: int, float64, string,
// bool or nil, or any other Go value (a ROS message, a map...) that a script
// may pass along, compare or read fields from. The Env may also hold other
// numeric types (int32, uint8, float32, time.Duration...) and named string
// or numeric types; scripts treat them as numbers or strings.
type Value = any

// kind classifies a value for the operators, the way BT.CPP's Any does:
// numbers (integers, reals and booleans), strings, nothing, or other.
type kind uint8

const (
	kNil kind = iota
	kBool
	kInt  // n holds an int64
	kUint // n holds a uint64 larger than math.MaxInt64
	kReal // n holds float64 bits
	kString
	kOther // x holds the value
)

// val is a value during evaluation. Keeping numbers unboxed is what keeps
// evaluation free of allocations; x keeps the Value exactly as the Env or a
// literal gave it, so that a value passed through unchanged (y := x) keeps
// its Go type, as BT.CPP keeps the original type of an Any. It is kept to
// four words because it is passed and returned by value everywhere, in
// registers: with a separate string field, conditions ran 2.5 times slower.
type val struct {
	k kind
	n uint64
	x any // for kString, the string (maybe of a named string type)
}

// The bounds of the values scripts make, so that a script run over and over
// (s = s .. s in a Repeat) ends in an error that halts the tree rather than
// in the program running out of memory.
const (
	// MaxStringLen bounds a string made by '+', '..' or '+=', in bytes.
	MaxStringLen = 1 << 20
	// MaxArrayLen bounds a list read from text ("a;b;c") into a port or a
	// blackboard entry of a slice type, in elements.
	MaxArrayLen = 100_000
)

func intVal(i int64) val    { return val{k: kInt, n: uint64(i)} }
func realVal(f float64) val { return val{k: kReal, n: math.Float64bits(f)} }
func strVal(s string) val   { return val{k: kString, x: s} }

func boolVal(b bool) val {
	if b {
		return val{k: kBool, n: 1}
	}
	return val{k: kBool}
}

func (v val) int() int64 { return int64(v.n) }

// str returns the text of a kString value.
func (v *val) str() string {
	if s, ok := v.x.(string); ok {
		return s
	}
	return reflect.ValueOf(v.x).String() // a named string type from the Env
}
func (v val) real() float64  { return math.Float64frombits(v.n) }
func (v val) isNumber() bool { return v.k >= kBool && v.k <= kReal }

// fromValue classifies a Value read from an Env.
func fromValue(x any) val {
	switch t := x.(type) {
	case nil:
		return val{}
	case int:
		return val{k: kInt, n: uint64(t), x: x}
	case float64:
		return val{k: kReal, n: math.Float64bits(t), x: x}
	case string:
		return val{k: kString, x: x}
	case bool:
		return val{k: kBool, n: b2u(t), x: x}
	case int64:
		return val{k: kInt, n: uint64(t), x: x}
	case int32:
		return val{k: kInt, n: uint64(int64(t)), x: x}
	case int16:
		return val{k: kInt, n: uint64(int64(t)), x: x}
	case int8:
		return val{k: kInt, n: uint64(int64(t)), x: x}
	case uint8:
		return val{k: kInt, n: uint64(t), x: x}
	case uint16:
		return val{k: kInt, n: uint64(t), x: x}
	case uint32:
		return val{k: kInt, n: uint64(t), x: x}
	case uint64:
		return uintVal(t, x)
	case uint:
		return uintVal(uint64(t), x)
	case float32:
		return val{k: kReal, n: math.Float64bits(float64(t)), x: x}
	}
	// Named types (time.Duration, type Mode string...) by their kind.
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Bool:
		return val{k: kBool, n: b2u(rv.Bool()), x: x}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return val{k: kInt, n: uint64(rv.Int()), x: x}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return uintVal(rv.Uint(), x)
	case reflect.Float32, reflect.Float64:
		return val{k: kReal, n: math.Float64bits(rv.Float()), x: x}
	case reflect.String:
		return val{k: kString, x: x}
	}
	return val{k: kOther, x: x}
}

func uintVal(u uint64, x any) val {
	if u > math.MaxInt64 {
		return val{k: kUint, n: u, x: x}
	}
	return val{k: kInt, n: u, x: x}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// box turns v into a Value: the original one when v came unchanged from the
// Env or a literal, else int, uint64, float64, string, bool or nil.
func (v val) box() Value {
	if v.x != nil {
		return v.x
	}
	switch v.k {
	case kBool:
		return v.n == 1
	case kInt:
		return int(int64(v.n))
	case kUint:
		return v.n
	case kReal:
		return v.real()
	}
	return nil
}

// maxExactInt is the largest integer magnitude BT.CPP converts to a real:
// beyond 2^53-1 it refuses, rather than lose precision.
const maxExactInt = 1<<53 - 1

// toReal converts a number to float64 as BT.CPP's Any::cast<double> does:
// booleans are 0 and 1, and integers too large to be exact fail (see
// realError). It is small enough to be inlined.
func (v *val) toReal() (float64, bool) {
	switch {
	case v.k == kReal:
		return math.Float64frombits(v.n), true
	case v.k == kInt && v.n+maxExactInt <= 2*maxExactInt: // |int| <= 2^53-1
		return float64(int64(v.n)), true
	case v.k == kBool:
		return float64(v.n), true
	}
	return 0, false
}

// realError says why toReal failed.
func (v *val) realError() string {
	if v.k == kInt || v.k == kUint {
		return v.describe() + " is too large to be used as a real number without losing precision (the limit is 2^53-1)"
	}
	return v.describe() + " is not a number"
}

// toString converts a string or a number to text as BT.CPP's
// Any::cast<std::string> does: integers in decimal, reals in C's "%f" form
// (2.500000). A boolean from the Env is an integer to BT.CPP ("1"); a boolean
// the script computed is a real there ("1.000000").
func (v val) toString() string {
	switch v.k {
	case kString:
		return v.str()
	case kInt:
		return strconv.FormatInt(v.int(), 10)
	case kUint:
		return strconv.FormatUint(v.n, 10)
	case kReal:
		return formatC(v.real())
	case kBool:
		if v.x != nil {
			return strconv.FormatUint(v.n, 10)
		}
		return formatC(float64(v.n))
	}
	return ""
}

// formatC formats f as C's printf("%f") does.
func formatC(f float64) string {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// typeName names v's type for messages: the Go type it came with, or the
// type a computed value would be boxed as.
func (v val) typeName() string {
	if v.x != nil {
		return fmt.Sprintf("%T", v.x)
	}
	switch v.k {
	case kBool:
		return "bool"
	case kInt:
		return "int"
	case kUint:
		return "uint64"
	case kReal:
		return "float64"
	case kString:
		return "string"
	}
	return "nil"
}

// describe shows v in messages: its type and, for simple values, the value.
func (v val) describe() string {
	switch v.k {
	case kNil:
		return "nil"
	case kBool:
		return v.typeName() + " " + strconv.FormatBool(v.n == 1)
	case kInt:
		return v.typeName() + " " + strconv.FormatInt(v.int(), 10)
	case kUint:
		return v.typeName() + " " + strconv.FormatUint(v.n, 10)
	case kReal:
		return v.typeName() + " " + strconv.FormatFloat(v.real(), 'g', -1, 64)
	case kString:
		return v.typeName() + " " + quote(v.str())
	}
	return v.typeName()
}

// quote shows a string in messages the way scripts write strings, cut short
// when long.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "..."
	}
	return "'" + s + "'"
}

// parseRealPrefix reads a real number at the start of s the way C++'s
// std::from_chars does, which is how BT.CPP converts strings to numbers: an
// optional '-', then digits with an optional fraction and exponent, or
// "inf", "infinity", "nan" in any case. The longest such prefix counts and
// the rest is ignored ("3abc" is 3); no leading spaces or '+'. It fails when
// there is no number at the start or the number is out of range (including
// a non-zero value too small to be represented).
func parseRealPrefix(s string) (float64, bool) {
	f, n, ok := scanReal(s)
	return f, ok && n > 0
}

// parseRealExact is parseRealPrefix requiring the whole string to be read.
func parseRealExact(s string) (float64, bool) {
	f, n, ok := scanReal(s)
	return f, ok && n == len(s) && n > 0
}

func scanReal(s string) (float64, int, bool) {
	i := 0
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	rest := s[i:]
	if len(rest) >= 3 {
		switch strings.ToLower(rest[:3]) {
		case "inf":
			n := i + 3
			if len(rest) >= 8 && strings.EqualFold(rest[:8], "infinity") {
				n = i + 8
			}
			if neg {
				return math.Inf(-1), n, true
			}
			return math.Inf(1), n, true
		case "nan":
			n := i + 3
			// "nan(chars)" is accepted as a whole when the parenthesis closes.
			if n < len(s) && s[n] == '(' {
				j := n + 1
				for j < len(s) && (isIdentChar(s[j])) {
					j++
				}
				if j < len(s) && s[j] == ')' {
					n = j + 1
				}
			}
			nan := math.NaN()
			if neg {
				nan = math.Copysign(nan, -1)
			}
			return nan, n, true
		}
	}
	start := i
	digits := 0
	nonZero := false
	for i < len(s) && isDigit(s[i]) {
		nonZero = nonZero || s[i] != '0'
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		frac := 0
		for j < len(s) && isDigit(s[j]) {
			nonZero = nonZero || s[j] != '0'
			j++
			frac++
		}
		if digits > 0 || frac > 0 {
			i = j
			digits += frac
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	f, err := strconv.ParseFloat(s[start:i], 64)
	if err != nil {
		// Overflow; the grammar above admits nothing else ParseFloat rejects.
		return 0, 0, false
	}
	if f == 0 && nonZero {
		// Underflow to zero: from_chars reports it as out of range.
		return 0, 0, false
	}
	if neg {
		f = -f
	}
	return f, i, true
}
