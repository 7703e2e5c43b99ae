package bridge

import (
	"errors"
	"os"
	"testing"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/stretchr/testify/require"
)

// FuzzParseProfile: no profile, however broken, makes the loader panic, and
// every error it reports has a position.
//
//	go test -run '^$' -fuzz FuzzParseProfile ./bridge/
func FuzzParseProfile(f *testing.F) {
	for _, path := range []string{"../robots/sim.yaml", "../robots/turtlebot3.yaml"} {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("rate: [\n"))
	f.Add([]byte("inputs:\n  - {topic: a, type: std_msgs/Bool, fields: {x: data.y.z}}\n"))
	f.Add([]byte("a: &x [*x, *x]\n"))
	msgs := ros.BuiltinMessages()
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data, "fuzz.yaml", msgs)
		if err == nil {
			require.NotNil(t, p, "no profile and no error")
			return
		}
		var list runtime.ErrorList
		require.True(t, errors.As(err, &list), "error %T is not an ErrorList: %v", err, err)
		for _, e := range list {
			require.Equal(t, "fuzz.yaml", e.Pos.File, "error without a position: %v", e)
			require.GreaterOrEqual(t, int(e.Pos.Line), 1, "error without a position: %v", e)
		}
	})
}
