package ros

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib"

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
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rep.Status, rep
}

func bbString(tree *runtime.Tree, key string) string {
	v, ok := tree.Blackboard().Get(key)
	if !ok {
		return "(unset)"
	}
	return fmt.Sprint(v)
}

// TestRunActionWithRospyServer: RunAction against actionlib's Python
// server, for goals that succeed, abort, are rejected, time out, and are
// preempted when the tree halts the leaf, and against a server that is not
// there.
func TestRunActionWithRospyServer(t *testing.T) {
	rostest.Require(t, "rospy", "actionlib", "move_base_msgs")
	eachMaster(t, func(t *testing.T, uri string) {
		server := rostest.Python(t, uri, "testdata/action_server.py", "move_base")
		server.WaitLine(t, "ready", 30*time.Second)
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
			{mode: "succeed", want: runtime.Success, code: CodeNone, serverSays: "done succeed SUCCEEDED"},
			{mode: "abort", want: runtime.Failure, code: CodeAborted, serverSays: "done abort ABORTED"},
			{mode: "reject", want: runtime.Failure, code: CodeGoalRejected, serverSays: "done reject REJECTED"},
			{mode: "hold", extra: `timeout="300ms"`, want: runtime.Failure, code: CodeTimeout, serverSays: "done hold PREEMPTED"},
		}
		for _, tc := range cases {
			t.Run(tc.mode, func(t *testing.T) {
				tree := buildTree(t, deps, goal(tc.mode, tc.extra))
				tree.Blackboard().Set("x", 1.5)
				st, _ := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
				if st != tc.want || bbString(tree, "code") != tc.code {
					t.Fatalf("status %v, error_code %s; want %v, %s", st, bbString(tree, "code"), tc.want, tc.code)
				}
				server.WaitLine(t, "goal "+tc.mode, 5*time.Second)
				server.WaitLine(t, tc.serverSays, 5*time.Second)
				if tc.mode == "succeed" || tc.mode == "hold" {
					if !strings.Contains(bbString(tree, "fb"), "frame_id:map") && !strings.Contains(bbString(tree, "fb"), "map") {
						t.Errorf("feedback: %s", bbString(tree, "fb"))
					}
				}
			})
		}

		t.Run("preempted on halt", func(t *testing.T) {
			tree := buildTree(t, deps, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Timeout msec="400">
    <RunAction name="hold" server_name="navigate" goal_fields="target_pose.header.frame_id=hold" error_code="{code}"/>
  </Timeout>
</BehaviorTree></root>`)
			var mu sync.Mutex
			var halted time.Time
			tree.Observe(runtime.ObserverFunc(func(tr runtime.Transition) {
				if tr.Node.Name() == "hold" && tr.From == runtime.Running && tr.To == runtime.Idle {
					mu.Lock()
					halted = time.Now()
					mu.Unlock()
				}
			}))
			st, rep := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
			if st != runtime.Failure {
				t.Fatalf("status %v, want FAILURE from the Timeout", st)
			}
			server.WaitLine(t, "goal hold", 5*time.Second)
			line := server.WaitLine(t, "cancel hold", 5*time.Second)
			server.WaitLine(t, "done hold PREEMPTED", 5*time.Second)
			sec, err := strconv.ParseFloat(strings.Fields(line)[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			seen := time.Unix(0, int64(sec*1e9))
			mu.Lock()
			delay := seen.Sub(halted)
			mu.Unlock()
			t.Logf("the server saw the cancel %v after the halt", delay)
			// Sent at the halt, not at some later tick or timeout; how soon
			// it arrives is the machine's business.
			if halted.IsZero() || delay < -time.Millisecond || delay > time.Second {
				t.Errorf("the server saw the cancel %v after the halt, want within 1s", delay)
			}
			// The server takes 0.5 s to end a cancelled goal: a halt that
			// waited for it would hold its tick that long.
			if d := rep.Stats.Durations.Max(); d > 250*time.Millisecond {
				t.Errorf("a tick took %v: halting must not block", d)
			}
			if bbString(tree, "code") != "(unset)" {
				t.Errorf("a halted goal wrote error_code %s", bbString(tree, "code"))
			}
		})

		t.Run("absent server", func(t *testing.T) {
			tree := buildTree(t, deps, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <RunAction server_name="/nobody_home" action_type="move_base_msgs/MoveBaseAction" wait_for_server_timeout="500ms" error_code="{code}"/>
</BehaviorTree></root>`)
			start := time.Now()
			st, rep := runTree(t, RunConf{Conn: c, Tree: tree, Profile: p})
			took := time.Since(start)
			if st != runtime.Failure || bbString(tree, "code") != CodeServerUnreachable {
				t.Fatalf("status %v, code %s; want FAILURE, SERVER_UNREACHABLE", st, bbString(tree, "code"))
			}
			if took < 500*time.Millisecond || took > 5*time.Second {
				t.Errorf("FAILURE after %v, want the 500ms timeout", took)
			}
			// The loop kept ticking while the leaf waited, and no tick waited
			// with it (a blocked tick would last the 500 ms, and the run
			// would have two ticks).
			if n := rep.Stats.Ticks; n < 5 {
				t.Errorf("%d ticks in %v at 50 Hz", n, took)
			}
			if d := rep.Stats.Durations.Max(); d > 250*time.Millisecond {
				t.Errorf("a tick took %v while the server was awaited", d)
			}
			t.Logf("FAILURE after %v, %d ticks, lateness p99 %v", took, rep.Stats.Ticks, rep.Stats.Lateness.Quantile(0.99))
		})
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
	_, err := NewActionServer(ActionServerConf{
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
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, uri, "btrobot")
	deps := Deps{Conn: c}
	cases := []struct {
		name, fields string
		want         runtime.Status
		code, sum    string
	}{
		{"sum", "a=2; b={b}", runtime.Success, CodeNone, "5"},
		{"rejected", "a=-1; b=1", runtime.Failure, CodeGoalRejected, "(unset)"},
		{"aborted", "a=1; b=0", runtime.Failure, CodeAborted, "(unset)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := buildTree(t, deps, `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <RunAction server_name="add" action_type="actionlib/TwoIntsAction" goal_fields="`+tc.fields+`"
             result_fields="sum={sum}" result="{result}" error_code="{code}"/>
</BehaviorTree></root>`)
			tree.Blackboard().Set("b", 3)
			st, _ := runTree(t, RunConf{Conn: c, Tree: tree, Rate: 50})
			if st != tc.want || bbString(tree, "code") != tc.code || bbString(tree, "sum") != tc.sum {
				t.Fatalf("status %v code %s sum %s; want %v %s %s", st, bbString(tree, "code"), bbString(tree, "sum"), tc.want, tc.code, tc.sum)
			}
		})
	}

	t.Run("preempted by a newer goal", func(t *testing.T) {
		client, err := NewActionClient(ActionClientConf{Conn: c, Name: "add", Action: actionlib.TwoIntsAction{}})
		if err != nil {
			t.Fatal(err)
		}
		if err := client.WaitForServer(context.Background(), c.Clock(), 5*time.Second); err != nil {
			t.Fatal(err)
		}
		first := make(chan GoalOutcome, 1)
		go func() {
			o, _ := client.Run(context.Background(), &actionlib.TwoIntsActionGoal{A: 7, B: 1}, GoalConf{})
			first <- o
		}()
		time.Sleep(200 * time.Millisecond)
		o, err := client.Run(context.Background(), actionlib.TwoIntsActionGoal{A: 1, B: 1}, GoalConf{AckTimeout: 2 * time.Second})
		if err != nil || o.State != GoalSucceeded || o.Result.(*actionlib.TwoIntsActionResult).Sum != 2 {
			t.Fatalf("second goal: %+v, %v", o, err)
		}
		select {
		case o := <-first:
			if o.State != GoalPreempted {
				t.Errorf("first goal ended %v, want PREEMPTED", o.State)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the first goal never ended")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(events) != 1 || events[0] != "cancelled" {
			t.Errorf("server events %v", events)
		}
	})
}

// TestCancelRightAfterTheGoal: a goal cancelled at once, while it may still
// be on its way to the server, is cancelled on the server all the same.
// Goal and cancel travel on topics of their own, so the cancel can arrive
// first; the Go ActionServer (goroslib's) forgets a cancel of a goal it has
// not seen and would then run the goal for ever: the robot drives on after
// the tree halted it. Each case cancels after a delay drawn from its range,
// many times; whatever reached the server must end cancelled.
func TestCancelRightAfterTheGoal(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "holder")
	var mu sync.Mutex
	received, cancelled := map[int64]bool{}, map[int64]bool{}
	release := make(chan struct{})
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "hold", Action: actionlib.TwoIntsAction{},
		Execute: func(ctx context.Context, g any, _ func(any)) (any, error) {
			id := g.(*actionlib.TwoIntsActionGoal).A
			mu.Lock()
			received[id] = true
			mu.Unlock()
			select {
			case <-ctx.Done():
				mu.Lock()
				cancelled[id] = true
				mu.Unlock()
				return nil, ctx.Err()
			case <-release: // the test is over
				return nil, nil
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer close(release)
	c := connect(t, uri, "btrobot")
	client, err := NewActionClient(ActionClientConf{Conn: c, Name: "hold", Action: actionlib.TwoIntsAction{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.WaitForServer(context.Background(), c.Clock(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		min, max time.Duration // of the delay before the cancel
		goals    int
	}{
		{"before or while the goal is sent", 0, 100 * time.Microsecond, 20},
		{"while the goal travels", 100 * time.Microsecond, time.Millisecond, 20},
		{"after the server has it", 50 * time.Millisecond, 60 * time.Millisecond, 3},
	}
	var next int64
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ids []int64
			for i := 0; i < tc.goals; i++ {
				next++
				id := next
				ids = append(ids, id)
				ctx, cancel := context.WithCancel(context.Background())
				delay := tc.min + time.Duration(i)*(tc.max-tc.min)/time.Duration(tc.goals)
				go func() {
					time.Sleep(delay)
					cancel()
				}()
				done := make(chan error, 1)
				go func() {
					_, err := client.Run(ctx, &actionlib.TwoIntsActionGoal{A: id}, GoalConf{AckTimeout: 2 * time.Second})
					done <- err
				}()
				select {
				case err := <-done:
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("goal %d: Run returned %v, want the context's cancellation", id, err)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("goal %d: Run did not return after the cancel", id)
				}
			}
			// A goal still on its way arrives within this.
			var missed []int64
			reached := 0
			deadline := time.Now().Add(2 * time.Second)
			for {
				mu.Lock()
				missed, reached = nil, 0
				for _, id := range ids {
					if received[id] {
						reached++
						if !cancelled[id] {
							missed = append(missed, id)
						}
					}
				}
				mu.Unlock()
				if len(missed) == 0 && time.Now().After(deadline.Add(-time.Second)) || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			t.Logf("%d of %d goals reached the server", reached, tc.goals)
			if len(missed) > 0 {
				t.Errorf("goals %v reached the server and were never cancelled there", missed)
			}
			if tc.min >= 50*time.Millisecond && reached != tc.goals {
				t.Errorf("%d of %d goals reached the server before their cancel; want all", reached, tc.goals)
			}
		})
	}
}

// rawGoal sends a TwoInts goal to the server name on the master at uri
// with goroslib's own client (none of ActionClient's care about cancels),
// and returns its handle with its comm states and its terminal state as
// they come.
func rawGoal(t *testing.T, uri, name string) (*goroslib.ActionClientGoalHandler, <-chan goroslib.ActionClientCommState, <-chan goroslib.ActionClientTerminalState) {
	t.Helper()
	c := connect(t, uri, "btrobot")
	client, err := goroslib.NewActionClient(goroslib.ActionClientConf{Node: c.wire.(*rosWire).node, Name: name, Action: &actionlib.TwoIntsAction{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	client.WaitForServer()
	states := make(chan goroslib.ActionClientCommState, 16)
	terminal := make(chan goroslib.ActionClientTerminalState, 1)
	gh, err := client.SendGoal(goroslib.ActionClientGoalConf{
		Goal: &actionlib.TwoIntsActionGoal{A: 1, B: 2},
		OnTransition: func(gh *goroslib.ActionClientGoalHandler, _ *actionlib.TwoIntsActionResult) {
			select {
			case states <- gh.CommState():
			default:
			}
			if ts, err := gh.TerminalState(); err == nil {
				select {
				case terminal <- ts:
				default:
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return gh, states, terminal
}

// TestCancelStoppedByTheCancelHook: a server whose Cancel hook stops the
// goal (the simulator's: it brakes and ends the mission there) has Execute
// return before the goal's ctx ends; the goal still ends PREEMPTED, as the
// client asked, not ABORTED. The hook here lingers after stopping the goal,
// so that Execute has returned well before the ctx ends: before the fix the
// goal ended ABORTED every time.
func TestCancelStoppedByTheCancelHook(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "stopper")
	stop := make(chan struct{})
	var once sync.Once
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "stoppable", Action: actionlib.TwoIntsAction{},
		Cancel: func(any) {
			once.Do(func() { close(stop) })
			time.Sleep(200 * time.Millisecond)
		},
		Execute: func(ctx context.Context, _ any, _ func(any)) (any, error) {
			select {
			case <-stop:
				return nil, errors.New("stopped by the cancel hook")
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	gh, states, terminal := rawGoal(t, uri, "/stoppable")
	for s := range states {
		if s == goroslib.ActionClientCommStateActive {
			break
		}
	}
	gh.Cancel()
	select {
	case ts := <-terminal:
		if ts != goroslib.ActionClientTerminalStatePreempted {
			t.Errorf("the cancelled goal ended %v, want PREEMPTED", ts)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled goal never ended")
	}
}

// TestCancelWhileTheGoalIsAccepted: a cancel that reaches the server while
// its goal is still being accepted (Accept waits, as the simulator's does
// for its lock) stops the goal once accepted. goroslib hands the goal and
// the cancel to the server on goroutines of their own; the cancel used to
// find no goal to stop, and the goal then ran to its end: in a hil run the
// robot drove on to its next place after the mission had stopped.
func TestCancelWhileTheGoalIsAccepted(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "slow_acceptor")
	accepting, release := make(chan struct{}), make(chan struct{})
	ran := make(chan error, 1)
	_, err := NewActionServer(ActionServerConf{
		Conn: sc, Name: "slow", Action: actionlib.TwoIntsAction{},
		Accept: func(any) bool {
			close(accepting)
			<-release
			return true
		},
		Execute: func(ctx context.Context, _ any, _ func(any)) (any, error) {
			select {
			case <-ctx.Done():
				ran <- ctx.Err()
				return nil, ctx.Err()
			case <-time.After(5 * time.Second):
				ran <- errors.New("ran to its end: the cancel was lost")
				return nil, nil
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	gh, _, terminal := rawGoal(t, uri, "/slow")
	<-accepting
	gh.Cancel()
	time.Sleep(300 * time.Millisecond) // the cancel reaches the server meanwhile
	close(release)
	select {
	case err := <-ran:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the goal cancelled while accepted: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Execute never returned")
	}
	select {
	case ts := <-terminal:
		if ts != goroslib.ActionClientTerminalStatePreempted {
			t.Errorf("the goal ended %v, want PREEMPTED", ts)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the goal never ended")
	}
}
