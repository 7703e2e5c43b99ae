package studio_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
)

// TestEditorOffersProfilesAndWorlds: the shipped profiles and worlds (the
// binary's), then the folder's own profiles (the YAML files that parse as
// profiles, nothing else) and world folders (those with a places.yaml).
func TestEditorOffersProfilesAndWorlds(t *testing.T) {
	dir := copyMissions(t)
	simYAML, err := os.ReadFile(simProfile)
	require.NoError(t, err)
	writeIn(t, dir, "robots/mine.yaml", string(simYAML))
	writeIn(t, dir, "notes.yaml", "todo: [a, b]\n")
	writeIn(t, dir, "lab/places.yaml", "waypoints:\n  - {name: bench, pose: [1, 1]}\n")
	writeIn(t, dir, ".hidden/places.yaml", "waypoints: []\n")
	srv := newServer(t, studio.Conf{Dir: dir})
	var got struct {
		Profiles []struct {
			ID      string `json:"id"`
			Shipped bool   `json:"shipped"`
		} `json:"profiles"`
		Worlds []struct {
			ID string `json:"id"`
		} `json:"worlds"`
		Robot string `json:"robot"`
	}
	getJSON(t, srv.Addr(), "/api/targets", &got)
	var profiles, worlds []string
	for _, p := range got.Profiles {
		profiles = append(profiles, p.ID)
		assert.Equal(t, strings.HasPrefix(p.ID, "btrobot:"), p.Shipped, p.ID)
	}
	for _, w := range got.Worlds {
		worlds = append(worlds, w.ID)
	}
	assert.Equal(t, []string{"btrobot:robots/sim.yaml", "btrobot:robots/turtlebot3.yaml", "robots/mine.yaml"}, profiles)
	assert.Equal(t, []string{"btrobot:worlds/office", "btrobot:worlds/warehouse", "lab"}, worlds)
	assert.Equal(t, "robot1", got.Robot)
}

// TestEditorChecksAgainstTheProfile: with a profile (and a world) chosen,
// the check is the mission's check against them, as mission.Load makes it
// for a run, each problem on its node; the palette is the registry wired
// to that profile.
func TestEditorChecksAgainstTheProfile(t *testing.T) {
	dir := t.TempDir()
	const tree = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <RunAction server_name="navigate"/>
      <CallService service_name="clear_costmaps"/>
      <NavigateTo goal="kitchen"/>
      <NavigateTo goal="moon"/>
    </Sequence>
  </BehaviorTree>
</root>
`
	file := writeIn(t, dir, "m.xml", tree)
	// As the editor writes it, so that lines are the check's.
	writeIn(t, dir, "m.xml", canonical(t, file))
	simYAML, err := os.ReadFile(simProfile)
	require.NoError(t, err)
	writeIn(t, dir, "mine.yaml", string(simYAML))
	writeIn(t, dir, "broken.yaml", "robot: x\nrate: 20\ninputs:\n  - topic: odom\n    type: nav_msgs/Odometri\n")
	srv := newServer(t, studio.Conf{Dir: dir})

	// What mission.Load says of the tree with a profile and places, one
	// problem a line, named as in the folder.
	loadProblems := func(profile, places string) []string {
		_, err := mission.Load(mission.LoadConf{Tree: file, Profile: profile, Places: places})
		var le *mission.LoadError
		if !errors.As(err, &le) {
			return nil
		}
		var out []string
		for _, p := range le.Problems {
			out = append(out, strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), ""))
		}
		return out
	}
	type problem struct {
		Msg  string `json:"msg"`
		Node int    `json:"node"`
	}
	check := func(profile, world string) []problem {
		var doc struct {
			Doc json.RawMessage `json:"doc"`
		}
		getJSON(t, srv.Addr(), "/api/file?path=m.xml", &doc)
		code, body := postJSON(t, srv.Addr(), "/api/check", map[string]any{"path": "m.xml", "doc": doc.Doc, "profile": profile, "world": world})
		require.Equal(t, http.StatusOK, code, string(body))
		var r struct{ Problems []problem }
		require.NoError(t, json.Unmarshal(body, &r))
		// The file's first check names the same problems.
		var opened struct{ Problems []problem }
		getJSON(t, srv.Addr(), "/api/file?path=m.xml&profile="+url.QueryEscape(profile)+"&world="+url.QueryEscape(world), &opened)
		assert.Equal(t, r.Problems, opened.Problems, "opening the file checks it alike")
		return r.Problems
	}
	// Nodes in depth-first order: 0 Sequence, 1 RunAction, 2 CallService,
	// 3 NavigateTo kitchen, 4 NavigateTo moon.
	for _, tc := range []struct {
		name, profile, world string
		loadProfile, places  string // what mission.Load is given
		nodes                []int  // the nodes with a problem, in order
	}{
		{name: "no profile: the palette wired to no robot", nodes: []int{1, 2}},
		{name: "the shipped sim profile has navigate, not clear_costmaps", profile: "btrobot:robots/sim.yaml", loadProfile: simProfile, nodes: []int{2}},
		{name: "the shipped turtlebot3 profile has both", profile: "btrobot:robots/turtlebot3.yaml", loadProfile: "../robots/turtlebot3.yaml"},
		{name: "the folder's profile", profile: "mine.yaml", loadProfile: simProfile, nodes: []int{2}},
		{name: "a world: its places are checked", profile: "btrobot:robots/turtlebot3.yaml", world: "btrobot:worlds/office",
			loadProfile: "../robots/turtlebot3.yaml", places: officeWorld, nodes: []int{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs := check(tc.profile, tc.world)
			var nodes []int
			var msgs []string
			for _, p := range probs {
				nodes = append(nodes, p.Node)
				msgs = append(msgs, p.Msg)
			}
			assert.Equal(t, tc.nodes, nodes, "problems: %q", msgs)
			want := loadProblems(tc.loadProfile, tc.places)
			assert.Equal(t, want, msgs, "the problems are mission.Load's")
		})
	}
	t.Run("a profile that does not parse: its problems, and the tree checked against no profile", func(t *testing.T) {
		probs := check("broken.yaml", "")
		require.Len(t, probs, 4, "%v", probs)
		assert.Equal(t, []int{-1, -1, 1, 2}, []int{probs[0].Node, probs[1].Node, probs[2].Node, probs[3].Node})
		assert.True(t, strings.HasPrefix(probs[0].Msg, "broken.yaml:4:5: "), probs[0].Msg)
		assert.True(t, strings.HasPrefix(probs[1].Msg, "broken.yaml:5:11: "), probs[1].Msg)
	})
	t.Run("a profile outside the folder is refused, saying so", func(t *testing.T) {
		outside := writeIn(t, t.TempDir(), "outside.yaml", string(simYAML))
		require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.yaml")))
		for _, id := range []string{"../mine.yaml", "/etc/passwd", "btrobot:robots/nowhere.yaml", "link.yaml"} {
			probs := check(id, "")
			require.NotEmpty(t, probs, id)
			assert.Equal(t, -1, probs[0].Node, id)
			assert.Regexp(t, `want a path inside|btrobot ships|escapes|outside the folder`, probs[0].Msg, id)
		}
	})
	t.Run("the palette of a profile", func(t *testing.T) {
		var types []struct {
			ID string `json:"id"`
		}
		getJSON(t, srv.Addr(), "/api/palette?profile="+url.QueryEscape("btrobot:robots/sim.yaml"), &types)
		var ids []string
		for _, ty := range types {
			ids = append(ids, ty.ID)
		}
		assert.Contains(t, ids, "NavigateTo")
		assert.Contains(t, ids, "Sequence")
	})
}
