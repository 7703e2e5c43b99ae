package ros

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLostErrorsMatchErrLostAndNameTheCause(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"shutdown", &ShutdownError{Caller: "/rosnode", Reason: "user request"}, "shut down by the master: user request (called by /rosnode)"},
		{"clock silent", &ClockStoppedError{Since: 2049 * time.Millisecond}, "/clock stopped 2.0 s ago"},
		{"clock closed", &ClockStoppedError{Since: 30 * time.Millisecond, Closed: true}, "/clock stopped 0.0 s ago: its publisher closed the connection"},
		{"master gone", &MasterLostError{URI: "http://m:11311/", Reason: "it does not answer", Err: errors.New("connection refused")},
			"lost the master at http://m:11311/: it does not answer: connection refused"},
		{"robot gone", &RobotLostError{Topics: []string{"/odom", "/scan"}}, "lost the robot: the publishers of /odom, /scan closed their connections"},
		{"server gone", &ServerLostError{Server: "/move_base", Nodes: []string{"/move_base"}},
			"lost the action server /move_base: its node /move_base closed its connections and no longer answers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := errors.Join(errors.New("run"), tc.err)
			assert.ErrorIs(t, wrapped, ErrLost)
			assert.Equal(t, tc.want, tc.err.Error())
		})
	}
	var se *ShutdownError
	require.ErrorAs(t, errors.Join(&ShutdownError{Caller: "/master"}), &se)
	assert.Equal(t, "/master", se.Caller)
	assert.NotErrorIs(t, context.Canceled, ErrLost)
}
