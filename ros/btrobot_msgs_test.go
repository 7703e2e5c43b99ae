package ros

import (
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestBtrobotMsgsMatchCatkin builds the repository's msgs/btrobot_msgs with
// Debian's catkin_make in a temporary workspace and compares the md5sum
// genpy generated for every message, service and action wrapper with the
// one goroslib computes from btrobot's Go definitions: a client built
// against the package talks to btrobot.
func TestBtrobotMsgsMatchCatkin(t *testing.T) {
	py := rostest.BtrobotMsgs(t)
	sums := goChecksums(t, btrobotTypes)
	for _, tc := range []struct {
		name string // as catkin names it
	}{
		{"btrobot_msgs/Transition"},
		{"btrobot_msgs/Transitions"},
		{"btrobot_msgs/MissionPort"},
		{"btrobot_msgs/Mission"},
		{"btrobot_msgs/ListMissions"},
		{"btrobot_msgs/ReloadMissions"},
		{"btrobot_msgs/ExecuteMissionGoal"},
		{"btrobot_msgs/ExecuteMissionResult"},
		{"btrobot_msgs/ExecuteMissionFeedback"},
		{"btrobot_msgs/ExecuteMissionActionGoal"},
		{"btrobot_msgs/ExecuteMissionActionResult"},
		{"btrobot_msgs/ExecuteMissionActionFeedback"},
	} {
		require.Contains(t, sums, tc.name, "a Go definition of every type of the package")
	}
	var names []string
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	cmd := exec.Command(rostest.PythonPath, "testdata/md5sums.py")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+py)
	cmd.Stdin = strings.NewReader(strings.Join(names, "\n"))
	out, err := cmd.Output()
	require.NoError(t, err, "md5sums.py")
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, md5, _ := strings.Cut(line, " ")
		got[name] = md5
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			require.NotEqual(t, "missing", got[n], "catkin generated no %s", n)
			assert.Equal(t, got[n], sums[n], "genpy's md5sum (left) against goroslib's of the Go definition")
		})
	}
}
