package executor

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
)

// TestReadSettings: the node's private parameters, as roslaunch sets them
// (typed), become the server's settings; a wrong one is an error naming
// it, every one at once.
func TestReadSettings(t *testing.T) {
	uri := rostest.StartMaster(t)
	for _, tc := range []struct {
		name    string
		params  map[string]any
		want    Settings
		wantErr []string
	}{
		{name: "none", want: Settings{}},
		{name: "every one", params: map[string]any{
			"missions": "/m", "robot": "r.yaml", "places": "w", "preempt": "Queue", "record_dir": "/rec", "rate": 20.0, "watch": true,
		}, want: Settings{Missions: "/m", Robot: "r.yaml", Places: "w", Preempt: "Queue", RecordDir: "/rec", Rate: 20, Watch: true}},
		{name: "a rate given as an integer", params: map[string]any{"rate": 5}, want: Settings{Rate: 5}},
		{name: "wrong ones all named", params: map[string]any{"missions": 3, "preempt": "later", "rate": -3.0, "watch": "yes"},
			wantErr: []string{
				"private parameter /serve_wrong_ones_all_named/missions: want a directory",
				`/preempt: want replace, update, queue or reject: unknown preempt "later"`,
				"/rate: want a positive number of Hz",
				"/watch: want true or false",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A node of its own each: its parameters are the case's only.
			conn, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "serve_" + strings.ReplaceAll(tc.name, " ", "_"), MasterCheck: -1})
			require.NoError(t, err)
			defer conn.Close()
			for k, v := range tc.params {
				require.NoError(t, conn.SetParam("~"+k, v))
			}
			got, err := ReadSettings(conn)
			if tc.wantErr != nil {
				require.Error(t, err)
				for _, w := range tc.wantErr {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestSettingsFill: a flag given on the command line wins over its
// parameter; a flag left out takes the parameter.
func TestSettingsFill(t *testing.T) {
	params := Settings{Missions: "/p", Robot: "p.yaml", Places: "pw", Preempt: "queue", RecordDir: "/prec", Rate: 5, Watch: true}
	flags := Settings{Missions: "/f", Robot: "f.yaml", Preempt: "reject", Rate: 20}
	for _, tc := range []struct {
		name  string
		given []string
		want  Settings
	}{
		{name: "no flag: every parameter", want: params},
		{name: "flags win", given: []string{"missions", "preempt", "rate"},
			want: Settings{Missions: "/f", Robot: "p.yaml", Places: "pw", Preempt: "reject", RecordDir: "/prec", Rate: 20, Watch: true}},
		{name: "--watch=false given wins over ~watch true", given: []string{"watch"},
			want: Settings{Missions: "/p", Robot: "p.yaml", Places: "pw", Preempt: "queue", RecordDir: "/prec", Rate: 5, Watch: false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			given := func(f string) bool {
				for _, g := range tc.given {
					if g == f {
						return true
					}
				}
				return false
			}
			assert.Equal(t, tc.want, flags.Fill(params, given))
		})
	}
}
