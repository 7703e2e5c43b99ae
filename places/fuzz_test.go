package places_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
)

// FuzzParse: no places file, however broken, makes Parse panic; it returns
// places or an ErrorList of problems placed in the file, and places it returns pass
// Check.
//
//	go test -run '^$' -fuzz FuzzParse ./places/
func FuzzParse(f *testing.F) {
	for _, path := range []string{"../worlds/office/places.yaml", "../worlds/warehouse/places.yaml"} {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("waypoints:\n  - {name: a, pose: [1, 2]}\n  - {name: a, pose: [1, 2]}\n"))
	f.Add([]byte("docks: [{name: d, pose: [1, 2, 0], approach: *x}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := places.Parse("fuzz.yaml", data)
		if err != nil {
			var list runtime.ErrorList
			require.ErrorAs(t, err, &list, "error %T is not an ErrorList: %v", err, err)
			require.NotEmpty(t, list, "error %T is not an ErrorList: %v", err, err)
			for _, e := range list {
				require.Equal(t, "fuzz.yaml", e.Pos.File, "error without a position: %v", e)
				require.GreaterOrEqual(t, int(e.Pos.Line), 1, "error without a position: %v", e)
			}
			return
		}
		require.NoError(t, p.Check(), "Parse accepted places that Check refuses")
	})
}
