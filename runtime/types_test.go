package runtime

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime/script"
)

// TestListBound: a list read from text holds at most script.MaxArrayLen
// elements; one more is an error, found before the list is made.
func TestListBound(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		wantLen int
		wantErr string
	}{
		{name: "the largest list", text: strings.Repeat("a;", script.MaxArrayLen-1) + "a", wantLen: script.MaxArrayLen},
		{name: "one element too many", text: strings.Repeat(";", script.MaxArrayLen), wantErr: "a list of 100001 elements, more than the 100000 a value may hold"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ParseLiteral(c.text, reflect.TypeFor[[]string]())
			if c.wantErr != "" {
				require.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, v, c.wantLen)
		})
	}
}
