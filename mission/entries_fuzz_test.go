package mission_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
)

// FuzzEntry: any text gives an entry with a valid key, or an error; never
// a panic.
func FuzzEntry(f *testing.F) {
	for _, s := range []string{"n=3", "speed=0.5", "code:string=007", "9x=1", "=", "k:=1", "a=0x1p3", "a=NaN", "é=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, kv string) {
		k, _, err := mission.Entry(kv)
		if err == nil {
			require.True(t, ros.ValidKey(k), "Entry(%q) gave the key %q, which profiles refuse", kv, k)
		}
	})
}
