package mission

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchFlags: what the command line says reaches RunConf; a Groot2
// address that is none is refused when parsed.
func TestWatchFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		groot bool
		args  []string
		want  RunConf // its watcher fields
		err   string
	}{
		{name: "the defaults", groot: true, want: RunConf{Diagnostics: true, Transitions: "~transitions"}},
		{name: "every flag", groot: true, args: []string{"--record", "r.db3", "--groot", "0.0.0.0:1667", "--diagnostics=false", "--transitions", ""},
			want: RunConf{Record: "r.db3", Groot: 1667, GrootHost: "0.0.0.0"}},
		{name: "a port alone", groot: true, args: []string{"--groot", "1700"}, want: RunConf{Groot: 1700, Diagnostics: true, Transitions: "~transitions"}},
		{name: "not an address", groot: true, args: []string{"--groot", "localhost"}, err: `"localhost": want PORT or HOST:PORT`},
		{name: "record only", args: []string{"--record", "r.btlog"}, want: RunConf{Record: "r.btlog"}},
		{name: "no groot without ROS", args: []string{"--groot", "1667"}, err: "flag provided but not defined: -groot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var w WatchFlags
			w.Add(fs, tc.groot)
			err := fs.Parse(tc.args)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var rc RunConf
			w.Apply(&rc)
			assert.Equal(t, tc.want, rc)
		})
	}
}
