package places_test

import (
	"errors"
	"os"
	"testing"

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
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("waypoints:\n  - {name: a, pose: [1, 2]}\n  - {name: a, pose: [1, 2]}\n"))
	f.Add([]byte("docks: [{name: d, pose: [1, 2, 0], approach: *x}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := places.Parse("fuzz.yaml", data)
		if err != nil {
			var list runtime.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %T is not an ErrorList: %v", err, err)
			}
			for _, e := range list {
				if e.Pos.File != "fuzz.yaml" || e.Pos.Line < 1 {
					t.Fatalf("error without a position: %v", e)
				}
			}
			return
		}
		if err := p.Check(); err != nil {
			t.Fatalf("Parse accepted places that Check refuses: %v", err)
		}
	})
}
