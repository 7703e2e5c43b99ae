package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestControlTypesRegistered(t *testing.T) {
	reg := NewRegistry()
	want := []string{
		"Sequence", "AsyncSequence", "SequenceWithMemory", "ReactiveSequence",
		"Fallback", "AsyncFallback", "ReactiveFallback", "Parallel", "ParallelAll",
		"IfThenElse", "WhileDoElse", "Switch2", "Switch3", "Switch4", "Switch5", "Switch6",
		"TryCatch", "RandomSequence", "RandomSelector", "WeightedSelector",
	}
	var got []string
	for _, typ := range controlTypes() {
		got = append(got, typ.ID)
		rt, ok := reg.Lookup(typ.ID)
		if !assert.True(t, ok, "%s is not in NewRegistry()", typ.ID) {
			continue
		}
		assert.Equal(t, ControlKind, rt.Kind, "%s: kind %v category %q, want Control/control", typ.ID, rt.Kind, rt.Category)
		assert.Equal(t, "control", rt.Category, "%s: kind %v category %q, want Control/control", typ.ID, rt.Kind, rt.Category)
		assert.NotEmpty(t, rt.Summary, "%s has no summary", typ.ID)
	}
	assert.Equal(t, want, got, "controlTypes() = %v\nwant %v", got, want)
}
