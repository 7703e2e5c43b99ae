package script

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// benchEval times a script against the smallest realistic Env: a map behind
// an interface, like the engine's blackboard.
func benchEval(b *testing.B, src string, vars map[string]Value) {
	p, err := Parse(src)
	require.NoError(b, err)
	env := &MapEnv{Vars: vars}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := p.Eval(env)
		require.NoError(b, err)
	}
}

// BenchmarkIncrement: x := x + 1 on an int variable. The sum is a float64
// that must be boxed to reach Env.Assign (one allocation); MapEnv stores it
// back as an int (a second one once x passes 255).
func BenchmarkIncrement(b *testing.B) {
	benchEval(b, "x := x + 1", map[string]Value{"x": 0})
}

// BenchmarkCondition: a > 3 && b == 'on', the typical _skipIf. No
// allocation: values from the Env are used as they are, and the bool result
// needs no boxing.
func BenchmarkCondition(b *testing.B) {
	benchEval(b, "a > 3 && b == 'on'", map[string]Value{"a": 5, "b": "on"})
}

// BenchmarkFieldCondition: a condition reading a ROS-message-shaped struct
// through a pointer.
func BenchmarkFieldCondition(b *testing.B) {
	bat := fieldEnv()["battery"].(batteryState)
	benchEval(b, "battery.percentage < 0.2 && battery.present", map[string]Value{"battery": &bat})
}

// BenchmarkFieldString: a string field costs one allocation (boxing the
// string read by reflection).
func BenchmarkFieldString(b *testing.B) {
	bat := fieldEnv()["battery"].(batteryState)
	benchEval(b, "battery.header.frame_id == 'base_link'", map[string]Value{"battery": &bat})
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, err := Parse("battery.percentage < 0.2 && state != 'DOCKING' ? 'dock' : 'patrol'")
		require.NoError(b, err)
	}
}
