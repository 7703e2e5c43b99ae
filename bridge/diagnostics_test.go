package bridge

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/diagnostic_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// diagLog keeps the DiagnosticArrays a subscriber node receives.
type diagLog struct {
	mu   sync.Mutex
	msgs []diagnostic_msgs.DiagnosticArray
}

func (l *diagLog) find(name string, ok func(diagnostic_msgs.DiagnosticStatus) bool) (diagnostic_msgs.DiagnosticStatus, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		for _, s := range m.Status {
			if strings.HasSuffix(s.Name, name) && ok(s) {
				return s, true
			}
		}
	}
	return diagnostic_msgs.DiagnosticStatus{}, false
}

func value(s diagnostic_msgs.DiagnosticStatus, key string) string {
	for _, kv := range s.Values {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// slowType is an action whose every tick takes 60 ms: at 50 Hz, each tick
// starts a period or more late.
var slowType = runtime.NodeType{
	ID: "Slow", Kind: runtime.ActionKind,
	New: func(*runtime.Config) (runtime.Node, error) {
		return runtime.NewAction(func(*runtime.Leaf) (runtime.Status, error) {
			time.Sleep(60 * time.Millisecond)
			return runtime.Success, nil
		}), nil
	},
}

// TestDiagnosticsLevels: what /diagnostics says of a run, as a subscriber
// node receives it: ticks longer than a period are a WARN of the tick loop, a pause a person
// asked for a WARN of the mission, a failed mission an ERROR with its
// explanation in the message sent as the run ends, a succeeded one OK.
func TestDiagnosticsLevels(t *testing.T) {
	cases := []struct {
		name   string
		tree   string
		paused bool
		until  bool // the run ends by itself
		status string
		want   func(diagnostic_msgs.DiagnosticStatus) bool
	}{
		{
			name: "ticks longer than a period warn", tree: `<KeepRunningUntilFailure><Slow/></KeepRunningUntilFailure>`, status: ": tick loop",
			want: func(s diagnostic_msgs.DiagnosticStatus) bool {
				return s.Level == diagWarn && value(s, "long_ticks") != "0" && strings.Contains(s.Message, "longer than a period")
			},
		},
		{
			name: "a pause a person asked for warns", tree: `<KeepRunningUntilFailure><AlwaysSuccess/></KeepRunningUntilFailure>`,
			paused: true, status: ": mission",
			want: func(s diagnostic_msgs.DiagnosticStatus) bool {
				return s.Level == diagWarn && s.Message == "paused at a Groot2 breakpoint: the robot is stopped"
			},
		},
		{
			name: "a failed mission is an error, with its explanation", until: true,
			tree:   `<Delay delay_msec="1500"><Sequence name="mission"><AlwaysSuccess/><AlwaysFailure name="broken"/></Sequence></Delay>`,
			status: ": mission",
			want: func(s diagnostic_msgs.DiagnosticStatus) bool {
				return s.Level == diagError && strings.HasPrefix(s.Message, "ended: the mission failed: ") &&
					strings.Contains(s.Message, "broken") && strings.Contains(value(s, "last_failure"), "M/Delay/mission (Sequence) FAILURE")
			},
		},
		{
			name: "a succeeded mission is OK", until: true,
			tree: `<Delay delay_msec="1500"><AlwaysSuccess/></Delay>`, status: ": mission",
			want: func(s diagnostic_msgs.DiagnosticStatus) bool {
				return s.Level == diagOK && s.Message == "ended: the mission succeeded" && value(s, "status") == "SUCCESS"
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			c := connect(t, uri, "btrobot", "__ns:=/robot7")
			watcher := connect(t, uri, "monitor")
			log := &diagLog{}
			_, err := ros.Subscribe(watcher, "/diagnostics", func(m *diagnostic_msgs.DiagnosticArray) {
				log.mu.Lock()
				log.msgs = append(log.msgs, *m)
				log.mu.Unlock()
			})
			require.NoError(t, err)
			tree := buildTree(t, Deps{Conn: c}, `<root BTCPP_format="4"><BehaviorTree ID="M">`+tc.tree+`</BehaviorTree></root>`, slowType)
			var paused atomic.Bool
			paused.Store(tc.paused)
			stop, done := runInBackground(t, RunConf{Conn: c, Tree: tree, Rate: 50, UntilDone: tc.until, Diagnostics: true, Paused: paused.Load})
			if tc.until {
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					require.FailNow(t, "the run did not end")
				}
			}
			require.Eventually(t, func() bool { _, ok := log.find(tc.status, tc.want); return ok }, 10*time.Second, 5*time.Millisecond, "a status that says so")
			s, _ := log.find(tc.status, tc.want)
			assert.Equal(t, "robot7", s.HardwareId)
			assert.Equal(t, "/robot7/btrobot"+tc.status, s.Name)
			_, err = stop()
			if !tc.until {
				assert.ErrorIs(t, err, context.Canceled)
			}
		})
	}
}
