package cli

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrefixed: every line gets the prefix; writers sharing a lock never
// cut each other's lines.
func TestPrefixed(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{name: "one line", in: "a\n", want: "r1| a\n"},
		{name: "two lines", in: "a\nb\n", want: "r1| a\nr1| b\n"},
		{name: "no newline at the end", in: "a\nb", want: "r1| a\nr1| b"},
		{name: "nothing", in: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			n, err := (&Prefixed{Mu: &sync.Mutex{}, W: &b, Prefix: "r1| "}).Write([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, len(tc.in), n)
			assert.Equal(t, tc.want, b.String())
		})
	}
	t.Run("shared by writers at once", func(t *testing.T) {
		var mu sync.Mutex
		var b strings.Builder
		var wg sync.WaitGroup
		for k := range 4 {
			p := &Prefixed{Mu: &mu, W: &b, Prefix: fmt.Sprintf("r%d| ", k)}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 100 {
					fmt.Fprintf(p, "line of r%d\n", k)
				}
			}()
		}
		wg.Wait()
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		require.Len(t, lines, 400)
		for _, l := range lines {
			var k, j int
			_, err := fmt.Sscanf(l, "r%d| line of r%d", &k, &j)
			require.NoError(t, err, l)
			assert.Equal(t, k, j, l)
		}
	})
}
