package script

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTruthy(t *testing.T) {
	type level int
	cases := []struct {
		v    Value
		want bool
		err  string
	}{
		{true, true, ""},
		{false, false, ""},
		{1, true, ""},
		{0, false, ""},
		{uint8(1), true, ""},
		{int32(0), false, ""},
		{level(1), true, ""},
		{2, false, "int 2 cannot be used as a condition: only the integers 0 and 1 convert to bool"},
		{-1, false, "int -1 is negative and cannot be used as a condition"},
		{uint64(math.MaxUint64), false, "only the integers 0 and 1"},
		{0.5, true, ""},
		{2.0, true, ""},
		{0.0, false, ""},
		{math.Copysign(0, -1), false, ""},
		{math.NaN(), true, ""},
		{math.Inf(1), true, ""},
		{-0.5, false, "float64 -0.5 is negative and cannot be used as a condition"},
		{float32(1), true, ""},
		{"true", false, "string 'true' cannot be used as a condition: strings do not convert to bool"},
		{"", false, "strings do not convert to bool"},
		{nil, false, "no value to use as a condition"},
		{struct{}{}, false, "struct {} cannot be used as a condition"},
		{time.Second, false, "time.Duration 1000000000 cannot be used as a condition"},
	}
	for _, tc := range cases {
		got, err := Truthy(tc.v)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "Truthy(%T %v) = %v, %v; want error %q", tc.v, tc.v, got, err, tc.err)
			continue
		}
		assert.NoError(t, err, "Truthy(%T %v) = %v, %v; want %v", tc.v, tc.v, got, err, tc.want)
		assert.Equal(t, tc.want, got, "Truthy(%T %v) = %v, %v; want %v", tc.v, tc.v, got, err, tc.want)
	}
}

func TestConvert(t *testing.T) {
	type mode string
	type speed float32
	type level uint16
	var (
		tInt    = reflect.TypeOf(0)
		tInt32  = reflect.TypeOf(int32(0))
		tUint8  = reflect.TypeOf(uint8(0))
		tUint64 = reflect.TypeOf(uint64(0))
		tF64    = reflect.TypeOf(0.0)
		tF32    = reflect.TypeOf(float32(0))
		tBool   = reflect.TypeOf(false)
		tStr    = reflect.TypeOf("")
		tMode   = reflect.TypeOf(mode(""))
		tSpeed  = reflect.TypeOf(speed(0))
		tLevel  = reflect.TypeOf(level(0))
		tPoint  = reflect.TypeOf(point{})
		tErr    = reflect.TypeOf((*error)(nil)).Elem()
	)
	cases := []struct {
		v    Value
		to   reflect.Type
		want Value
		err  string
	}{
		{5, nil, 5, ""},
		{5, tInt, 5, ""},
		{2.0, tInt, 2, ""},
		{-3.0, tInt, -3, ""},
		{2.5, tInt, nil, "cannot store float64 2.5 in a variable of type int: it has a fractional part"},
		{math.Inf(1), tInt, nil, "cannot store float64 +Inf in a variable of type int: out of range"},
		{math.NaN(), tInt, nil, "NaN is not a number"},
		{1e19, tInt, nil, "out of range"},
		{true, tInt, 1, ""},
		{"7", tInt, 7, ""},
		{"-7", tInt, -7, ""},
		{"7.0", tInt, 7, ""},
		{"true", tInt, 1, ""},
		{"7abc", tInt, nil, "cannot store string '7abc' in a variable of type int: the string is not a number"},
		{" 7", tInt, nil, "the string is not a number"},
		{"", tInt, nil, "the string is not a number"},
		{300, tUint8, nil, "cannot store int 300 in a variable of type uint8: out of range"},
		{-1, tUint8, nil, "out of range"},
		{255.0, tUint8, uint8(255), ""},
		{int64(1) << 40, tInt32, nil, "out of range"},
		{int32(7), tInt, 7, ""},
		{uint64(math.MaxUint64), tUint64, uint64(math.MaxUint64), ""},
		{uint64(math.MaxUint64), tInt, nil, "out of range"},
		{3, tLevel, level(3), ""},
		{2, tF64, 2.0, ""},
		{float32(1.5), tF64, 1.5, ""},
		{1 << 53, tF64, nil, "too large to be exact"},
		{"2.5", tF64, 2.5, ""},
		{"inf", tF64, math.Inf(1), ""},
		{"false", tF64, 0.0, ""},
		{2.5, tF32, float32(2.5), ""},
		{1e300, tF32, nil, "out of range"},
		{2.5, tSpeed, speed(2.5), ""},
		{true, tF64, 1.0, ""},
		{"x", tF64, nil, "the string is not a number"},
		{1, tBool, true, ""},
		{0.0, tBool, false, ""},
		{1.0, tBool, true, ""},
		{2, tBool, nil, "cannot store int 2 in a variable of type bool: only 0 and 1 convert to bool"},
		{0.5, tBool, nil, "only 0 and 1 convert to bool"},
		{"True", tBool, true, ""},
		{"FALSE", tBool, false, ""},
		{"0", tBool, false, ""},
		{"yes", tBool, nil, "only 0 and 1 convert to bool"},
		{"s", tStr, "s", ""},
		{mode("auto"), tStr, "auto", ""},
		{"auto", tMode, mode("auto"), ""},
		{5, tStr, nil, "cannot store int 5 in a variable of type string"},
		{true, tStr, nil, "cannot store bool true in a variable of type string"},
		{point{X: 1}, tPoint, point{X: 1}, ""},
		{1, tPoint, nil, "cannot store int 1 in a variable of type script.point"},
		{point{}, tF64, nil, "cannot store script.point in a variable of type float64"},
		{errors.New("e"), tErr, errors.New("e"), ""},
		{5, tErr, nil, "cannot store int 5 in a variable of type error"},
		{nil, tInt, nil, "no value to store"},
	}
	for _, tc := range cases {
		got, err := Convert(tc.v, tc.to)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "Convert(%T %v, %v) = %T %v, %v; want error %q", tc.v, tc.v, tc.to, got, got, err, tc.err)
			continue
		}
		if !assert.NoError(t, err, "Convert(%T %v, %v)", tc.v, tc.v, tc.to) {
			continue
		}
		assert.Equal(t, fmt.Sprintf("%T %v", tc.want, tc.want), fmt.Sprintf("%T %v", got, got), "Convert(%T %v, %v) = %T %v, want %T %v", tc.v, tc.v, tc.to, got, got, tc.want, tc.want)
	}
}

func TestMapEnv(t *testing.T) {
	env := &MapEnv{}
	_, ok := env.Lookup("x")
	assert.False(t, ok, "an empty MapEnv finds x")
	_, ok = env.Enum("RED")
	assert.False(t, ok, "a MapEnv without enums finds RED")
	err := env.Assign("x", 1, false)
	assert.ErrorIs(t, err, ErrUnknownVariable, "Assign to a missing variable with create=false: %v", err)
	require.NoError(t, env.Assign("@x", 1, true))
	v, ok := env.Lookup("x")
	assert.True(t, ok, "Lookup(x) after Assign(@x) = %v, %v", v, ok)
	assert.True(t, v == 1, "Lookup(x) after Assign(@x) = %v, %v", v, ok)
	require.NoError(t, env.Assign("x", 2.0, false))
	v, _ = env.Lookup("@x")
	assert.True(t, v == 2, "x keeps its int type: got %T %v", v, v)
	err = env.Assign("x", "nope", true)
	assert.Error(t, err, "a string went into an int variable")
	env.Vars["e"] = nil
	assert.NoError(t, env.Assign("e", "anything", false), "a variable without a value takes anything")
}
