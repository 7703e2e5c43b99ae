package mission

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestJoinMaster: --master wins over the environment, which wins over the
// default; auto uses a master that answers (a real one on loopback) and
// starts btrobot's own where none does, saying so, and stops it on close.
func TestJoinMaster(t *testing.T) {
	running, err := master.New(master.Conf{Host: "127.0.0.1", Port: 0})
	require.NoError(t, err)
	require.NoError(t, running.Start())
	t.Cleanup(func() { running.Close() })
	nobody := fmt.Sprintf("http://127.0.0.1:%d/", rostest.FreePort(t))
	for _, tc := range []struct {
		name, flagURI, envURI string
		want                  string // the URI returned
		started               bool   // JoinMaster started a master there
	}{
		{name: "neither", want: ros.DefaultMasterURI},
		{name: "the environment's", envURI: "http://robot:11311/", want: "http://robot:11311/"},
		{name: "the flag's over the environment's", flagURI: "http://other:11311/", envURI: "http://robot:11311/", want: "http://other:11311/"},
		{name: "auto, with a master there", flagURI: "auto", envURI: running.URI(), want: running.URI()},
		{name: "auto, with none there", flagURI: "auto", envURI: nobody, want: nobody, started: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var log strings.Builder
			uri, closeMaster, err := JoinMaster(ctx, &log, "btrobot test", tc.flagURI, tc.envURI)
			require.NoError(t, err)
			assert.Equal(t, tc.want, uri)
			if !tc.started {
				closeMaster()
				assert.Empty(t, log.String())
				return
			}
			assert.Equal(t, "btrobot test: no ROS master answered at "+nobody+"; started btrobot's own at "+nobody+"\n", log.String())
			require.NoError(t, master.Probe(ctx, uri), "the started master answers")
			closeMaster()
			assert.Error(t, master.Probe(ctx, uri), "the master is stopped on close")
		})
	}
	require.NoError(t, master.Probe(context.Background(), running.URI()), "a master JoinMaster did not start is left running")
}
