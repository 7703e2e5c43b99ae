package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// runTree runs tree until its root completes (20 s at most) and returns the
// final status and the run's report.
func runTree(t testing.TB, conf RunConf) (runtime.Status, RunReport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conf.UntilDone = true
	rep, err := Run(ctx, conf)
	require.NoError(t, err, "run: %v", err)
	return rep.Status, rep
}

func bbString(tree *runtime.Tree, key string) string {
	v, ok := tree.Blackboard().Get(key)
	if !ok {
		return "(unset)"
	}
	return fmt.Sprint(v)
}

// runActionWithRospyServer: RunAction against actionlib's Python server
// (TestRospyServers), for goals that succeed, abort, are rejected, time
// out, and are preempted when the tree halts the leaf, and against a
// server that is not there.
func runActionWithRospyServer(t *testing.T, uri string, server *rostest.Process) {
	c := connect(t, uri, "btrobot")
	p := profile(t, `
rate: 50
actions:
  navigate: {server: move_base, type: move_base_msgs/MoveBaseAction, wait_for_server_timeout: 10s}
`)
	deps := Deps{Conn: c, Profile: p}
	goal := func(mode, extra string) string {
		return `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <RunAction server_name="navigate" goal_fields="target_pose.header.frame_id=` + mode + `; target_pose.pose.position.x={x}"
             feedback="{fb}" error_code="{code}" ` + extra + `/>
</BehaviorTree></root>`
	}
	cases := []struct {
		mode, extra string
		want        runtime.Status
		code        string
		serverSays  string
	}{
		{mode: "succeed", want: runtime.Success, code: ros.CodeNone, serverSays: "done succeed SUCCEEDED"},
		{mode: "abort", want: runtime.Failure, code: ros.CodeAborted, serverSays: "done abort ABORTED"},
		{mode: "reject", want: runtime.Failure, code: ros.CodeGoalRejected, serverSays: "done reject REJECTED"},
		{mode: "hold", extra: `timeout="300ms"`, want: runtime.Failure, code: ros.CodeTimeout, serverSays: "done hold PREEMPTED"},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			tree := buildTree(t, deps, goal(tc.mode, tc.extra))
			tree.Blackboard().Set("x", 1.5)
			st, _ := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
			require.Equal(t, tc.want, st, "status %v, error_code %s; want %v, %s", st, bbString(tree, "code"), tc.want, tc.code)
			require.Equal(t, tc.code, bbString(tree, "code"), "status %v, error_code %s; want %v, %s", st, bbString(tree, "code"), tc.want, tc.code)
			server.WaitLine(t, "goal "+tc.mode, 30*time.Second) // a rospy peer on a loaded machine
			server.WaitLine(t, tc.serverSays, 30*time.Second)   // a rospy peer on a loaded machine
			if tc.mode == "succeed" || tc.mode == "hold" {
				assert.Contains(t, bbString(tree, "fb"), "map", "feedback: %s", bbString(tree, "fb"))
			}
		})
	}

	t.Run("preempted on halt", func(t *testing.T) {
		tree := buildTree(t, deps, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Timeout msec="400">
    <RunAction name="hold" server_name="navigate" goal_fields="target_pose.header.frame_id=hold" error_code="{code}"/>
  </Timeout>
</BehaviorTree></root>`)
		// The halt happens in the tick in which the Timeout (the root)
		// fires, after that tick reached it: the root's last start
		// before the halt is the earliest the cancel can have been
		// sent. (The transition reaches an observer at the tick's end,
		// after the cancel went out: a server on another core saw it
		// 1.8 ms before that, in a full run.)
		var mu sync.Mutex
		var rootTicked, halted time.Time
		root := tree.Nodes()[0]
		tree.Hook(&beforeTick{fn: func(n *runtime.Base) {
			if n == runtime.NodeOf(root) {
				mu.Lock()
				rootTicked = time.Now()
				mu.Unlock()
			}
		}})
		tree.Observe(runtime.ObserverFunc(func(tr runtime.Transition) {
			if tr.Node.Name() == "hold" && tr.From == runtime.Running && tr.To == runtime.Idle {
				mu.Lock()
				halted = rootTicked
				mu.Unlock()
			}
		}))
		st, rep := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
		require.Equal(t, runtime.Failure, st, "status %v, want FAILURE from the Timeout", st)
		server.WaitLine(t, "goal hold", 30*time.Second)           // a rospy peer on a loaded machine
		line := server.WaitLine(t, "cancel hold", 30*time.Second) // a rospy peer on a loaded machine
		server.WaitLine(t, "done hold PREEMPTED", 30*time.Second) // a rospy peer on a loaded machine
		sec, err := strconv.ParseFloat(strings.Fields(line)[2], 64)
		require.NoError(t, err)
		seen := time.Unix(0, int64(sec*1e9))
		mu.Lock()
		delay := seen.Sub(halted)
		mu.Unlock()
		t.Logf("the server saw the cancel %v after the halt", delay)
		// Sent at the halt, not at some later tick or timeout; how soon
		// it arrives is the machine's business.
		assert.False(t, halted.IsZero(), "the server saw the cancel %v after the halt, want within 1s", delay)
		assert.GreaterOrEqual(t, delay, time.Duration(0), "the server saw the cancel %v after the halt, want within 1s", delay)
		assert.LessOrEqual(t, delay, time.Second, "the server saw the cancel %v after the halt, want within 1s", delay)
		// The server takes 0.5 s to end a cancelled goal: a halt that
		// waited for it would hold its tick that long.
		d := rep.Stats.Durations.Max()
		assert.LessOrEqual(t, d, 250*time.Millisecond, "a tick took %v: halting must not block", d)
		assert.Equal(t, "(unset)", bbString(tree, "code"), "a halted goal wrote error_code %s", bbString(tree, "code"))
	})

	t.Run("absent server", func(t *testing.T) {
		tree := buildTree(t, deps, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <RunAction server_name="/nobody_home" action_type="move_base_msgs/MoveBaseAction" wait_for_server_timeout="500ms" error_code="{code}"/>
</BehaviorTree></root>`)
		start := time.Now()
		st, rep := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
		took := time.Since(start)
		require.Equal(t, runtime.Failure, st, "status %v, code %s; want FAILURE, SERVER_UNREACHABLE", st, bbString(tree, "code"))
		require.Equal(t, ros.CodeServerUnreachable, bbString(tree, "code"), "status %v, code %s; want FAILURE, SERVER_UNREACHABLE", st, bbString(tree, "code"))
		assert.GreaterOrEqual(t, took, 500*time.Millisecond, "FAILURE after %v, want the 500ms timeout", took)
		assert.LessOrEqual(t, took, 5*time.Second, "FAILURE after %v, want the 500ms timeout", took)
		// The loop kept ticking while the leaf waited, and no tick waited
		// with it (a blocked tick would last the 500 ms, and the run
		// would have two ticks).
		n := rep.Stats.Ticks
		assert.GreaterOrEqual(t, n, uint64(5), "%d ticks in %v at 50 Hz", n, took)
		d := rep.Stats.Durations.Max()
		assert.LessOrEqual(t, d, 250*time.Millisecond, "a tick took %v while the server was awaited", d)
		t.Logf("FAILURE after %v, %d ticks, lateness p99 %v", took, rep.Stats.Ticks, rep.Stats.Lateness.Quantile(0.99))
	})
}

// TestGoActionServer: the ActionServer helper (what the simulator serves
// move_base with) against ActionLeaf, with results copied by result_fields,
// rejection, preemption by a newer goal and cancellation.
func TestGoActionServer(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "adder")
	var mu sync.Mutex
	var events []string
	note := func(s string) {
		mu.Lock()
		events = append(events, s)
		mu.Unlock()
	}
	_, err := ros.NewActionServer(ros.ActionServerConf{
		Conn: sc, Name: "add", Action: actionlib.TwoIntsAction{}, Preempt: true,
		Accept: func(g any) bool { return g.(*actionlib.TwoIntsActionGoal).A >= 0 },
		Execute: func(ctx context.Context, g any, feedback func(any)) (any, error) {
			goal := g.(*actionlib.TwoIntsActionGoal)
			if goal.B == 0 {
				return nil, errors.New("nothing to add")
			}
			if goal.A == 7 { // hold until cancelled
				<-ctx.Done()
				note("cancelled")
				return nil, ctx.Err()
			}
			return actionlib.TwoIntsActionResult{Sum: goal.A + goal.B}, nil
		},
	})
	require.NoError(t, err)
	c := connect(t, uri, "btrobot")
	deps := Deps{Conn: c}
	cases := []struct {
		name, fields string
		want         runtime.Status
		code, sum    string
	}{
		{"sum", "a=2; b={b}", runtime.Success, ros.CodeNone, "5"},
		{"rejected", "a=-1; b=1", runtime.Failure, ros.CodeGoalRejected, "(unset)"},
		{"aborted", "a=1; b=0", runtime.Failure, ros.CodeAborted, "(unset)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := buildTree(t, deps, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <RunAction server_name="add" action_type="actionlib/TwoIntsAction" goal_fields="`+tc.fields+`"
             result_fields="sum={sum}" result="{result}" error_code="{code}"/>
</BehaviorTree></root>`)
			tree.Blackboard().Set("b", 3)
			st, _ := runTree(t, RunConf{Conn: c, Tree: tree, Rate: 50})
			require.Equal(t, tc.want, st, "status %v code %s sum %s; want %v %s %s", st, bbString(tree, "code"), bbString(tree, "sum"), tc.want, tc.code, tc.sum)
			require.Equal(t, tc.code, bbString(tree, "code"), "status %v code %s sum %s; want %v %s %s", st, bbString(tree, "code"), bbString(tree, "sum"), tc.want, tc.code, tc.sum)
			require.Equal(t, tc.sum, bbString(tree, "sum"), "status %v code %s sum %s; want %v %s %s", st, bbString(tree, "code"), bbString(tree, "sum"), tc.want, tc.code, tc.sum)
		})
	}

	t.Run("preempted by a newer goal", func(t *testing.T) {
		client, err := ros.NewActionClient(ros.ActionClientConf{Conn: c, Name: "add", Action: actionlib.TwoIntsAction{}})
		require.NoError(t, err)
		require.NoError(t, client.WaitForServer(context.Background(), c.Clock(), 5*time.Second))
		first := make(chan ros.GoalOutcome, 1)
		accepted := make(chan struct{})
		go func() {
			o, _ := client.Run(context.Background(), &actionlib.TwoIntsActionGoal{A: 7, B: 1}, ros.GoalConf{OnAccepted: func() { close(accepted) }})
			first <- o
		}()
		select { // the first goal is the server's before the second comes
		case <-accepted:
		case <-time.After(30 * time.Second):
			require.FailNow(t, "the first goal was never accepted")
		}
		o, err := client.Run(context.Background(), actionlib.TwoIntsActionGoal{A: 1, B: 1}, ros.GoalConf{AckTimeout: 2 * time.Second})
		require.NoError(t, err, "second goal: %+v, %v", o, err)
		require.Equal(t, ros.GoalSucceeded, o.State, "second goal: %+v, %v", o, err)
		require.Equal(t, int64(2), o.Result.(*actionlib.TwoIntsActionResult).Sum, "second goal: %+v, %v", o, err)
		select {
		case o := <-first:
			assert.Equal(t, ros.GoalPreempted, o.State, "first goal ended %v, want PREEMPTED", o.State)
		case <-time.After(5 * time.Second):
			require.FailNow(t, "the first goal never ended")
		}
		mu.Lock()
		defer mu.Unlock()
		if assert.Len(t, events, 1, "server events %v", events) {
			assert.Equal(t, "cancelled", events[0], "server events %v", events)
		}
	})
}

// beforeTick is a tick hook that calls fn before each node's tick and
// changes nothing.
type beforeTick struct{ fn func(n *runtime.Base) }

func (h *beforeTick) BeforeTick(n *runtime.Base) runtime.Status {
	h.fn(n)
	return runtime.Idle
}

func (h *beforeTick) AfterTick(*runtime.Base, runtime.Status) runtime.Status { return runtime.Idle }
