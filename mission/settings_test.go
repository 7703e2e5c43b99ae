package mission_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestReadSettings: a node's settings come from its private parameters,
// as roslaunch's <param> or a command line's _name:=value set them; a
// parameter of the wrong type or range is an error that names it.
func TestReadSettings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    mission.Settings
		problem string
	}{
		{name: "none set", args: nil, want: mission.Settings{}},
		{name: "all set", args: []string{"_tree:=t.xml", "_robot:=sim.yaml", "_places:=worlds/office", "_rate:=20"},
			want: mission.Settings{Tree: "t.xml", Robot: "sim.yaml", Places: "worlds/office", Rate: 20}},
		{name: "a rate with a fraction", args: []string{"_rate:=2.5"}, want: mission.Settings{Rate: 2.5}},
		{name: "a negative rate", args: []string{"_tree:=t.xml", "_rate:=-1"}, problem: "private parameter /case/btrobot/rate = -1: want a positive number of Hz"},
		{name: "a rate that is text", args: []string{"_rate:=fast"}, problem: "private parameter /case/btrobot/rate: want a positive number of Hz"},
		{name: "a tree that is a number", args: []string{"_tree:=7"}, problem: "private parameter /case/btrobot/tree: want a file name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A master each: parameters outlive the node that set them.
			conf, rest, err := ros.ConfFromArgs("btrobot", append([]string{"__ns:=/case", "__ip:=127.0.0.1"}, tc.args...), func(string) string { return "" })
			require.NoError(t, err)
			require.Empty(t, rest)
			conf.MasterURI = rostest.StartMaster(t)
			got, err := mission.ReadSettings(conf)
			if tc.problem != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.problem)
				return
			}
			require.NoError(t, err)
			tc.want.Node = "/case/btrobot"
			assert.Equal(t, tc.want, got)
		})
	}
	t.Run("no master", func(t *testing.T) {
		_, err := mission.ReadSettings(ros.Conf{MasterURI: "http://127.0.0.1:1/", Host: "127.0.0.1"})
		var ce *mission.ConnectError
		assert.True(t, errors.As(err, &ce), "%v", err)
	})
}
