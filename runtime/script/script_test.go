package script

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vars is shorthand for an Env's variables in tables.
type vars = map[string]Value

type evalCase struct {
	src   string
	env   vars           // variables before; nil for none
	enums map[string]int // registered enums
	want  Value          // the script's value
	after vars           // variables after; nil means unchanged
	err   string         // a substring of the expected error; "" for none
}

func runCases(t testing.TB, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		before := vars{}
		for k, v := range tc.env {
			before[k] = v
		}
		env := &MapEnv{Vars: before, Enums: tc.enums}
		got, err := func() (Value, error) {
			p, err := Parse(tc.src)
			if err != nil {
				return nil, err
			}
			return p.Eval(env)
		}()
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%q: got %T %v", tc.src, got, got)
		} else if assert.NoError(t, err, "%q", tc.src) {
			assert.True(t, sameGo(got, tc.want), "%q = %T %#v, want %T %#v", tc.src, got, got, tc.want, tc.want)
		}
		wantAfter := tc.after
		if wantAfter == nil {
			wantAfter = tc.env
		}
		if len(wantAfter) == 0 && len(env.Vars) == 0 {
			continue
		}
		if !assert.Len(t, env.Vars, len(wantAfter), "%q: variables after = %#v, want %#v", tc.src, env.Vars, wantAfter) {
			continue
		}
		for k, w := range wantAfter {
			g, ok := env.Vars[k]
			assert.True(t, ok, "%q: variable %s = %T %#v, want %T %#v", tc.src, k, g, g, w, w)
			assert.True(t, sameGo(g, w), "%q: variable %s = %T %#v, want %T %#v", tc.src, k, g, g, w, w)
		}
	}
}

// sameGo compares values exactly, types included; NaN equals NaN.
func sameGo(a, b Value) bool {
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && (fa == fb && math.Signbit(fa) == math.Signbit(fb) || math.IsNaN(fa) && math.IsNaN(fb))
	}
	return reflect.DeepEqual(a, b)
}

func TestLiterals(t *testing.T) {
	runCases(t, []evalCase{
		{src: "628", want: 628},
		{src: "0x100", want: 256},
		{src: "0X1f", want: 31},
		{src: "9223372036854775807", want: math.MaxInt64},
		{src: "3.14", want: 3.14},
		{src: "3.14e2", want: 314.0},
		{src: "3e-2", want: 0.03},
		{src: "1.5E+3", want: 1500.0},
		{src: "-628", want: -628.0}, // unary minus: a real
		{src: "'hello world '", want: "hello world "},
		{src: "''", want: ""},
		{src: "'a;b'", want: "a;b"},
		{src: "'x := 1'", want: "x := 1"},
		{src: "'line\nbreak'", want: "line\nbreak"},
		{src: "true", want: true},
		{src: "false", want: false},
		{src: "(((7)))", want: 7},
	})
}

func TestArithmetic(t *testing.T) {
	runCases(t, []evalCase{
		{src: "1 + 1", want: 2.0},
		{src: "5 / 2", want: 2.5},
		{src: "6 / 3", want: 2.0},
		{src: "5 - 2 + 1", want: 4.0},
		{src: "12 / 3 / 2", want: 2.0},
		{src: "12 / 3 * 2", want: 8.0},
		{src: "2 + 3 * 4 - 1", want: 13.0},
		{src: "(2 + 3) * 4", want: 20.0},
		{src: "2 * -3", want: -6.0},
		{src: "2 - - 3", want: 5.0},
		{src: "-(3 + 2)", want: -5.0},
		{src: "1 / 0", want: math.Inf(1)},
		{src: "-1 / 0", want: math.Inf(-1)},
		{src: "0 / 0", want: math.NaN()},
		{src: "-(0)", want: math.Copysign(0, -1)},
		{src: "true + true", want: 2.0},
		{src: "x * 2", env: vars{"x": int32(21)}, want: 42.0},
		{src: "x + 0.5", env: vars{"x": float32(1.5)}, want: 2.0},
		{src: "x + 1", env: vars{"x": uint8(255)}, want: 256.0},
		{src: "x - 1", env: vars{"x": true}, want: 0.0},
		{src: "9007199254740991 + 0", want: 9007199254740991.0},
		{src: "9007199254740992 + 0", err: "int 9007199254740992 is too large to be used as a real number"},
		{src: "x + 0", env: vars{"x": uint64(math.MaxUint64)}, err: "uint64 18446744073709551615 is too large"},
		{src: "'a' + 'b'", want: "ab"},
		{src: "'1' + '2'", want: "12"},
		{src: "'abc' + 3", err: "1:7: cannot add string 'abc' and int 3"},
		{src: "3 + s", env: vars{"s": "4"}, err: "cannot add int 3 and string '4'"},
		{src: "'a' - 'b'", err: "cannot subtract string 'a' and string 'b'"},
		{src: "'a' * 2", err: "cannot multiply string 'a' and int 2"},
		{src: "p / 2", env: vars{"p": struct{ X int }{1}}, err: "cannot divide struct { X int } and int 2"},
	})
}

func TestConcatenation(t *testing.T) {
	runCases(t, []evalCase{
		{src: "'a' .. 'b'", want: "ab"},
		{src: "'a' .. 1", want: "a1"},
		{src: "1 .. 'a'", want: "1a"},
		{src: "'a' .. 1.5", want: "a1.500000"},
		{src: "'a' .. (1 + 1)", want: "a2.000000"},
		{src: "'x' .. 1e20", want: "x100000000000000000000.000000"},
		{src: "'x' .. 1e-7", want: "x0.000000"},
		{src: "'x' .. (0/0)", want: "x-nan"},
		{src: "'x' .. (1/0)", want: "xinf"},
		{src: "'x' .. (-1/0)", want: "x-inf"},
		{src: "'x' .. -(0)", want: "x-0.000000"},
		{src: "'x' .. true", want: "x1.000000"},             // a computed boolean is a real in BT.CPP
		{src: "'x' .. b", env: vars{"b": true}, want: "x1"}, // a stored one an integer
		{src: "'x' .. u", env: vars{"u": uint8(7)}, want: "x7"},
		{src: "'x' .. f", env: vars{"f": float32(2.5)}, want: "x2.500000"},
		{src: "'x' .. big", env: vars{"big": uint64(math.MaxUint64)}, want: "x18446744073709551615"},
		{src: "a .. ' ' .. b", env: vars{"a": "hello", "b": "world"}, want: "hello world"},
		{src: "2 + 3 .. 'x'", want: "5.000000x"},
		{src: "1 .. 2", err: "1:3: cannot concatenate int 1 and int 2: '..' needs a string on at least one side"},
		{src: "65..66", err: "cannot concatenate int 65 and int 66"},
		{src: "'a' .. p", env: vars{"p": []int{1}}, err: "cannot concatenate string 'a' and []int"},
	})
}

func TestComparisons(t *testing.T) {
	runCases(t, []evalCase{
		{src: "1 < 2", want: true},
		{src: "2 < 1", want: false},
		{src: "1 <= 1", want: true},
		{src: "1 >= 2", want: false},
		{src: "2 > 1", want: true},
		{src: "1 == 1.0", want: true},
		{src: "1 != 1", want: false},
		{src: "0.1 + 0.2 == 0.3", want: true},
		{src: "1 == 1.0000001", want: true}, // within float epsilon
		{src: "1 == 1.000001", want: false},
		{src: "1 < 1.00000001", want: true},
		{src: "(1/0) == (1/0)", want: false},
		{src: "(0/0) < 1", want: true},
		{src: "(0/0) > 1", want: true},
		{src: "(0/0) == (0/0)", want: false},
		{src: "'hello' < 'world'", want: true},
		{src: "'10' < '9'", want: true},
		{src: "'B' < 'a'", want: true},
		{src: "'ab' < 'abc'", want: true},
		{src: "s == 'on'", env: vars{"s": "on"}, want: true},
		{src: "'3' == 3", want: true},
		{src: "'3abc' == 3", want: true},
		{src: "'.5' == 0.5", want: true},
		{src: "'inf' > 1e308", want: true},
		{src: "'true' == 1", want: true},
		{src: "'true' == true", want: true},
		{src: "'RED' == RED", enums: map[string]int{"RED": 1}, want: true},
		{src: "'RED' == 1", enums: map[string]int{"RED": 1}, want: true},
		{src: "'abc' == 3", err: "1:7: cannot compare string 'abc' with int 3: the string is not a number"},
		{src: "' 3' == 3", err: "the string is not a number"},
		{src: "'1e999' == 3", err: "the string is not a number"},
		{src: "p == p", env: vars{"p": struct{}{}}, err: "cannot compare struct {} with struct {} using '=='"},
		{src: "u == 5", env: vars{"u": uint8(5)}, want: true},
		{src: "b == true", env: vars{"b": true}, want: true},
		{src: "false < true", want: true},
		{src: "x == 0", env: vars{"x": uint8(0)}, want: true},
		{src: "9007199254740993 == 9007199254740993", err: "too large"},
	})
}

func TestChainedComparisons(t *testing.T) {
	runCases(t, []evalCase{
		{src: "1 < 2 < 3", want: true},
		{src: "3 > 2 > 1", want: true},
		{src: "1 < 2 > 3", want: false},
		{src: "5 == 5 == 5", want: true}, // 5 == 5 and 5 == 5, not (5 == 5) == 5
		{src: "2 == 2 == 2", want: true},
		{src: "5 == 5 != 3", want: true},
		{src: "1 <= 2 <= 3", want: true},
		{src: "0 < x < 10", env: vars{"x": 5}, want: true},
		{src: "0 < x < 10", env: vars{"x": 15}, want: false},
		// The chain stops at the first false link: later operands are not
		// evaluated, so the unknown variable is not an error.
		{src: "3 < 2 < nope", want: false},
		{src: "1 < 2 < nope", err: "1:9: unknown variable 'nope'"},
		{src: "0 < (x := 5) < 10", env: vars{}, want: true, after: vars{"x": 5}},
		{src: "1 < 2 + 1", want: true},
		{src: "(1 < 2) + 1", want: 2.0},
	})
}

func TestPrecedence(t *testing.T) {
	runCases(t, []evalCase{
		{src: "6 | 3 & 5", want: 7.0},
		{src: "1 | 2 == 3", want: true},   // (1 | 2) == 3
		{src: "3 & 1 == 1", want: true},   // (3 & 1) == 1
		{src: "1 == 1 & 0", want: false},  // 1 == (1 & 0)
		{src: "1 ^ 3 | 4", want: 6.0},     // same level, left to right
		{src: "1 + 2 * 3 & 7", want: 7.0}, // (1 + 6) & 7
		{src: "false || true && true", want: true},
		{src: "false && true || true", want: true},
		{src: "1 && 1 == 1", want: true},
		{src: "!1 == 0", want: true},
		{src: "- 2 ^ 3", want: -3.0},
		{src: "1 + 2 ? 3 : 4", want: 3},
		{src: "1 || 0 ? 'y' : 'n'", want: "y"},
		{src: "1 + 1 == 2 && 2 * 2 == 4", want: true},
		{src: "x := 1 + 2 * 3", want: 7.0, after: vars{"x": 7.0}},
		{src: "x := 1 ? 2 : 3", want: 2, after: vars{"x": 2}},
		{src: "x := y := 4", want: 4, after: vars{"x": 4, "y": 4}},
	})
}

func TestBitwise(t *testing.T) {
	runCases(t, []evalCase{
		{src: "5 & 3", want: 1.0},
		{src: "5 | 3", want: 7.0},
		{src: "5 ^ 3", want: 6.0},
		{src: "2.0 & 3", want: 2.0},
		{src: "-1 & 255", want: 255.0},
		{src: "true & 3", want: 1.0},
		{src: "x & 0x0F", env: vars{"x": uint8(0xAB)}, want: 11.0},
		{src: "~0", want: -1.0},
		{src: "~5", want: -6.0},
		{src: "~2.5", want: -3.0},
		{src: "~-2.5", want: 1.0},
		{src: "~true", want: -2.0},
		{src: "5 ^ 5.1", err: "1:3: cannot apply '^' to int 5 and float64 5.1: it needs integers"},
		{src: "1e308 & 1", err: "it needs integers"},
		{src: "'a' & 1", err: "cannot apply '&' to string 'a' and int 1"},
		{src: "~'a'", err: "cannot apply '~' to string 'a': it needs a number"},
		{src: "~(1/0)", err: "out of the integer range"},
		{src: "~(0/0)", err: "out of the integer range"},
		{src: "~9223372036854775807.0", err: "out of the integer range"},
	})
}

func TestLogic(t *testing.T) {
	runCases(t, []evalCase{
		{src: "1 && 0", want: false},
		{src: "1 || 0", want: true},
		{src: "true && false", want: false},
		{src: "2.0 && 1", want: true},
		{src: "0.5 && 1", want: true},
		{src: "a > 3 && b == 'on'", env: vars{"a": 4, "b": "on"}, want: true},
		{src: "a > 3 && b == 'on'", env: vars{"a": 4, "b": "off"}, want: false},
		{src: "5 && 1", err: "1:3: left operand of '&&': int 5 cannot be used as a condition: only the integers 0 and 1 convert to bool"},
		{src: "1 || -1", err: "right operand of '||': float64 -1 is negative"},
		{src: "'a' && 1", err: "cannot apply '&&' to string 'a' and int 1: it needs booleans or numbers"},
		{src: "!5", want: false},
		{src: "!0", want: true},
		{src: "!0.5", want: false},
		{src: "!-1", want: false},
		{src: "!(0/0)", want: false},
		{src: "!!true", want: true},
		{src: "!'a'", err: "cannot apply '!' to string 'a': it needs a number"},
		{src: "-'a'", err: "cannot apply '-' to string 'a'"},
		// No short circuit: both assignments happen, and an error on the
		// right is an error even when the left decides.
		{src: "(y1 := 1) || (y2 := 0)", want: true, after: vars{"y1": 1, "y2": 0}},
		{src: "false && nope", err: "unknown variable 'nope'"},
	})
}

func TestConditional(t *testing.T) {
	runCases(t, []evalCase{
		{src: "true ? 1 : 2", want: 1},
		{src: "false ? 1 : 2", want: 2},
		{src: "3 > 2 ? 'yes' : 'no'", want: "yes"},
		{src: "1 ? 2 : 3 ? 4 : 5", want: 2},
		{src: "0 ? 2 : 0 ? 4 : 5", want: 5},
		{src: "0 ? 2 : 3 + 1", want: 4.0},
		{src: "2 ? 'y' : 'n'", want: "y"},
		{src: "-1 ? 'y' : 'n'", want: "y"},
		{src: "(0/0) ? 'y' : 'n'", want: "y"},
		{src: "'5' ? 1 : 2", want: 1},
		{src: "'0' ? 1 : 2", want: 2},
		{src: "'3abc' ? 1 : 2", want: 1},
		{src: "'abc' ? 1 : 2", err: "1:7: the condition of '?' is string 'abc', which is not a number"},
		{src: "'true' ? 1 : 2", err: "not a number"},
		{src: "e ? 1 : 2", env: vars{"e": nil}, err: "the condition of '?' has no value"},
		// Only the chosen branch runs.
		{src: "a ? b := 1 : 2", env: vars{"a": 0}, want: 2},
		{src: "a ? 1 : nope", env: vars{"a": 1}, want: 1},
	})
}

func TestStatements(t *testing.T) {
	runCases(t, []evalCase{
		{src: "x := 3; y := 5; x + y", want: 8.0, after: vars{"x": 3, "y": 5}},
		{src: "a := 1;;; b := 2;;", want: 2, after: vars{"a": 1, "b": 2}},
		{src: "a := 1 b := 2", want: 2, after: vars{"a": 1, "b": 2}},
		{src: "1 2 3", want: 3},
		{src: "'it''s'", want: "s"},
		{src: "A := 5;\nB := 6", want: 6, after: vars{"A": 5, "B": 6}},
		{src: "\tA := 5 ;\r\n B := 6 ", want: 6, after: vars{"A": 5, "B": 6}},
		// An error stops the script; earlier statements stay done.
		{src: "a := 1; nope; b := 2", err: "1:9: unknown variable 'nope'", after: vars{"a": 1}},
	})
}

func TestAssignment(t *testing.T) {
	runCases(t, []evalCase{
		{src: "x := 1", want: 1, after: vars{"x": 1}},
		{src: "x := 1", env: vars{"x": "s"}, err: "1:1: cannot assign to 'x': cannot store int 1 in a variable of type string"},
		{src: "x := x + 1", env: vars{"x": 1}, want: 2, after: vars{"x": 2}},
		{src: "x := x + 0.5", env: vars{"x": 1}, err: "1:1: cannot assign to 'x': cannot store float64 1.5 in a variable of type int: it has a fractional part"},
		{src: "x = 3.0", env: vars{"x": 1}, want: 3, after: vars{"x": 3}},
		{src: "x = 2.5", env: vars{"x": 1.0}, want: 2.5, after: vars{"x": 2.5}},
		{src: "x = '7'", env: vars{"x": 1}, want: 7, after: vars{"x": 7}},
		{src: "x = 'true'", env: vars{"x": 1}, want: 1, after: vars{"x": 1}},
		{src: "x = 'abc'", env: vars{"x": 1}, err: "the string is not a number"},
		{src: "x = 5", err: "1:1: unknown variable 'x' (use := to create it)", after: vars{}},
		{src: "x += 5", err: "1:1: unknown variable 'x' (use := to create it)", after: vars{}},
		{src: "x += 1", env: vars{"x": 1}, want: 2, after: vars{"x": 2}},
		{src: "x -= 1", env: vars{"x": 1}, want: 0, after: vars{"x": 0}},
		{src: "x *= 4", env: vars{"x": 3}, want: 12, after: vars{"x": 12}},
		{src: "x /= 2", env: vars{"x": 6}, want: 3, after: vars{"x": 3}},
		{src: "x /= 4", env: vars{"x": 6}, err: "cannot store float64 1.5 in a variable of type int"},
		{src: "x /= 4", env: vars{"x": 6.0}, want: 1.5, after: vars{"x": 1.5}},
		{src: "x *= 1e20", env: vars{"x": 1}, err: "out of range"},
		{src: "s += 'x'", env: vars{"s": "hi"}, want: "hix", after: vars{"s": "hix"}},
		{src: "s += 1", env: vars{"s": "hi"}, err: "1:1: cannot apply '+=' to 's' (string 'hi') and int 1"},
		{src: "s -= 'a'", env: vars{"s": "hi"}, err: "cannot apply '-=' to string 'a': only '+=' works on strings"},
		{src: "x += 'a'", env: vars{"x": 5}, err: "cannot apply '+=' to 'x' (int 5) and string 'a'"},
		{src: "x += 1", env: vars{"x": nil}, err: "cannot apply '+=' to 'x': it has no value yet"},
		{src: "x := e", env: vars{"e": nil}, err: "the right operand of ':=' has no value"},
		{src: "c := 7; c += (c := 1); c", want: 2, after: vars{"c": 2}},
		// '=' checks its target before a right side that writes runs.
		{src: "q = (w := 3)", err: "unknown variable 'q'", after: vars{}},
		{src: "@x := 3", want: 3, after: vars{"x": 3}},
		{src: "@x + 1", env: vars{"x": 3}, want: 4.0},
		{src: "b := true", want: true, after: vars{"b": true}},
		{src: "b = 0", env: vars{"b": true}, want: false, after: vars{"b": false}},
		{src: "b = 2", env: vars{"b": true}, err: "only 0 and 1 convert to bool"},
		{src: "u = 300", env: vars{"u": uint8(1)}, err: "cannot store int 300 in a variable of type uint8: out of range"},
		{src: "u += 1", env: vars{"u": uint8(1)}, want: uint8(2), after: vars{"u": uint8(2)}},
		{src: "f := f + 1", env: vars{"f": float32(1.5)}, want: float32(2.5), after: vars{"f": float32(2.5)}},
		{src: "y := x", env: vars{"x": uint8(3)}, want: uint8(3), after: vars{"x": uint8(3), "y": uint8(3)}},
		{src: "e := -5", want: -5.0, after: vars{"e": -5.0}},
		{src: "c := RED", enums: map[string]int{"RED": 1}, want: 1.0, after: vars{"c": 1.0}},
	})
}

func TestEnums(t *testing.T) {
	colors := map[string]int{"RED": 1, "BLUE": 3, "GREEN": 5}
	runCases(t, []evalCase{
		{src: "RED", enums: colors, want: 1.0},
		{src: "A := RED; B := RED; A == B", enums: colors, want: true, after: vars{"A": 1.0, "B": 1.0}},
		{src: "RED != BLUE", enums: colors, want: true},
		{src: "GREEN | RED", enums: colors, want: 5.0},
		{src: "'c' .. RED", enums: colors, want: "c1.000000"},
		{src: "color == BLUE", enums: colors, env: vars{"color": 3}, want: true},
		{src: "color == 'BLUE'", enums: colors, env: vars{"color": 3}, want: true},
		// An enum wins over a variable of the same name.
		{src: "RED", enums: colors, env: vars{"RED": 7}, want: 1.0},
		{src: "RED := 7; RED", enums: colors, want: 1.0, after: vars{"RED": 7}},
		{src: "x = RED", enums: colors, env: vars{"x": 3}, want: 1, after: vars{"x": 1}},
		{src: "PURPLE", enums: colors, err: "unknown variable 'PURPLE'"},
		{src: "RED", err: "unknown variable 'RED'"},
	})
}

func TestVariablesWithoutValue(t *testing.T) {
	empty := vars{"e": nil}
	runCases(t, []evalCase{
		{src: "e", env: empty, want: nil},
		{src: "e < 0", env: empty, err: "1:3: the left operand of '<' has no value"},
		{src: "0 == e", env: empty, err: "the right operand of '==' has no value"},
		{src: "e + 1", env: empty, err: "the left operand of '+' has no value"},
		{src: "e .. 'a'", env: empty, err: "the left operand of '..' has no value"},
		{src: "e & 1", env: empty, err: "the left operand of '&' has no value"},
		{src: "e && 1", env: empty, err: "the left operand of '&&' has no value"},
		{src: "-e", env: empty, err: "the operand of '-' has no value"},
		{src: "e := 5", env: empty, want: 5, after: vars{"e": 5}},
	})
}

func TestNames(t *testing.T) {
	runCases(t, []evalCase{
		{src: "foo", err: "1:1: unknown variable 'foo' (use := to create it)"},
		{src: "Foo_Bar9 := 1; Foo_Bar9", want: 1, after: vars{"Foo_Bar9": 1}},
		{src: "_x := 1", want: 1, after: vars{"_x": 1}},
		{src: "and := 1; and", want: 1, after: vars{"and": 1}},
		{src: "x", env: vars{"x": "s"}, want: "s"},
	})
}

func TestUnknownVariableIsErrUnknownVariable(t *testing.T) {
	for _, src := range []string{"nope", "nope = 1", "nope += 1", "nope.field"} {
		p, err := Parse(src)
		require.NoError(t, err, "%q", src)
		_, err = p.Eval(&MapEnv{})
		assert.ErrorIs(t, err, ErrUnknownVariable, "%q: error %v does not wrap ErrUnknownVariable", src, err)
		var se *Error
		if assert.ErrorAs(t, err, &se, "%q: error %#v is not an *Error at 1:1", src, err) {
			assert.Equal(t, 1, se.Line, "%q: error %#v is not an *Error at 1:1", src, err)
			assert.Equal(t, 1, se.Column, "%q: error %#v is not an *Error at 1:1", src, err)
		}
	}
}

// refusingEnv refuses every write, like a blackboard whose entry has a type
// the value cannot take.
type refusingEnv struct{ MapEnv }

var errRefused = errors.New("blackboard entry \"x\" holds int; cannot write string")

func (refusingEnv) Assign(string, Value, bool) error { return errRefused }

func TestEnvErrorsAreWrappedWithPosition(t *testing.T) {
	p, err := Parse("a := 1;\n  x := 'no'")
	require.NoError(t, err)
	_, err = p.Eval(&refusingEnv{})
	var se *Error
	require.ErrorAs(t, err, &se, "error %v is not an *Error", err)
	// The first statement fails already.
	assert.Equal(t, [2]int{1, 1}, [2]int{se.Line, se.Column}, "position line:column")
	assert.ErrorIs(t, err, errRefused, "error %v does not wrap the Env's error", err)
	want := `1:1: cannot assign to 'a': blackboard entry "x" holds int; cannot write string`
	assert.Equal(t, want, err.Error(), "error = %q, want %q", err, want)
}

func TestEvalWithoutEnvOrProgram(t *testing.T) {
	p, _ := Parse("1")
	_, err := p.Eval(nil)
	assert.Error(t, err, "Eval(nil) succeeded")
	var none *Program
	_, err = none.Eval(&MapEnv{})
	assert.Error(t, err, "nil Program's Eval succeeded")
}

func TestReadsAndWrites(t *testing.T) {
	cases := []struct {
		src           string
		reads, writes []string
	}{
		{"x := 1", nil, []string{"x"}},
		{"x := x + 1", []string{"x"}, []string{"x"}},
		{"x += 1", []string{"x"}, []string{"x"}},
		{"x = y", []string{"y"}, []string{"x"}},
		{"y := x; x := 1", []string{"x"}, []string{"y", "x"}},
		{"battery.percentage < 0.2 && state != 'DOCKING'", []string{"battery", "state"}, nil},
		{"a < b < c ? d : e", []string{"a", "b", "c", "d", "e"}, nil},
		{"@root := other; root", []string{"other", "root"}, []string{"@root"}},
		{"RED", []string{"RED"}, nil},
		{"a; a; a := a", []string{"a"}, []string{"a"}},
		{"'x' .. 1", nil, nil},
	}
	for _, tc := range cases {
		p, err := Parse(tc.src)
		require.NoError(t, err, "%q", tc.src)
		got := p.Reads()
		assert.Equal(t, tc.reads, got, "%q: Reads() = %q, want %q", tc.src, got, tc.reads)
		got = p.Writes()
		assert.Equal(t, tc.writes, got, "%q: Writes() = %q, want %q", tc.src, got, tc.writes)
		assert.Equal(t, tc.src, p.Source(), "Source() = %q, want %q", p.Source(), tc.src)
	}
}

func TestProgramIsReusable(t *testing.T) {
	p, err := Parse("count := count + 1; count >= 3")
	require.NoError(t, err)
	env := &MapEnv{Vars: vars{"count": 0}}
	var got []Value
	for i := 0; i < 4; i++ {
		v, err := p.Eval(env)
		require.NoError(t, err)
		got = append(got, v)
	}
	want := []Value{false, false, true, true}
	if assert.Equal(t, want, got, "results %v (count %v), want %v (count 4)", got, env.Vars["count"], want) {
		assert.True(t, env.Vars["count"] == 4, "results %v (count %v), want %v (count 4)", got, env.Vars["count"], want)
	}
}
