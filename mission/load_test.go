package mission_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
)

// The repository's files, from this package's directory.
const (
	simProfile  = "../robots/sim.yaml"
	officeWorld = "../worlds/office"
	missionsDir = "../trees/missions"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// TestLoadFindsEveryProblemAtOnce: the tree, the profile and the places
// are checked together, and every problem comes back in one error, each
// with its file:line:col.
func TestLoadFindsEveryProblemAtOnce(t *testing.T) {
	// testdata/problems is shared with cmd/btrobot's TestRunRejectsBadInputWithPositions.
	badTree := "testdata/problems/bad.xml"
	badProfile := "testdata/problems/bad.yaml"
	navTree := "testdata/problems/nav.xml"
	places := "testdata/problems/places.yaml"
	for _, tc := range []struct {
		name string
		conf mission.LoadConf
		want []string // each must be one problem's prefix or part, in order
	}{
		{"no tree", mission.LoadConf{}, []string{"no tree"}},
		{"a missing tree", mission.LoadConf{Tree: "nowhere.xml"}, []string{"nowhere.xml"}},
		{"a bad tree", mission.LoadConf{Tree: badTree}, []string{badTree + ":5:7:"}},
		{"a bad tree and a bad profile", mission.LoadConf{Tree: badTree, Profile: badProfile},
			[]string{badProfile + ":2:7:", badProfile + ":4:5:", badProfile + ":5:11:", badTree + ":5:7:"}},
		{"a place the world lacks", mission.LoadConf{Tree: navTree, Places: places}, []string{navTree + ":3:"}},
		{"a missing places file", mission.LoadConf{Tree: navTree, Places: "nowhere.yaml"}, []string{"nowhere.yaml"}},
		{"a main tree the file lacks", mission.LoadConf{Tree: navTree, Main: "Other"}, []string{`no tree "Other" to run: the file has M`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := mission.Load(tc.conf)
			assert.Nil(t, m)
			var le *mission.LoadError
			require.True(t, errors.As(err, &le), "want a *LoadError, got %v", err)
			require.Len(t, le.Problems, len(tc.want), "problems: %v", err)
			for i, w := range tc.want {
				assert.Contains(t, le.Problems[i].Error(), w)
			}
		})
	}
	t.Run("a good mission", func(t *testing.T) {
		m, err := mission.Load(mission.LoadConf{Tree: filepath.Join(missionsDir, "patrol.xml"), Profile: simProfile, Places: officeWorld})
		require.NoError(t, err)
		assert.NotNil(t, m.Doc)
		assert.Equal(t, "sim", m.Profile.Robot)
		_, ok := m.Places.Waypoint("kitchen")
		assert.True(t, ok)
	})
}

func TestEntry(t *testing.T) {
	for _, tc := range []struct {
		in      string
		key     string
		value   any
		problem string
	}{
		{in: "n=3", key: "n", value: 3},
		{in: "speed=0.5", key: "speed", value: 0.5},
		{in: "armed=true", key: "armed", value: true},
		{in: "label=kitchen", key: "label", value: "kitchen"},
		{in: "code:string=007", key: "code", value: "007"},
		{in: "x=inf", key: "x", value: "inf"},
		{in: "_k2=1", key: "_k2", value: 1},
		{in: "9x=1", problem: `blackboard key "9x": a key is a letter or '_' followed by letters, digits or '_'`},
		{in: "a-b=1", problem: `blackboard key "a-b"`},
		{in: "9x:string=1", problem: `blackboard key "9x"`},
		{in: "k:int=1", problem: `unknown type "int"`},
		{in: "nothing", problem: "write key=value"},
		{in: "=1", problem: "write key=value"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			k, v, err := mission.Entry(tc.in)
			if tc.problem != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.problem)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.key, k)
			assert.Equal(t, tc.value, v)
		})
	}
}

func TestCheckRate(t *testing.T) {
	for _, tc := range []struct {
		hz float64
		ok bool
	}{{10, true}, {0.5, true}, {1000, true}, {0, false}, {-1, false}, {1001, false}} {
		assert.Equal(t, tc.ok, mission.CheckRate(tc.hz) == nil, "%v Hz", tc.hz)
	}
}
