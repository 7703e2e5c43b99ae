package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/skills"
)

// TestSemaphoreAcrossProcesses: two `btrobot run` processes on one master
// share a one-slot resource. The first holds it (its child sleeps for a
// minute); the second waits for it — and gets it, ending its mission, only
// when the first is killed with SIGKILL (no goodbye), a lease (2 s) after
// the holder's last word, not before. A holder that is interrupted instead
// says goodbye and the slot comes back at once.
func TestSemaphoreAcrossProcesses(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	holderTree := filepath.Join(dir, "holder.xml")
	waiterTree := filepath.Join(dir, "waiter.xml")
	require.NoError(t, os.WriteFile(holderTree, []byte(`<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Semaphore resource="dock"><Sleep msec="60000"/></Semaphore>
</BehaviorTree></root>`), 0o644))
	require.NoError(t, os.WriteFile(waiterTree, []byte(`<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Semaphore resource="dock"><AlwaysSuccess/></Semaphore>
</BehaviorTree></root>`), 0o644))
	const lease = 2 * time.Second

	for _, tc := range []struct {
		name    string
		stop    func(p *rostest.Process)
		atLeast time.Duration // from the holder's end to the waiter's slot
	}{
		{"the holder is killed: its slot comes back after its lease", (*rostest.Process).Kill, lease - 500*time.Millisecond},
		{"the holder is interrupted: it says goodbye", (*rostest.Process).Interrupt, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			c, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "watcher"})
			require.NoError(t, err)
			defer c.Close()
			var holding, waiting atomic.Bool
			_, err = ros.Subscribe(c, skills.DefaultSemaphoreTopic, func(m *std_msgs.String) {
				switch {
				case strings.Contains(m.Data, `"node":"/holder"`) && strings.Contains(m.Data, `"holding":true`):
					holding.Store(true)
				case strings.Contains(m.Data, `"node":"/waiter"`) && strings.Contains(m.Data, `"res":"dock"`):
					waiting.Store(true)
				}
			})
			require.NoError(t, err)

			holder := rostest.Start(t, uri, bin, "run", "--tree", holderTree, "--master", uri, "--quiet", "__name:=holder")
			require.Eventually(t, holding.Load, 60*time.Second, 10*time.Millisecond, "the holder never held the dock")
			waiter := rostest.Start(t, uri, bin, "run", "--tree", waiterTree, "--master", uri, "--quiet", "__name:=waiter")
			// The waiter listens for a lease after it joins, then waits
			// behind the holder: it has asked once it says its request.
			require.Eventually(t, waiting.Load, 60*time.Second, 10*time.Millisecond, "the waiter never asked for the dock")
			// Twice the listening: a waiter that did not see the holder
			// would have taken the dock and ended by then.
			time.Sleep(2 * lease)
			require.False(t, waiter.Exited(), "the waiter ended while the holder held the dock:\n%s", waiter.Stdout())

			ended := time.Now()
			tc.stop(holder)
			require.NoError(t, waiter.WaitExit(t, 60*time.Second), "the waiter did not get the dock:\n%s", waiter.Stdout())
			took := time.Since(ended)
			t.Logf("the waiter ended %v after the holder", took.Round(time.Millisecond))
			assert.GreaterOrEqual(t, took, tc.atLeast, "the slot came back before the holder's lease was over")
			assert.Contains(t, waiter.Stdout(), "mission succeeded")
		})
	}
}
