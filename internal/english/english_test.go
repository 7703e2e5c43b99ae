package english

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlural(t *testing.T) {
	cases := []struct {
		name string
		n    int
		want string
	}{
		{name: "none", n: 0, want: "children"},
		{name: "one", n: 1, want: "child"},
		{name: "two", n: 2, want: "children"},
		{name: "below zero", n: -1, want: "children"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Plural(c.n, "child", "children"))
		})
	}
}
