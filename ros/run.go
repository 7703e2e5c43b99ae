package ros

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// RunConf configures Run.
type RunConf struct {
	Conn *Conn
	// Tree must have been built on the connection's clock
	// (runtime.BuildConf{Clock: conn.Clock()}), so that its timeouts follow
	// ROS time.
	Tree *runtime.Tree
	// Profile binds the tree to the robot; without one the tree runs with
	// no inputs, outputs or velocity stop, at Rate.
	Profile *Profile
	// Rate overrides the profile's tick rate when > 0; MaxRate its early
	// wake-up rate when > 0.
	Rate, MaxRate float64
	// UntilDone ends the run when the root completes; otherwise the tree
	// starts again on the next tick.
	UntilDone bool
	// Observe, when set, receives every tick's timing.
	Observe func(runtime.TickReport)
	// OnStall, when set, is called after the robot was stopped because a
	// tick ran longer than the profile's watchdog allows.
	OnStall func()
}

// RunReport is how a run ended.
type RunReport struct {
	// Status is the root's last status (IDLE when cancelled).
	Status runtime.Status
	Stats  runtime.LoopStats
}

// Run ticks the tree on the robot until ctx ends, the tree fails with an
// error, or (with UntilDone) the root completes: the scan cycle of the
// profile's bridge around each tick, early ticks on wake-ups, and a zero
// velocity published when the run ends for any reason (a cancelled
// context, an error, a panic in a node) and when the watchdog sees a
// stalled tick. Under /use_sim_time it waits for the first /clock message
// before the first tick. Signals are the caller's: cancel ctx on SIGINT.
func Run(ctx context.Context, conf RunConf) (RunReport, error) {
	switch {
	case conf.Conn == nil:
		return RunReport{}, errors.New("run: no ROS connection")
	case conf.Tree == nil:
		return RunReport{}, errors.New("run: no tree")
	case conf.Tree.Clock() != conf.Conn.Clock():
		return RunReport{}, errors.New("run: the tree was not built on the connection's clock; build it with runtime.BuildConf{Clock: conn.Clock()}")
	}
	rate, maxRate := conf.Rate, conf.MaxRate
	if p := conf.Profile; p != nil {
		if rate <= 0 {
			rate = p.Rate
		}
		if maxRate <= 0 {
			maxRate = p.MaxRate
		}
	}
	if rate <= 0 {
		return RunReport{}, errors.New("run: no tick rate: give a profile or a rate")
	}
	lc := runtime.LoopConf{
		Tree: conf.Tree, Clock: conf.Conn.Clock(), Rate: rate, MaxRate: maxRate,
		UntilDone: conf.UntilDone, Observe: conf.Observe,
	}
	var bridge *Bridge
	if conf.Profile != nil {
		var err error
		bridge, err = NewBridge(BridgeConf{Conn: conf.Conn, Profile: conf.Profile, Tree: conf.Tree})
		if err != nil {
			return RunReport{}, err
		}
		defer bridge.Close()
		lc.Latch, lc.Flush = bridge.Latch, bridge.Flush
		lc.OnStop = func(error) {
			if err := bridge.Stop(); err != nil {
				conf.Conn.Logf(LogError, "could not stop the robot: %v", err)
			}
		}
		if w := conf.Profile.Safety.Watchdog; w > 0 {
			lc.Watchdog = time.Duration(w) * time.Duration(float64(time.Second)/rate)
			lc.OnStall = func() {
				conf.Conn.Logf(LogWarn, "a tick has run %v: stopping the robot", lc.Watchdog)
				if err := bridge.Stop(); err != nil {
					conf.Conn.Logf(LogError, "could not stop the robot: %v", err)
				}
				if conf.OnStall != nil {
					conf.OnStall()
				}
			}
		}
	}
	if sim := conf.Conn.SimClock(); sim != nil {
		select {
		case <-sim.Started():
		case <-ctx.Done():
			if bridge != nil {
				bridge.Stop()
			}
			return RunReport{Status: runtime.Idle}, ctx.Err()
		}
	}
	loop, err := runtime.NewLoop(lc)
	if err != nil {
		return RunReport{}, fmt.Errorf("run: %w", err)
	}
	st, err := loop.Run(ctx)
	return RunReport{Status: st, Stats: loop.Stats()}, err
}
