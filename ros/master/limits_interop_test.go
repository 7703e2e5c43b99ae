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
	// Limits of 256 KiB and 512 KiB, files of 200 kB (they were 1 MiB,
	// 2 MiB and 900 kB): rosparam parses YAML in Python at a third of a
	// core-second a megabyte, and what is tested (which limit refuses,
	// and that rosparam says so) does not depend on the size. The files
	// stay over smallRequest (64 KiB), so that each load still takes a
	// share of the work budget as a large request does.
	m, err := master.New(master.Conf{Host: "127.0.0.1", MaxRequestBytes: 256 << 10, MaxParamBytes: 512 << 10})
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
		{"a 300 kB file is over the request limit", []string{"load", yamlFile("big.yaml", 300_000), "/big"},
			"the master takes requests of at most 256 KiB (MaxRequestBytes)"},
		{"200 kB fits", []string{"load", yamlFile("a.yaml", 200_000), "/a"}, ""},
		{"200 kB more fits", []string{"load", yamlFile("b.yaml", 200_000), "/b"}, ""},
		{"200 kB more is over the parameter limit", []string{"load", yamlFile("c.yaml", 200_000), "/c"},
			"over the master's limit of 512 KiB (MaxParamBytes)"},
		{"a small parameter still fits", []string{"set", "/robot/max_speed", "0.5"}, ""},
		{"deleting makes room", []string{"delete", "/a"}, ""},
		{"for the third file", []string{"load", yamlFile("c.yaml", 200_000), "/c"}, ""},
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
	list := rostest.Run(t, uri, toolTimeout, "rosparam", "list")
	requireLines(t, list, "/b/blob", "/c/blob", "/robot/max_speed")
	assert.NotContains(t, list, "/big")
	assert.False(t, hasLine(list, "/a/blob"), "/a/blob is still listed after its delete:\n%s", list)
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
