package inproc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParams(t *testing.T) {
	g := NewGraph()
	steps := []struct {
		name string
		do   func() error
		get  string
		want any // nil: not set
	}{
		{"a bool", func() error { return g.SetParam("/use_sim_time", true) }, "/use_sim_time", true},
		{"an int32 reads as int", func() error { return g.SetParam("/robot1/btrobot/rate", int32(20)) }, "/robot1/btrobot/rate", 20},
		{"a namespace reads as a map", func() error { return g.SetParam("/robot1/btrobot/name", "r1") }, "/robot1",
			map[string]any{"btrobot": map[string]any{"rate": 20, "name": "r1"}}},
		{"a map sets a namespace", func() error {
			return g.SetParam("/limits", map[string]any{"v": 0.5, "w": map[string]any{"max": 1.0}})
		}, "/limits/w/max", 1.0},
		{"a list", func() error { return g.SetParam("/list", []any{1, "a"}) }, "/list", []any{1, "a"}},
		{"a leaf replaces a namespace", func() error { return g.SetParam("/limits", "none") }, "/limits", "none"},
		{"a namespace replaces a leaf", func() error { return g.SetParam("/limits/v", 2.0) }, "/limits", map[string]any{"v": 2.0}},
		{"deleted", func() error { g.DeleteParam("/robot1"); return nil }, "/robot1/btrobot/rate", nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			require.NoError(t, s.do())
			v, ok := g.Param(s.get)
			assert.Equal(t, s.want != nil, ok)
			assert.Equal(t, s.want, v)
			assert.Equal(t, s.want != nil, g.HasParam(s.get))
		})
	}
	assert.Equal(t, []string{"/limits/v", "/list", "/use_sim_time"}, g.ParamNames())

	bad := []struct {
		name string
		err  error
		want string
	}{
		{"a struct", g.SetParam("/x", struct{}{}), "parameter /x: a struct {} cannot be set"},
		{"a list of maps", g.SetParam("/x", []any{map[string]any{}}), "element 0: a map[string]interface {} cannot be set"},
		{"a relative name", g.SetParam("x", 1), `parameter name "x": not a global name`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			assert.Contains(t, tc.err.Error(), tc.want)
		})
	}
	assert.False(t, g.HasParam("/x"))
}
