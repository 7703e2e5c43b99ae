package skills

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestLogPlaceholders: a {key} with no value says so in words (issue 9: a
// "{nav_error?}" was printed verbatim in a patrol's warning when the
// navigation had been halted before it wrote its error code); braces
// around what is not a key name stay as written.
func TestLogPlaceholders(t *testing.T) {
	bb := runtime.NewBlackboard(nil)
	_, err := bb.Declare("nav_error", nil)
	require.NoError(t, err)
	err = bb.Set("target", "kitchen")
	require.NoError(t, err)
	cases := []struct {
		name, text, want string
	}{
		{name: "a value", text: "cannot reach {target}", want: "cannot reach kitchen"},
		{name: "declared, never written", text: "cannot reach {target} ({nav_error}): backing up", want: "cannot reach kitchen (<nav_error not set>): backing up"},
		{name: "no such entry", text: "code {nav_eror}", want: "code <no entry nav_eror>"},
		{name: "blanks inside the braces", text: "{ target }!", want: "kitchen!"},
		{name: "not a key: kept", text: `{} and {"x": 1}`, want: `{} and {"x": 1}`},
		{name: "an unclosed brace", text: "{target", want: "{target"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, interpolate(bb, tc.text))
		})
	}
}
