package studio_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/studio"
)

type runAnswer struct {
	Run    int    `json:"run"`
	Master string `json:"master"`
	Saved  bool   `json:"saved"`
}

type runInfo struct {
	Run     int      `json:"run"`
	Master  string   `json:"master"`
	Running bool     `json:"running"`
	End     string   `json:"end"`
	Log     []string `json:"log"`
}

// startRun asks the studio at addr to run path on the simulator.
func startRun(t *testing.T, addr string, req map[string]any) runAnswer {
	t.Helper()
	code, body := postJSON(t, addr, "/api/run", req)
	require.Equal(t, http.StatusOK, code, string(body))
	var a runAnswer
	require.NoError(t, json.Unmarshal(body, &a))
	return a
}

// masterUp reports whether a ROS master answers at uri.
func masterUp(uri string) bool {
	c, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "probe"})
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// TestRunStartsStopsAndReplaces: Run starts the file's mission on a
// simulator of its own; a second Run stops the first (its master is gone);
// Close stops the last; what cannot run says why.
func TestRunStartsStopsAndReplaces(t *testing.T) {
	dir := copyMissions(t)
	writeIn(t, dir, "nowhere.xml", `<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><NavigateTo goal="moon"/></BehaviorTree></root>`)
	writeIn(t, dir, "bare/places.yaml", "waypoints:\n  - {name: a, pose: [1, 1]}\n")
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	require.NoError(t, err)
	closed := false
	t.Cleanup(func() {
		if !closed {
			srv.Close()
		}
	})
	sim := map[string]any{"profile": "btrobot:robots/sim.yaml", "world": "btrobot:worlds/office"}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}

	for _, tc := range []struct {
		name string
		req  map[string]any
		want string
	}{
		{"no profile", map[string]any{"path": "patrol.xml", "world": "btrobot:worlds/office"}, "Run needs a robot profile and a world"},
		{"a path out of the folder", with(sim, "path", "../patrol.xml"), "want a path inside"},
		{"a mission that does not load", with(sim, "path", "nowhere.xml"), `nowhere.xml:1:70: M/NavigateTo: port "goal": "moon" is neither a place of the world`},
		{"a world the simulator cannot load", with(sim, "path", "patrol.xml", "world", "bare"), "world bare: no map: bare/places.yaml has no map key"},
		{"a speed out of range", with(sim, "path", "patrol.xml", "speed", 1000), "speed 1000"},
		{"a battery above full", with(sim, "path", "patrol.xml", "battery", 1.5), "battery 1.5: want the charge at the start as a fraction above 0, up to 1"},
		{"a battery below empty", with(sim, "path", "patrol.xml", "battery", -0.2), "battery -0.2"},
		{"a negative seed", with(sim, "path", "patrol.xml", "seed", -1), "seed is number -1, not a whole number, 0 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := postJSON(t, srv.Addr(), "/api/run", tc.req)
			assert.Equal(t, http.StatusBadRequest, code)
			assert.Contains(t, string(body), tc.want)
		})
	}
	t.Run("an edited file that does not load: saved, and says so", func(t *testing.T) {
		var file struct {
			Doc map[string]any `json:"doc"`
		}
		getJSON(t, srv.Addr(), "/api/file?path=nowhere.xml", &file)
		file.Doc["main"] = "M"
		tree := file.Doc["trees"].([]any)[0].(map[string]any)
		tree["root"].(map[string]any)["attrs"] = [][2]string{{"goal", "mars"}}
		code, body := postJSON(t, srv.Addr(), "/api/run", with(sim, "path", "nowhere.xml", "doc", file.Doc))
		assert.Equal(t, http.StatusBadRequest, code)
		assert.Contains(t, string(body), `saved, but not run: nowhere.xml:`)
		assert.Contains(t, string(body), `"mars" is neither a place of the world`)
		data, err := os.ReadFile(filepath.Join(dir, "nowhere.xml"))
		require.NoError(t, err)
		assert.Contains(t, string(data), `goal="mars"`)
	})
	code, body := postJSON(t, srv.Addr(), "/api/run/stop", map[string]any{})
	assert.Equal(t, http.StatusBadRequest, code, "nothing to stop")
	assert.Contains(t, string(body), "no run to stop")

	first := startRun(t, srv.Addr(), with(sim, "path", "patrol.xml", "speed", 5))
	assert.False(t, first.Saved, "no document given: the file as saved")
	require.True(t, masterUp(first.Master), "the run's master is up")
	var info runInfo
	require.Eventually(t, func() bool {
		getJSON(t, srv.Addr(), "/api/run", &info)
		return len(info.Log) > 0
	}, 30*time.Second, 100*time.Millisecond, "the simulator's events logged")
	assert.True(t, info.Running)
	assert.Equal(t, first.Run, info.Run)

	assert.Contains(t, strings.Join(info.Log, "\n"), "robot1: battery 100 % at the start, seed 1, ×5", "the defaults")

	second := startRun(t, srv.Addr(), with(sim, "path", "patrol.xml", "battery", 0.3, "seed", 7))
	getJSON(t, srv.Addr(), "/api/run", &info)
	assert.Contains(t, strings.Join(info.Log, "\n"), "robot1: battery 30 % at the start, seed 7, ×1")
	// The simulated robot's battery, as rostopic reads it off the run's master.
	pct := rostest.Run(t, second.Master, 30*time.Second, "rostopic", "echo", "-n", "1", "/robot1/battery_state/percentage")
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.Split(pct, "\n")[0]), 64)
	require.NoError(t, err, "rostopic printed %q", pct)
	assert.InDelta(t, 0.3, v, 0.01, "the battery Run was asked for")
	assert.NotEqual(t, first.Run, second.Run)
	assert.NotEqual(t, first.Master, second.Master)
	assert.False(t, masterUp(first.Master), "the first run's master closed by the second Run")
	assert.True(t, masterUp(second.Master))

	require.NoError(t, srv.Close())
	closed = true
	assert.False(t, masterUp(second.Master), "Close stops the run, its simulator and master")
}
