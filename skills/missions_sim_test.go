package skills

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
)

// Each mission runs on the simulator (the office world) in lockstep, as
// fast as the machine allows, and must reach its expected outcome, also
// with the faults its design is meant to survive. Every test logs the
// simulated and the wall time it took.

func mission(name string) string { return filepath.Join(missionsDir, name) }

// blackboard reads an entry of a rig's root blackboard.
func intEntry(r *rig, key string) int {
	switch v := r.get(key).(type) {
	case int:
		return v
	case float64:
		return int(v)
	case int64:
		return int(v)
	}
	return -1
}

// measured logs how long a mission took, in simulated and wall time.
func measured(t *testing.T, what string, r *rig, simStart time.Time, wallStart time.Time) {
	t.Helper()
	simT := r.now().Sub(simStart)
	wall := time.Since(wallStart)
	t.Logf("%s: %.0f s simulated in %.2f s wall (%.0f× real time)", what, simT.Seconds(), wall.Seconds(), simT.Seconds()/wall.Seconds())
}

// counters reads the mission's counters for a log line.
func counters(r *rig, keys ...string) string {
	s := ""
	for _, k := range keys {
		s += fmt.Sprintf(" %s=%v", k, r.get(k))
	}
	return s
}

// TestPatrolMission: a full round of the office's six waypoints; with the
// corridor blocked, the two places beyond the block are given up after the
// recovery ladder's two rungs each, and the patrol goes on.
func TestPatrolMission(t *testing.T) {
	cases := []struct {
		name                   string
		setup                  worldSetup
		wantSkipped, wantRecov int
	}{
		{name: "open office", wantSkipped: 0, wantRecov: 0},
		{name: "corridor blocked east of the kitchen", wantSkipped: 2, wantRecov: 4,
			setup: worldSetup{before: func(w *sim.World) {
				if err := w.PlaceObstacle("blocked_corridor", sim.Rect{MinX: 4.8, MinY: -1.1, MaxX: 5.2, MaxY: 1.1}); err != nil {
					panic(err)
				}
			}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := startWorld(t, tc.setup)
			r := newRig(t, w, "robot1", mission("patrol.xml"), Deps{})
			simStart, wallStart := r.now(), time.Now()
			done := r.until(15*time.Minute, func() bool { return intEntry(r, "rounds") >= 1 || r.status != runtime.Running })
			measured(t, "one round", r, simStart, wallStart)
			t.Logf("%v;%s", r, counters(r, "rounds", "visits", "recoveries", "skipped"))
			for _, l := range r.logs {
				t.Logf("%7.1fs %s %s: %s", l.Time.Sub(simStart).Seconds(), l.Level, l.Node, l.Text)
			}
			require.True(t, done, "no round done: status %v; events %q", r.status, w.eventList())
			require.Equal(t, runtime.Running, r.status, "no round done: status %v; events %q", r.status, w.eventList())
			v := intEntry(r, "visits")
			assert.Equal(t, 6, v, "visits %d, want the office's 6", v)
			s := intEntry(r, "skipped")
			assert.Equal(t, tc.wantSkipped, s, "skipped %d, want %d", s, tc.wantSkipped)
			n := intEntry(r, "recoveries")
			assert.Equal(t, tc.wantRecov, n, "recoveries %d, want %d", n, tc.wantRecov)
			// The patrol goes on with the next round.
			assert.True(t, r.until(time.Minute, func() bool { return r.get("target") == "reception" && intEntry(r, "visits") == 6 }), "the second round does not start at reception: target %v", r.get("target"))
		})
	}
}

// TestDockAndChargeMission: a battery that drops to 20% mid-lap sends the
// robot to the dock; it charges to 90%, undocks and resumes the lap at the
// waypoint it was heading for, then finishes the lap.
func TestDockAndChargeMission(t *testing.T) {
	w := startWorld(t, worldSetup{})
	r := newRig(t, w, "robot1", mission("dock_and_charge.xml"), Deps{})
	simStart, wallStart := r.now(), time.Now()
	w.node.At(w.node.Now()+40*time.Second, func(sw *sim.World) {
		rb, _ := sw.Robot("robot1")
		rb.SetBatteryLevel(0.2)
	})
	require.True(t, r.until(2*time.Minute, func() bool { return r.get("need_charge") == true }), "the low battery did not interrupt the lap: %v", r)
	interrupted := r.get("heading_for")
	t.Logf("interrupted at %v while heading for %v", r.now().Sub(simStart), interrupted)
	require.True(t, r.until(10*time.Minute, func() bool { return intEntry(r, "charges") == 1 }), "no charge: %v;%s; events %q", r, counters(r, "charges", "laps", "need_charge"), w.eventList())
	_, _, bat, state := w.robot("robot1")
	t.Logf("charged at %v: battery %.1f%%, %v", r.now().Sub(simStart), bat.Percentage*100, state)
	assert.GreaterOrEqual(t, bat.Percentage, 0.89, "after the charge: battery %.3f, %v", bat.Percentage, state)
	assert.Equal(t, sim.Undocked, state, "after the charge: battery %.3f, %v", bat.Percentage, state)
	// Back to work: the first waypoint it heads for is the interrupted one.
	r.until(5*time.Second, func() bool { return r.get("heading_for") != nil })
	got := r.get("heading_for")
	assert.Equal(t, interrupted, got, "resumed heading for %v, want %v (where the lap was interrupted)", got, interrupted)
	require.True(t, r.until(10*time.Minute, func() bool { return intEntry(r, "laps") >= 1 }), "the lap was not finished: %v;%s", r, counters(r, "charges", "laps", "heading_for"))
	measured(t, "interrupted lap with a charge", r, simStart, wallStart)
	assert.True(t, w.hasEvent("robot1: dock goal succeeded"), "events %q", w.eventList())
	assert.True(t, w.hasEvent("robot1: undock goal succeeded"), "events %q", w.eventList())
}

// TestPatrolWithChargingMission: the demo's mission, started on a battery
// that lasts less than a round: it patrols, charges once, and completes
// two rounds without giving up a place.
func TestPatrolWithChargingMission(t *testing.T) {
	w := startWorld(t, worldSetup{before: func(sw *sim.World) {
		rb, _ := sw.Robot("robot1")
		rb.SetBatteryLevel(0.3)
	}})
	r := newRig(t, w, "robot1", mission("patrol_with_charging.xml"), Deps{})
	simStart, wallStart := r.now(), time.Now()
	done := r.until(30*time.Minute, func() bool { return intEntry(r, "rounds") >= 2 })
	measured(t, "two rounds with charging", r, simStart, wallStart)
	t.Logf("%v;%s", r, counters(r, "rounds", "visits", "recoveries", "skipped", "charges"))
	require.True(t, done, "not two rounds: %v; events %q", r.status, w.eventList())
	c := intEntry(r, "charges")
	assert.GreaterOrEqual(t, c, 1, "charges %d: the battery should not last two rounds", c)
	s := intEntry(r, "skipped")
	assert.Equal(t, 0, s, "skipped %d places", s)
}

// TestDeliveryMission: delivered on confirmation; a confirmation that does
// not come, and an abort on the way, send the robot to the dock and fail
// the mission.
func TestDeliveryMission(t *testing.T) {
	cases := []struct {
		name    string
		confirm bool   // confirm the load while waiting
		abortOn string // publish abort once the status is this
		want    runtime.Status
		check   func(t *testing.T, w *world, r *rig, statuses []string)
	}{
		{name: "confirmed", confirm: true, want: runtime.Success,
			check: func(t *testing.T, w *world, r *rig, statuses []string) {
				pose, _, _, _ := w.robot("robot1")
				assert.True(t, near(pose, Pose{X: 6.5, Y: -3.5}, 0.2), "robot at %v, not in the lab", pose)
				want := []string{"to_pickup", "waiting", "to_dropoff", "delivered"}
				assert.Equal(t, want, statuses, "statuses %q, want %q", statuses, want)
			}},
		{name: "never confirmed: timeout", want: runtime.Failure,
			check: func(t *testing.T, w *world, r *rig, statuses []string) {
				want := []string{"to_pickup", "waiting", "aborted"}
				assert.Equal(t, want, statuses, "statuses %q, want %q", statuses, want)
				_, _, _, state := w.robot("robot1")
				assert.Equal(t, sim.Docked, state, "robot %v, want docked", state)
			}},
		{name: "aborted on the way to the drop-off", confirm: true, abortOn: "to_dropoff", want: runtime.Failure,
			check: func(t *testing.T, w *world, r *rig, statuses []string) {
				want := []string{"to_pickup", "waiting", "to_dropoff", "aborted"}
				assert.Equal(t, want, statuses, "statuses %q, want %q", statuses, want)
				// The halt's cancel and the dock goal travel on different
				// topics: either ends the drive.
				assert.True(t, w.hasEvent("robot1: move_base goal cancelled", "robot1: move_base goal aborted: preempted by a dock goal"), "the drive to the drop-off did not end: %q", w.eventList())
				_, _, _, state := w.robot("robot1")
				assert.Equal(t, sim.Docked, state, "robot %v, want docked", state)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := startWorld(t, worldSetup{})
			r := newRig(t, w, "robot1", mission("delivery.xml"), Deps{})
			// The people at the pickup place: a node that watches the status
			// and confirms, or aborts.
			person := w.connect(t, "/robot1", "person")
			var mu sync.Mutex
			var statuses []string
			_, err := ros.Subscribe(person, "delivery/status", func(m *std_msgs.String) {
				mu.Lock()
				statuses = append(statuses, m.Data)
				mu.Unlock()
			})
			require.NoError(t, err)
			lastStatus := func() string {
				mu.Lock()
				defer mu.Unlock()
				if len(statuses) == 0 {
					return ""
				}
				return statuses[len(statuses)-1]
			}
			confirm, err := ros.NewPublisher(ros.PublisherConf{Conn: person, Topic: "delivery/confirm", Msg: &std_msgs.String{}})
			require.NoError(t, err)
			abort, err := ros.NewPublisher(ros.PublisherConf{Conn: person, Topic: "delivery/abort", Msg: &std_msgs.String{}})
			require.NoError(t, err)
			ctx := ctxTimeout(t, 10*time.Second)
			for _, topic := range []string{"delivery/confirm", "delivery/abort"} {
				err := person.WaitSubscribers(ctx, topic, 1)
				require.NoError(t, err)
			}
			// The person hears the mission's first status only once
			// connected to its publisher (not latched).
			require.NoError(t, r.conn.WaitSubscribers(ctx, "delivery/status", 1))
			simStart, wallStart := r.now(), time.Now()
			st := runtime.Running
			for i := 0; i < 20*60*20 && st == runtime.Running; i++ {
				st = r.tick()
				switch last := lastStatus(); {
				case tc.confirm && last == "waiting":
					confirm.Publish(&std_msgs.String{Data: "kitchen"})
				case tc.abortOn != "" && last == tc.abortOn:
					abort.Publish(&std_msgs.String{Data: "abort"})
				}
			}
			final := map[runtime.Status]string{runtime.Success: "delivered", runtime.Failure: "aborted"}[st]
			// The mission's last status message reaches the subscriber in its
			// own time; the checks below read every status.
			assert.EventuallyWithT(t, func(c *assert.CollectT) {
				assert.Equal(c, final, lastStatus(), "the last status after the mission ended %v", st)
			}, 10*time.Second, 2*time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			measured(t, tc.name, r, simStart, wallStart)
			require.Equal(t, tc.want, st, "%v, want %v; statuses %q; events %q", st, tc.want, statuses, w.eventList())
			tc.check(t, w, r, statuses)
		})
	}
}

// TestFleetPatrolMission: three robots, one tree each, patrol the office's
// places through claims. At no tick do two robots navigate to the same
// place, and every robot completes a round.
func TestFleetPatrolMission(t *testing.T) {
	names := []string{"robot1", "robot2", "robot3"}
	var confs []sim.RobotConf
	for _, n := range names {
		confs = append(confs, sim.RobotConf{Name: n})
	}
	w := startWorld(t, worldSetup{robots: confs, peers: len(names)})
	var rigs []*rig
	for _, n := range names {
		rigs = append(rigs, buildRig(t, w, n, mission("fleet_patrol.xml"), Deps{}))
	}
	warmUp(rigs...)
	simStart, wallStart := rigs[0].now(), time.Now()
	end := simStart.Add(20 * time.Minute)
	collisions := 0
	for rigs[0].now().Before(end) {
		heading := map[string]string{}
		for _, r := range rigs {
			st := r.tick()
			require.Equal(t, runtime.Running, st, "%s ended %v", r.name, st)
			if navigating(r) {
				target, _ := r.get("target").(string)
				if other, dup := heading[target]; dup {
					collisions++
					assert.Greater(t, collisions, 5, "at %v %s and %s both head for %s", r.now().Sub(simStart), other, r.name, target)
				}
				heading[target] = r.name
			}
		}
		all := true
		for _, r := range rigs {
			all = all && intEntry(r, "rounds") >= 1
		}
		if all {
			break
		}
	}
	measured(t, "a round for each of three robots", rigs[0], simStart, wallStart)
	for _, r := range rigs {
		t.Logf("%v;%s", r, counters(r, "rounds", "visits", "recoveries", "skipped", "waits"))
		for _, l := range r.logs {
			t.Logf("  %7.1fs %s: %s", l.Time.Sub(simStart).Seconds(), l.Level, l.Text)
		}
		assert.GreaterOrEqual(t, intEntry(r, "rounds"), 1, "%s did not finish a round", r.name)
	}
	assert.Zero(t, collisions, "%d ticks with two robots heading for one place", collisions)
}

// navigating reports whether a robot's tree has a NavigateTo running.
func navigating(r *rig) bool {
	for _, n := range r.tree.Nodes() {
		if b := runtime.NodeOf(n); b.Type() == "NavigateTo" && b.Status() == runtime.Running {
			return true
		}
	}
	return false
}
