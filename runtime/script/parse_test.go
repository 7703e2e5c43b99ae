package script

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseErrors(t *testing.T) {
	cases := []struct {
		src  string
		want string // the whole message, position included
	}{
		{"", "1:1: empty script: expected at least one statement"},
		{"   \t\n\r", "1:1: empty script: expected at least one statement"},
		{";", "1:1: expected a statement, found ';'"},
		{";a", "1:1: expected a statement, found ';'"},
		{"x := 1 +", "1:9: expected an expression after '+', found end of script"},
		{"x := 1 + )", "1:10: expected an expression after '+', found ')'"},
		{"1 +", "1:4: expected an expression after '+', found end of script"},
		{"x :=", "1:5: expected an expression after ':=', found end of script"},
		{":= 3", "1:1: expected a statement, found ':='"},
		{"a = = 3", "1:5: expected an expression after '=', found '='"},
		{"(1", "1:3: expected ')' to close the '(' at 1:1, found end of script"},
		{"x := (1 + 2", "1:12: expected ')' to close the '(' at 1:6, found end of script"},
		{"(1 2)", "1:4: expected ')' to close the '(' at 1:1, found number 2"},
		{")", "1:1: expected a statement, found ')'"},
		{"1 ? 2", "1:6: expected ':' after the first branch of '?', found end of script"},
		{"1 ? 2 3", "1:7: expected ':' after the first branch of '?', found number 3"},
		{"1 ? 2 :", "1:8: expected an expression after ':', found end of script"},
		{"? 1 : 2", "1:1: expected a statement, found '?'"},
		{"1 ? 2 : 3 := 4", "1:11: expected a statement, found ':='"},
		{"a < ", "1:5: expected an expression after '<', found end of script"},
		{"- ", "1:3: expected an expression after '-', found end of script"},
		{"!", "1:2: expected an expression after '!', found end of script"},
		{"x := 'abc", "1:6: unterminated string: missing the closing '"},
		{"3foo", "1:1: malformed number '3foo': a number cannot run into a name"},
		{"65.", "1:1: malformed number '65.': expected digits after the decimal point"},
		{"65.43foo", "1:1: malformed number '65.43foo': a number cannot run into a name"},
		{"0X100g", "1:1: malformed number '0X100g': hex numbers are integers made of 0-9 and a-f"},
		{"0X100.", "1:1: malformed number '0X100.': hex numbers are integers made of 0-9 and a-f"},
		{"0x", "1:1: malformed number '0x': expected hex digits after 0x"},
		{"3e", "1:1: malformed number '3e': expected digits in the exponent"},
		{"3e+", "1:1: malformed number '3e+': expected digits in the exponent"},
		{"99999999999999999999", "1:1: number 99999999999999999999 is out of range (the largest integer is 9223372036854775807)"},
		{"0xFFFFFFFFFFFFFFFF", "1:1: number 0xFFFFFFFFFFFFFFFF is out of range (the largest integer is 0x7FFFFFFFFFFFFFFF)"},
		{"1e999", "1:1: number 1e999 is out of range for a real"},
		{"1e-999", "1:1: number 1e-999 is out of range for a real"},
		{".5", "1:1: unexpected '.': a field name must follow the dot directly (battery.percentage), and '..' joins strings"},
		{"a . b", "1:3: unexpected '.': a field name must follow the dot directly (battery.percentage), and '..' joins strings"},
		{"a.", "1:2: unexpected '.': a field name must follow the dot directly (battery.percentage), and '..' joins strings"},
		{`"dq"`, "1:1: unexpected '\"': strings are written in single quotes ('text')"},
		{"x # 1", "1:3: unexpected character '#'"},
		{"x := é", "1:6: unexpected character 'é'"},
		{"a.0b", "1:1: malformed name 'a.0b': a part after a dot is a field name or an index (0, 1, ...)"},
		{"true.x", "1:1: 'true' is a constant and has no fields"},
		{"'hello' = 'world'", "1:1: cannot assign to an expression: the left side of '=' must be a variable name"},
		{"3.0 = 2.0", "1:1: cannot assign to an expression: the left side of '=' must be a variable name"},
		{"a + b := 3", "1:3: cannot assign to an expression: the left side of ':=' must be a variable name"},
		{"x == 2 := 5", "1:3: cannot assign to an expression: the left side of ':=' must be a variable name"},
		{"battery.percentage := 1", "1:1: cannot assign to battery.percentage: dotted names are read-only; assign the whole variable 'battery' instead"},
		{"goal.pose.x += 1", "1:1: cannot assign to goal.pose.x: dotted names are read-only; assign the whole variable 'goal' instead"},
		// Positions count lines, and characters rather than bytes.
		{"a := 1;\nb := 2 +", "2:9: expected an expression after '+', found end of script"},
		{"a := 'é';\n\n  b :=", "3:7: expected an expression after ':=', found end of script"},
		{"s := 'ééé' +", "1:13: expected an expression after '+', found end of script"},
		// The first problem in reading order is reported.
		{"1 + ) 3foo", "1:5: expected an expression after '+', found ')'"},
		{"3foo + )", "1:1: malformed number '3foo': a number cannot run into a name"},
	}
	for _, tc := range cases {
		p, err := Parse(tc.src)
		if !assert.Error(t, err, "Parse(%q) succeeded, want error %q", tc.src, tc.want) {
			continue
		}
		assert.Nil(t, p, "Parse(%q) returned a program with its error", tc.src)
		var se *Error
		if !assert.ErrorAs(t, err, &se, "Parse(%q): error %T is not *Error", tc.src, err) {
			continue
		}
		assert.Equal(t, tc.want, err.Error(), "Parse(%q) error\n  got  %q\n  want %q", tc.src, err, tc.want)
	}
}

func TestErrorPositionFields(t *testing.T) {
	_, err := Parse("a := 1;\n  b := (")
	var se *Error
	require.ErrorAs(t, err, &se, "error %v is not *Error", err)
	if assert.Equal(t, 16, se.Offset, "Offset/Line/Column = %d/%d/%d, want 16/2/9", se.Offset, se.Line, se.Column) {
		assert.Equal(t, 2, se.Line, "Offset/Line/Column = %d/%d/%d, want 16/2/9", se.Offset, se.Line, se.Column)
		assert.Equal(t, 9, se.Column, "Offset/Line/Column = %d/%d/%d, want 16/2/9", se.Offset, se.Line, se.Column)
	}
	assert.Contains(t, se.Msg, "expected an expression after '('", "Msg = %q", se.Msg)
}

func TestNestingLimit(t *testing.T) {
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	cases := []struct {
		src string
		ok  bool
	}{
		{deep(MaxNesting-1, "(", ")"), true},
		{deep(MaxNesting, "(", ")"), false},
		{deep(10000, "(", ")"), false},
		{deep(MaxNesting-1, "-", ""), true},
		{deep(5000, "!", ""), false},
		{strings.Repeat("a := ", 5000) + "1", false},
		{strings.Repeat("1 ? 2 : ", 5000) + "3", false},
		// Long flat expressions are not nesting.
		{strings.Repeat("1 + ", 5000) + "1", true},
		{strings.Repeat("1 < ", 5000) + "2", true},
	}
	for _, tc := range cases {
		p, err := Parse(tc.src)
		if tc.ok {
			if !assert.NoError(t, err, "Parse(%.20q...)", tc.src) {
				continue
			}
			_, err := p.Eval(&MapEnv{})
			assert.False(t, err != nil && !strings.Contains(err.Error(), "unknown variable"), "Eval(%.20q...): %v", tc.src, err)
			continue
		}
		assert.ErrorContains(t, err, "expression nested too deeply (more than 256 levels)", "Parse(%.20q...) error = %v, want the nesting limit", tc.src, err)
	}
}

func TestSourceLengthLimit(t *testing.T) {
	ok := strings.Repeat(" ", MaxSourceLen-1) + "1"
	_, err := Parse(ok)
	assert.NoError(t, err, "a script of MaxSourceLen bytes")
	_, err = Parse(ok + " ")
	assert.ErrorContains(t, err, "script too long: 65537 bytes, the limit is 65536", "a longer script: error %v", err)
}
