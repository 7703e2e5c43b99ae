package skills

import (
	"fmt"
	"math"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// WaitForCharge waits, RUNNING, until the battery is charged to percent.
//
//	<WaitForCharge percent="90" battery_percent="{charge}"/>
//
// Contract (an async leaf on the scan cycle; the battery charges by itself,
// the leaf only watches):
//   - RUNNING while the charge is below percent; each tick writes
//     battery_percent and elapsed (seconds);
//   - SUCCESS once the charge reaches percent (at once if it already has);
//   - FAILURE when the battery has not reported charging (power supply
//     status charging or full) for longer than grace, a stale or missing
//     battery state counting as not charging: a robot that is not on its
//     dock does not wait forever. grace 0 waits regardless;
//   - halting stops the wait; it commands nothing.
type WaitForCharge struct {
	*runtime.Leaf
	e *env

	target       float64
	grace        time.Duration
	start        time.Time
	lastCharging time.Time
}

func waitForChargeType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "WaitForCharge", Kind: runtime.ActionKind,
		Summary: "RUNNING until the battery is charged to percent; FAILURE when it stops charging for longer than grace.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[float64]("percent", "the charge to wait for, in percent").WithDefault("95"),
			runtime.InputPort[time.Duration]("grace", "FAILURE when the battery has not been charging for this long (0: never)").WithDefault("10s"),
			runtime.OutputPort[float64]("battery_percent", "the charge now, in percent"),
			runtime.OutputPort[float64]("elapsed", "seconds since the wait started"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if v, ok := runtime.LiteralAs[float64](c, "percent"); ok && !(v >= 0 && v <= 100) {
				return nil, fmt.Errorf("port \"percent\": %v; want a percentage from 0 to 100", v)
			}
			w := &WaitForCharge{e: e}
			w.Leaf = runtime.NewStatefulAction(w)
			return w, nil
		},
	}
}

// OnStart reads the ports and looks at the battery.
func (w *WaitForCharge) OnStart(n *runtime.Leaf) (runtime.Status, error) {
	var err error
	if w.target, err = runtime.GetInput[float64](n, "percent"); err != nil {
		return runtime.Failure, err
	}
	if w.grace, err = runtime.GetInput[time.Duration](n, "grace"); err != nil {
		return runtime.Failure, err
	}
	w.start = n.Now()
	w.lastCharging = w.start
	return w.check(n)
}

// OnRunning looks at the battery again.
func (w *WaitForCharge) OnRunning(n *runtime.Leaf) (runtime.Status, error) { return w.check(n) }

func (w *WaitForCharge) check(n *runtime.Leaf) (runtime.Status, error) {
	now := n.Now()
	if err := runtime.SetOutput(n, "elapsed", seconds(now.Sub(w.start))); err != nil {
		return runtime.Failure, err
	}
	b, err := w.e.io(n).battery()
	if err != nil && !isUnavailable(err) {
		return runtime.Failure, err
	}
	if err == nil {
		level := percentOf(b)
		if !math.IsNaN(level) {
			if err := runtime.SetOutput(n, "battery_percent", level); err != nil {
				return runtime.Failure, err
			}
			if level >= w.target {
				return runtime.Success, nil
			}
		}
		if b.PowerSupplyStatus == supplyCharging || b.PowerSupplyStatus == supplyFull {
			w.lastCharging = now
		}
	}
	if w.grace > 0 && now.Sub(w.lastCharging) >= w.grace {
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("not charging for %v (grace %v)", now.Sub(w.lastCharging).Round(time.Millisecond), w.grace))
		}
		return runtime.Failure, nil
	}
	if w.grace > 0 {
		n.Tree().WakeAt(w.lastCharging.Add(w.grace))
	}
	return runtime.Running, nil
}

// OnHalted ends the wait.
func (w *WaitForCharge) OnHalted(*runtime.Leaf) {}
