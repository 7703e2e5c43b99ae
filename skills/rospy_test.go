package skills

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// TestNavigateToAgainstRospyMoveBase: NavigateTo drives a move_base
// written with Debian's rospy actionlib, on our master and on rosmaster.
func TestNavigateToAgainstRospyMoveBase(t *testing.T) {
	rostest.Require(t, "python3", "rospy", "actionlib", "move_base_msgs")
	for _, m := range rostest.Masters() {
		t.Run(m.Name, func(t *testing.T) {
			uri := m.Start(t)
			server := rostest.Python(t, uri, "testdata/move_base.py")
			server.WaitLine(t, "ready", 30*time.Second)
			conn := connectAs(t, uri, "/", "btrobot")
			cases := []struct {
				name  string
				xml   string
				halt  bool
				want  runtime.Status
				code  string
				lines []string // what the server prints, in order
			}{
				{name: "success with feedback", xml: `<NavigateTo goal="1;3;0" distance_remaining="{left}" error_code="{code}"/>`,
					want: runtime.Success, code: ros.CodeNone, lines: []string{"goal 1 map", "done SUCCEEDED"}},
				{name: "abort", xml: `<NavigateTo goal="2;0;0" error_code="{code}"/>`,
					want: runtime.Failure, code: ros.CodeAborted, lines: []string{"goal 2 map", "done ABORTED"}},
				{name: "reject", xml: `<NavigateTo goal="4;0;0" error_code="{code}"/>`,
					want: runtime.Failure, code: ros.CodeGoalRejected, lines: []string{"goal 4 map", "done REJECTED"}},
				{name: "timeout cancels the goal", xml: `<NavigateTo goal="3;0;0" frame="odom" timeout="500ms" error_code="{code}"/>`,
					want: runtime.Failure, code: ros.CodeTimeout, lines: []string{"goal 3 odom", "cancel", "done PREEMPTED"}},
				{name: "halt cancels the goal", xml: `<NavigateTo goal="3;0;0" distance_remaining="{left}"/>`, halt: true,
					want: runtime.Idle, lines: []string{"goal 3 map", "cancel", "done PREEMPTED"}},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					tree := buildTree(t, registry(t, Deps{Conn: conn}), tc.xml, runtime.BuildConf{Clock: conn.Clock()})
					var st runtime.Status
					deadline := time.Now().Add(20 * time.Second)
					for {
						var err error
						st, err = tree.TickOnce()
						require.NoError(t, err)
						if st != runtime.Running || time.Now().After(deadline) {
							break
						}
						if tc.halt {
							if _, ok := tree.Blackboard().Get("left"); ok {
								// The goal runs and feedback came: halt it.
								halted := time.Now()
								tree.Halt()
								// The server takes 0.5 s to end a cancelled
								// goal; the halt must not wait for it.
								d := time.Since(halted)
								assert.LessOrEqual(t, d, 250*time.Millisecond, "the halt took %v: it must not wait for the server", d)
								st = runtime.Idle
								break
							}
						}
						select {
						case <-tree.WakeC():
						case <-time.After(10 * time.Millisecond):
						}
					}
					require.Equal(t, tc.want, st, "%v, want %v", st, tc.want)
					for _, l := range tc.lines {
						server.WaitLine(t, l, 10*time.Second)
					}
					if tc.code != "" {
						code, _ := tree.Blackboard().Get("code")
						assert.Equal(t, tc.code, code, "error_code %v, want %s", code, tc.code)
					}
					if tc.name == "success with feedback" {
						left, _ := tree.Blackboard().Get("left")
						assert.Equal(t, 0.0, left, "distance_remaining %v at the end", left)
					}
				})
			}
		})
	}
}
