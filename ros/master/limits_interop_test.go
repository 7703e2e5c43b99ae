package master_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestLimitsWithRosparam: Debian's rosparam, refused for a limit, fails
// with the master's message naming the limit, and what it set before stays.
func TestLimitsWithRosparam(t *testing.T) {
	rostest.Require(t, "rosparam")
	m, err := master.New(master.Conf{Host: "127.0.0.1", MaxRequestBytes: 1 << 20, MaxParamBytes: 2 << 20})
	require.NoError(t, err)
	require.NoError(t, m.Start())
	t.Cleanup(func() { m.Close() })
	uri := m.URI()

	// yamlFile writes a parameter file of one string of n bytes.
	yamlFile := func(name string, n int) string {
		path := filepath.Join(t.TempDir(), name)
		require.NoError(t, os.WriteFile(path, []byte("blob: "+strings.Repeat("r", n)+"\n"), 0o644))
		return path
	}
	steps := []struct {
		name string
		args []string
		fail string // what rosparam's output must say, "" when it succeeds
	}{
		{"a 3 MB file is over the request limit", []string{"load", yamlFile("big.yaml", 3_000_000), "/big"},
			"the master takes requests of at most 1 MiB (MaxRequestBytes)"},
		{"900 kB fits", []string{"load", yamlFile("a.yaml", 900_000), "/a"}, ""},
		{"900 kB more fits", []string{"load", yamlFile("b.yaml", 900_000), "/b"}, ""},
		{"900 kB more is over the parameter limit", []string{"load", yamlFile("c.yaml", 900_000), "/c"},
			"over the master's limit of 2 MiB (MaxParamBytes)"},
		{"a small parameter still fits", []string{"set", "/robot/max_speed", "0.5"}, ""},
		{"deleting makes room", []string{"delete", "/a"}, ""},
		{"for the third file", []string{"load", yamlFile("c.yaml", 900_000), "/c"}, ""},
	}
	for _, step := range steps {
		out, err := rosparam(t, uri, step.args...)
		if step.fail == "" {
			assert.NoError(t, err, "%s: %s", step.name, out)
			continue
		}
		assert.Error(t, err, step.name)
		assert.Contains(t, out, step.fail, step.name)
	}
	requireLines(t, rostest.Run(t, uri, toolTimeout, "rosparam", "list"), "/b/blob", "/c/blob", "/robot/max_speed")
	assert.NotContains(t, rostest.Run(t, uri, toolTimeout, "rosparam", "list"), "/big")
}

// rosparam runs Debian's rosparam and returns its output, standard error
// included: that is where it writes the master's refusal.
func rosparam(t *testing.T, uri string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "rosparam", args...)
	cmd.Env = rostest.Env(t, uri)
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "rosparam %s did not finish within %v", strings.Join(args, " "), toolTimeout)
	return string(out), err
}
