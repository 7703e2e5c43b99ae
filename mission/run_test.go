package mission_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// display records what a run showed.
type display struct {
	mu          sync.Mutex
	transitions int
	ticks       int
	lines       []string
	end         string
	closed      int
}

func (d *display) OnTransitions(batch []runtime.Transition) {
	d.mu.Lock()
	d.transitions += len(batch)
	d.mu.Unlock()
}
func (d *display) OnTick(runtime.TickReport) { d.mu.Lock(); d.ticks++; d.mu.Unlock() }
func (d *display) Log(line string)           { d.mu.Lock(); d.lines = append(d.lines, line); d.mu.Unlock() }
func (d *display) NodeLog(_ time.Time, level, node, text string) {
	d.Log(level + " " + node + ": " + text)
}
func (d *display) Close(end string) { d.mu.Lock(); d.end = end; d.closed++; d.mu.Unlock() }

// TestRunOutcomes runs trees with no robot on a real master and checks
// the report: the outcome, the one-line summary, the figures, and that
// the display saw the run and was closed with the summary.
func TestRunOutcomes(t *testing.T) {
	uri := rostest.StartMaster(t)
	// testdata/outcomes is shared with cmd/btrobot's TestRunOutcomes.
	ok := "testdata/outcomes/ok.xml"
	fail := "testdata/outcomes/fail.xml"
	forever := "testdata/outcomes/forever.xml"
	broken := "testdata/outcomes/broken.xml"
	stopAt := func(n uint64, done bool) func(*runtime.Tree, runtime.TickReport) (string, bool) {
		return func(_ *runtime.Tree, r runtime.TickReport) (string, bool) {
			if r.Seq >= n {
				return "enough", done
			}
			return "", false
		}
	}
	for _, tc := range []struct {
		name    string
		tree    string
		onTick  func(*runtime.Tree, runtime.TickReport) (string, bool)
		cancel  error // the context's cause, after the first tick
		outcome mission.Outcome
		ok      bool
		ticks   uint64
		summary string
	}{
		{name: "success", tree: ok, outcome: mission.Succeeded, ok: true, ticks: 3, summary: "mission succeeded after 3 ticks ("},
		{name: "failure", tree: fail, outcome: mission.Failed, ticks: 1, summary: "mission failed after 1 tick ("},
		{name: "an error in a tick", tree: broken, outcome: mission.Aborted, ticks: 1, summary: "mission aborted after 1 tick ("},
		{name: "stopped from inside, not done", tree: forever, onTick: stopAt(4, false), outcome: mission.Stopped, ticks: 4,
			summary: "enough after 4 ticks ("},
		{name: "stopped from inside, done", tree: forever, onTick: stopAt(2, true), outcome: mission.Stopped, ok: true, ticks: 2,
			summary: "enough after 2 ticks ("},
		{name: "interrupted", tree: forever, cancel: errors.New("interrupted by SIGINT"), outcome: mission.Stopped,
			summary: "interrupted by SIGINT after "},
	} {
		name := "mission" + strings.NewReplacer(" ", "_", ",", "").Replace(tc.name)
		t.Run(tc.name, func(t *testing.T) {
			m, err := mission.Load(mission.LoadConf{Tree: tc.tree})
			require.NoError(t, err)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			d := &display{}
			rc := mission.RunConf{
				Mission: m, Rate: 50, OnTick: tc.onTick,
				ROS: ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: name},
				Display: func(s mission.Shown) mission.Display {
					assert.Equal(t, float64(50), s.Rate)
					assert.NotNil(t, s.Tree)
					return d
				},
			}
			if tc.cancel != nil {
				rc.OnTick = func(*runtime.Tree, runtime.TickReport) (string, bool) {
					cancel(tc.cancel)
					return "", false
				}
			}
			rep, err := mission.Run(ctx, rc)
			require.NoError(t, err)
			assert.Equal(t, tc.outcome, rep.Outcome, "report: %+v", rep)
			assert.Equal(t, tc.ok, rep.OK())
			if tc.ticks > 0 {
				assert.Equal(t, tc.ticks, rep.Stats.Ticks)
			}
			assert.True(t, strings.HasPrefix(rep.Summary(), tc.summary), "summary %q, want it to start with %q", rep.Summary(), tc.summary)
			assert.Contains(t, rep.Summary(), "no velocity topic to zero")
			assert.NotEqual(t, uuid.Nil, rep.RunID)
			assert.NotNil(t, rep.Tree)
			d.mu.Lock()
			defer d.mu.Unlock()
			assert.Equal(t, 1, d.closed)
			assert.Equal(t, rep.Summary(), d.end)
			assert.EqualValues(t, rep.Stats.Ticks, d.ticks)
			assert.Positive(t, d.transitions)
		})
	}
}

// TestRunCannotStart: a run that cannot start says why with an error of
// the right kind, and shows nothing.
func TestRunCannotStart(t *testing.T) {
	uri := rostest.StartMaster(t)
	ok := writeFile(t, "ok.xml", `<root BTCPP_format="4"><BehaviorTree ID="M"><AlwaysSuccess/></BehaviorTree></root>`)
	load := func(path string) *mission.Mission {
		m, err := mission.Load(mission.LoadConf{Tree: path})
		require.NoError(t, err)
		return m
	}
	for _, tc := range []struct {
		name string
		conf mission.RunConf
		kind any
		want string
	}{
		{"no master", mission.RunConf{Mission: load(ok), ROS: ros.Conf{MasterURI: "http://127.0.0.1:1/", Host: "127.0.0.1"}},
			new(*mission.ConnectError), "127.0.0.1:1"},
		{"lockstep without a profile", mission.RunConf{Mission: load(ok), Lockstep: &bridge.LockstepConf{}, ROS: ros.Conf{MasterURI: uri, Host: "127.0.0.1"}},
			nil, "lockstep needs a profile"},
		{"no mission", mission.RunConf{}, nil, "no mission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shown := false
			tc.conf.Display = func(mission.Shown) mission.Display { shown = true; return &display{} }
			rep, err := mission.Run(context.Background(), tc.conf)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			if tc.kind != nil {
				assert.True(t, errors.As(err, tc.kind), "error %T: %v", err, err)
			}
			assert.False(t, shown)
			assert.Nil(t, rep.Tree)
		})
	}
}
