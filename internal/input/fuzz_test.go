package input

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// FuzzYAML: no document makes YAML panic, and every error it reports is a
// BuildError placed on a line of the document.
//
//	go test -run '^$' -fuzz FuzzYAML ./internal/input/
func FuzzYAML(f *testing.F) {
	for _, s := range []string{"rate: 20\n", "a: [1, 2\nb: 3\n", "a: *x\n", "a: \xff\n", "a: &a [*a]\n", "- {a: 1}\n- [\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := YAML("fuzz.yaml", data)
		if err == nil {
			return
		}
		var be *runtime.BuildError
		require.ErrorAs(t, err, &be, "error %T is not a BuildError: %v", err, err)
		// Lines as YAML counts them: a line break is \n, \r\n or a lone \r.
		lines := 1
		for i, b := range data {
			if b == '\n' || b == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
				lines++
			}
		}
		require.Equal(t, "fuzz.yaml", be.Pos.File, "error placed off the document (%d lines): %v", lines, be)
		require.GreaterOrEqual(t, int(be.Pos.Line), 1, "error placed off the document (%d lines): %v", lines, be)
		require.LessOrEqual(t, int(be.Pos.Line), lines+1, "error placed off the document (%d lines): %v", lines, be)
		require.GreaterOrEqual(t, int(be.Pos.Col), 1, "error placed off the document (%d lines): %v", lines, be)
	})
}
