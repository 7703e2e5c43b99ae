package runtime

import (
	"slices"
	"testing"
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
		if !ok {
			t.Errorf("%s is not in NewRegistry()", typ.ID)
			continue
		}
		if rt.Kind != ControlKind || rt.Category != "control" {
			t.Errorf("%s: kind %v category %q, want Control/control", typ.ID, rt.Kind, rt.Category)
		}
		if rt.Summary == "" {
			t.Errorf("%s has no summary", typ.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("controlTypes() = %v\nwant %v", got, want)
	}
}
