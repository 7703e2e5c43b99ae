package master

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShutdownNode: the master calls shutdown on the slave API a node
// registered with, from /master with the reason given; an unknown node or
// a bad name is an error and calls nothing.
func TestShutdownNode(t *testing.T) {
	m := startTestMaster(t)
	node := startSlaveNode(t)
	_, err := masterClient(t, m, "/robot1/btrobot").RegisterPublisher("/robot1/cmd_vel", "geometry_msgs/Twist", node.uri)
	require.NoError(t, err)
	cases := []struct {
		name, node, err string
	}{
		{"a registered node", "/robot1/btrobot", ""},
		{"an unknown node", "/robot2/btrobot", "no node named /robot2/btrobot is registered"},
		{"a bad name", "robot 1", "node"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := m.ShutdownNode(tc.node, "hil: the master shuts the controller down")
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				node.none(t)
				return
			}
			require.NoError(t, err)
			c := node.next(t)
			assert.Equal(t, "shutdown", c.method)
			assert.Equal(t, []any{"/master", "hil: the master shuts the controller down"}, c.params)
		})
	}
}
