package script

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadValues: the names a script reads, as written, with their values
// now: fields by their dotted names, each name once, enums left out,
// names that cannot be read with the reason.
func TestReadValues(t *testing.T) {
	type battery struct{ Percentage float64 }
	env := &MapEnv{
		Vars:  map[string]Value{"battery": battery{Percentage: 0.12}, "limit": 0.15, "state": "ok"},
		Enums: map[string]int{"FAULT": 3},
	}
	cases := []struct {
		name string
		src  string
		want []string // name=value or name!error
	}{
		{name: "plain names", src: "limit > 0.1 && state == 'ok'", want: []string{"limit=0.15", "state=ok"}},
		{name: "a field by its dotted name, once", src: "battery.percentage < limit || battery.percentage > 1", want: []string{"battery.percentage=0.12", "limit=0.15"}},
		{name: "enums are constants", src: "code != FAULT && limit > 0", want: []string{"code!unknown variable", "limit=0.15"}},
		{name: "a compound assignment reads its target", src: "limit += 1; x := state", want: []string{"limit=0.15", "state=ok"}},
		{name: "a missing field", src: "battery.voltage > 3", want: []string{"battery.voltage!"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prog, err := Parse(tc.src)
			require.NoError(t, err)
			var got []string
			for _, nv := range prog.ReadValues(env) {
				if nv.Err != nil {
					s := nv.Name + "!"
					if tc.name != "a missing field" {
						s += nv.Err.Error()
					}
					got = append(got, s)
					continue
				}
				got = append(got, fmt.Sprintf("%s=%v", nv.Name, nv.Value))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestStringAssignments(t *testing.T) {
	cases := []struct {
		src  string
		want []StringAssignment
	}{
		{"goal := 'charge'", []StringAssignment{{Name: "goal", Value: "charge", Line: 1, Column: 9}}},
		{"goal = 'deliver'; n := 3", []StringAssignment{{Name: "goal", Value: "deliver", Line: 1, Column: 8}}},
		{"x := 1;\ngoal := low ? 'charge' : 'patrol'", []StringAssignment{
			{Name: "goal", Value: "charge", Line: 2, Column: 15}, {Name: "goal", Value: "patrol", Line: 2, Column: 26}}},
		{"goal += 'x'", nil},   // a compound assignment builds on what was there
		{"goal := other", nil}, // not a literal
		{"a := (b := 'inner')", []StringAssignment{{Name: "b", Value: "inner", Line: 1, Column: 12}}},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			p, err := Parse(tc.src)
			require.NoError(t, err)
			assert.Equal(t, tc.want, p.StringAssignments())
		})
	}
}
