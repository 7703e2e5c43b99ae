package executor

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/diagnostic_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
)

// TestDiagnosticsShowTheServer: /diagnostics carries the server's state
// (idle, running which mission, paused), the last result, the catalog's
// size and the last reload's trouble, step by step as they change.
func TestDiagnosticsShowTheServer(t *testing.T) {
	dir := missionsDir(t)
	s := serve(t, dir, nil)
	var mu sync.Mutex
	var last *diagnostic_msgs.DiagnosticStatus
	_, err := ros.Subscribe(s.cconn, "/diagnostics", func(m *diagnostic_msgs.DiagnosticArray) {
		for i := range m.Status {
			if m.Status[i].Name == "/btrobot: mission server" {
				mu.Lock()
				last = &m.Status[i]
				mu.Unlock()
			}
		}
	})
	require.NoError(t, err)
	value := func(d *diagnostic_msgs.DiagnosticStatus, key string) string {
		for _, kv := range d.Values {
			if kv.Key == key {
				return kv.Value
			}
		}
		return "(none)"
	}
	var running *sent
	for _, step := range []struct {
		name    string
		do      func(t *testing.T)
		message string
		level   int8
		values  map[string]string
	}{
		{name: "idle", message: "idle", values: map[string]string{"missions": "19", "state": "idle"}},
		{name: "running", do: func(*testing.T) { running = s.send("Wait", "", "") },
			message: "running Wait (goal 1)", values: map[string]string{"mission": "Wait", "accepted": "1"}},
		{name: "paused", do: func(t *testing.T) { _, err := s.srv.Pause(); require.NoError(t, err) },
			message: "paused Wait (goal 1)", values: map[string]string{"state": "paused"}},
		{name: "resumed", do: func(t *testing.T) { _, err := s.srv.Resume(); require.NoError(t, err) },
			message: "running Wait (goal 1)"},
		{name: "a reload refused", do: func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.xml"), []byte("<root"), 0o644))
			assert.False(t, s.srv.Reload().Success)
		}, message: "running Wait (goal 1); the last reload was refused: 1 problems: ", level: diagnostic_msgs.DiagnosticStatus_WARN},
		{name: "a reload taken", do: func(t *testing.T) {
			require.NoError(t, os.Remove(filepath.Join(dir, "broken.xml")))
			assert.True(t, s.srv.Reload().Success)
		}, message: "running Wait (goal 1)", values: map[string]string{"last_reload_error": ""}},
		{name: "cancelled", do: func(*testing.T) { running.cancel() },
			message: "idle", values: map[string]string{"last_result": "Wait (goal 1): PREEMPTED: cancelled by its client"}},
	} {
		t.Run(step.name, func(t *testing.T) {
			if step.do != nil {
				step.do(t)
			}
			require.Eventually(t, func() bool {
				mu.Lock()
				d := last
				mu.Unlock()
				if d == nil || d.Level != step.level || len(d.Message) < len(step.message) || d.Message[:len(step.message)] != step.message {
					return false
				}
				for k, v := range step.values {
					if got := value(d, k); len(got) < len(v) || got[:len(v)] != v || v == "" && got != "" {
						return false
					}
				}
				return true
			}, 20*time.Second, 5*time.Millisecond, "diagnostics say %q %v", step.message, step.values)
		})
	}
}
