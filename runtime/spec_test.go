package runtime

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

func TestPosAt(t *testing.T) {
	cases := []struct {
		name      string
		line, col int
		want      Pos
	}{
		{name: "a place in a file", line: 12, col: 7, want: Pos{File: "f.xml", Line: 12, Col: 7}},
		{name: "past an int32: held at its largest", line: math.MaxInt32 + 1, col: math.MaxInt64, want: Pos{File: "f.xml", Line: math.MaxInt32, Col: math.MaxInt32}},
		{name: "below zero: zero", line: -1, col: -5, want: Pos{File: "f.xml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, PosAt("f.xml", c.line, c.col))
		})
	}
}

// TestNodeSpecSize: a NodeSpec is most of a loaded document (100,000 of
// them for the load benchmark's tree): positions are int32s, so that
// Pos is 24 bytes and a NodeSpec 96.
func TestNodeSpecSize(t *testing.T) {
	assert.Equal(t, uintptr(24), unsafe.Sizeof(Pos{}))
	assert.Equal(t, uintptr(96), unsafe.Sizeof(NodeSpec{}))
}
