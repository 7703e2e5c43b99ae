package studio

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUIFlagTakesAnOptionalAddress(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{name: "alone", args: []string{"--ui", "--rounds", "1"}, want: []string{"--ui", "--rounds", "1"}},
		{name: "an address after a space", args: []string{"--ui", "0.0.0.0:7070", "--speed", "0"}, want: []string{"--ui=0.0.0.0:7070", "--speed", "0"}},
		{name: "a port alone", args: []string{"-ui", ":7071"}, want: []string{"-ui=:7071"}},
		{name: "joined by =", args: []string{"--ui=127.0.0.1:9000"}, want: []string{"--ui=127.0.0.1:9000"}},
		{name: "last", args: []string{"--headless", "--ui"}, want: []string{"--headless", "--ui"}},
		{name: "before a positional that is no address", args: []string{"--ui", "rec.db3"}, want: []string{"--ui", "rec.db3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, FlagArgs(tc.args))
		})
	}
}

// TestRecordingsIn: the recordings directly in a folder, sorted; other
// files, folders named like recordings and what is below are left out.
func TestRecordingsIn(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.db3", "a.BTLOG", "c.btdb", "notes.txt", "sub/d.db3"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "e.db3"), 0o755))
	got, err := RecordingsIn(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "a.BTLOG"), filepath.Join(dir, "b.db3"), filepath.Join(dir, "c.btdb")}, got)
	_, err = RecordingsIn(filepath.Join(dir, "nonexistent"))
	require.Error(t, err)
}
