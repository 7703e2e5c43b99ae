package bridge

import (
	"errors"
	"os"
	"testing"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// FuzzParseProfile: no profile, however broken, makes the loader panic, and
// every error it reports has a position.
//
//	go test -run '^$' -fuzz FuzzParseProfile ./bridge/
func FuzzParseProfile(f *testing.F) {
	for _, path := range []string{"../robots/sim.yaml", "../robots/turtlebot3.yaml"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("rate: [\n"))
	f.Add([]byte("inputs:\n  - {topic: a, type: std_msgs/Bool, fields: {x: data.y.z}}\n"))
	f.Add([]byte("a: &x [*x, *x]\n"))
	msgs := ros.BuiltinMessages()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data, "fuzz.yaml", msgs)
		if err == nil {
			if p == nil {
				t.Fatal("no profile and no error")
			}
			return
		}
		var list runtime.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("error %T is not an ErrorList: %v", err, err)
		}
		for _, e := range list {
			if e.Pos.File != "fuzz.yaml" || e.Pos.Line < 1 {
				t.Fatalf("error without a position: %v", e)
			}
		}
	})
}
