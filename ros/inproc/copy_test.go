package inproc

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCopy(t *testing.T) {
	stamp := time.Unix(12, 34)
	cases := []struct {
		name string
		msg  any
		// mutate changes every part of the original a copy could share.
		mutate func(any)
	}{
		{"flat struct", &twist{Linear: [3]float64{1, 2, 3}}, func(m any) { m.(*twist).Linear[0] = 9 }},
		{"value, not pointer", twist{Angular: [3]float64{0, 0, 1}}, nil},
		{"slices of numbers and strings", &scan{Header: header{Seq: 1, Stamp: stamp, FrameID: "laser"}, Ranges: []float32{1, 2}, Labels: []string{"a"}},
			func(m any) { s := m.(*scan); s.Ranges[0], s.Labels[0] = 7, "z" }},
		{"nested slices, maps, pointers, arrays of slices",
			&path{Poses: []scan{{Ranges: []float32{1}}}, Marks: map[string][]int{"k": {1}}, Next: &path{Poses: []scan{{Labels: []string{"n"}}}}, Fixed: [2][]byte{{1}, {2}}},
			func(m any) {
				p := m.(*path)
				p.Poses[0].Ranges[0] = 5
				p.Marks["k"][0] = 5
				p.Marks["new"] = nil
				p.Next.Poses[0].Labels[0] = "changed"
				p.Fixed[1][0] = 5
			}},
		{"nil slices, maps and pointers stay nil", &path{}, nil},
		{"empty slices stay empty, not nil", &scan{Ranges: []float32{}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := deepClone(t, tc.msg)
			got, err := Copy(tc.msg)
			require.NoError(t, err)
			require.Equal(t, reflect.PointerTo(reflect.TypeOf(want)), reflect.TypeOf(got), "a pointer to the struct")
			require.Equal(t, want, reflect.ValueOf(got).Elem().Interface())
			if tc.mutate != nil {
				tc.mutate(tc.msg)
				assert.Equal(t, want, reflect.ValueOf(got).Elem().Interface(), "the copy shares nothing with the original")
			}
		})
	}
}

// deepClone returns the struct msg holds, copied by hand through the
// slices the test types hold, as the reference a mutation must not reach.
func deepClone(t *testing.T, msg any) any {
	t.Helper()
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	switch m := v.Interface().(type) {
	case twist:
		return m
	case scan:
		return cloneScan(m)
	case path:
		return clonePath(m)
	}
	require.FailNow(t, fmt.Sprintf("no clone for %T", msg))
	return nil
}

func cloneScan(s scan) scan {
	if s.Ranges != nil {
		s.Ranges = append([]float32{}, s.Ranges...)
	}
	if s.Labels != nil {
		s.Labels = append([]string{}, s.Labels...)
	}
	return s
}

func clonePath(p path) path {
	if p.Poses != nil {
		ps := make([]scan, len(p.Poses))
		for i, s := range p.Poses {
			ps[i] = cloneScan(s)
		}
		p.Poses = ps
	}
	if p.Marks != nil {
		m := map[string][]int{}
		for k, v := range p.Marks {
			m[k] = append([]int{}, v...)
		}
		p.Marks = m
	}
	if p.Next != nil {
		n := clonePath(*p.Next)
		p.Next = &n
	}
	for i, b := range p.Fixed {
		if b != nil {
			p.Fixed[i] = append([]byte{}, b...)
		}
	}
	return p
}

func TestCopyRefuses(t *testing.T) {
	type withChan struct{ C chan int }
	type withFunc struct{ F func() }
	type withAny struct{ A any }
	type withHidden struct{ s []int }
	cases := []struct {
		name, msg string
		v         any
	}{
		{"not a struct", "a message is a struct, not int", 3},
		{"nil pointer", "a nil *inproc.twist", (*twist)(nil)},
		{"nil", "a message is a struct, not <nil>", nil},
		{"channel", "field C: a message holds no chan", withChan{}},
		{"function", "field F: a message holds no func", withFunc{}},
		{"interface", "field A: a message holds no interface", withAny{}},
		{"unexported slice", "field s: an unexported field", withHidden{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Copy(tc.v)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// BenchmarkCopy copies messages of the shapes a mission moves: a velocity,
// and a laser scan of 360 ranges.
func BenchmarkCopy(b *testing.B) {
	ranges := make([]float32, 360)
	for _, bc := range []struct {
		name string
		msg  any
	}{
		{"Twist", &twist{Linear: [3]float64{0.5}}},
		{"LaserScan360", &scan{Header: header{FrameID: "laser"}, Ranges: ranges, Labels: []string{"a", "b"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Copy(bc.msg); err != nil {
					require.NoError(b, err) // guarded: the loop pays for the check only on failure
				}
			}
		})
	}
}
