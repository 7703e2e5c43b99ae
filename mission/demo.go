package mission

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/btrobot/btrobot/internal/english"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/view"
)

// The demo's parts, relative to the repository's root (ShippedFiles finds
// them, in a checkout or from the binary's own copies).
const (
	DemoWorld   = "worlds/office"
	DemoMission = "trees/missions/patrol_with_charging.xml"
	DemoProfile = "robots/sim.yaml"
)

// DemoConf configures StartDemo: btrobot demo's settings.
type DemoConf struct {
	// Rounds the robot patrols before the run ends as done (each round
	// visits the office's six places).
	Rounds int
	// Speed is the simulator's (0: as fast as the lockstep allows).
	Speed float64
	// Battery is robot1's charge at the start, a fraction.
	Battery float64
	// Seed seeds the simulator's draws.
	Seed uint64
	// OnEvent and MasterLog are SimConf's.
	OnEvent   func(at time.Duration, line string)
	MasterLog func(line string)
	// Progress, when set, gets a status line (view.StatusLine) of the
	// rounds done, the simulated time and the pace: for a headless demo's
	// stderr (a live view owns its terminal). Summary ends it.
	Progress io.Writer
}

// demoRoundLimit bounds the simulated time of one round: a patrol round of
// the office with a charge takes under ten minutes.
const demoRoundLimit = 20 * time.Minute

// Demo is btrobot demo set up: the office simulated on a master of its
// own, robot1 on it, and the run of patrol_with_charging ready in Run —
// the same setup hil proves (StartSim), with the demo's stop condition:
// done after Rounds rounds, failed when they take too long. The caller
// adds its display and watchers to Run, runs it, and reads Summary.
type Demo struct {
	Sim  *Simulator
	Run  RunConf
	conf DemoConf

	cleanup func()
	start   time.Time // the first tick's time
	status  *view.StatusLine
	wall    time.Time // when the first tick came
	told    time.Time
}

// demoProgress is the line DemoConf.Progress shows: rounds done of
// rounds, after sim of simulated time and wall of playing.
func demoProgress(done, rounds int, sim, wall time.Duration) string {
	s := fmt.Sprintf("demo: %d/%d %s · %v simulated", done, rounds, english.Plural(rounds, "round", "rounds"), sim.Round(time.Second))
	if wall >= time.Second && sim > 0 {
		s += fmt.Sprintf(" · %.0f× real time", float64(sim)/float64(wall))
		if done > 0 && done < rounds {
			s += fmt.Sprintf(" · about %v left", (wall / time.Duration(done) * time.Duration(rounds-done)).Round(time.Second))
		}
	}
	return s
}

// Problems says what is wrong with the settings, one problem a line, each
// starting with the setting's name as btrobot demo's flags spell it
// ("rounds 0: want at least 1").
func (c DemoConf) Problems() []string {
	var out []string
	if c.Rounds < 1 {
		out = append(out, fmt.Sprintf("rounds %d: want at least 1", c.Rounds))
	}
	if !(c.Speed >= 0) || c.Speed > 1000 {
		out = append(out, fmt.Sprintf("speed %v: want 0 (as fast as possible) or a factor of real time up to 1000", c.Speed))
	}
	if !(c.Battery > 0.05 && c.Battery <= 1) {
		out = append(out, fmt.Sprintf("battery %v: want a charge above 0.05 and at most 1", c.Battery))
	}
	return out
}

// DemoKeys are the blackboard entries the demo's live view shows.
var DemoKeys = []string{"rounds", "visits", "charges", "recoveries", "skipped", "target", "battery_pct"}

// Title heads the demo's live view: the rounds asked for and the pace.
func (d *Demo) Title() string {
	pace := fmt.Sprintf("×%g", d.conf.Speed)
	if d.conf.Speed == 0 {
		pace = "as fast as possible"
	}
	return fmt.Sprintf("btrobot demo · office · patrol with charging · %d %s · %s", d.conf.Rounds, english.Plural(d.conf.Rounds, "round", "rounds"), pace)
}

// StartDemo checks the settings (Problems), loads the shipped mission and
// starts the simulator. A mission that does not load is a *LoadError.
func StartDemo(c DemoConf) (*Demo, error) {
	if p := c.Problems(); len(p) > 0 {
		return nil, fmt.Errorf("demo: %s", strings.Join(p, "; "))
	}
	root, cleanup, err := ShippedFiles(DemoMission, DemoWorld+"/places.yaml")
	if err != nil {
		return nil, err
	}
	m, err := Load(LoadConf{
		Tree: filepath.Join(root, DemoMission), Profile: filepath.Join(root, DemoProfile), Places: filepath.Join(root, DemoWorld),
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	simr, err := StartSim(SimConf{
		WorldDir: filepath.Join(root, DemoWorld), Seed: c.Seed, Robots: []SimRobot{{Name: "robot1", Battery: c.Battery}},
		Speed: c.Speed, OnEvent: c.OnEvent, MasterLog: c.MasterLog,
	})
	if err != nil {
		cleanup()
		return nil, err
	}
	d := &Demo{Sim: simr, conf: c, cleanup: cleanup}
	if d.Run, err = simr.RunConf(m, "robot1"); err != nil {
		d.Close()
		return nil, err
	}
	// The simulator stays at the run's last moment: the summary reads it
	// and the picture draws it there.
	d.Run.Seed, d.Run.Lockstep.Hold = 1, true
	d.Run.OnTick = d.onTick
	return d, nil
}

// onTick ends the run as done after the rounds asked for, and as failed
// when they take over demoRoundLimit each.
func (d *Demo) onTick(tree *runtime.Tree, t runtime.TickReport) (string, bool) {
	if d.start.IsZero() {
		d.start, d.wall = t.Start, time.Now()
		if d.conf.Progress != nil {
			d.status = view.NewStatusLine(d.conf.Progress, 10*time.Second)
		}
	}
	n, ok := counter(tree.Blackboard(), "rounds")
	if d.status != nil && time.Since(d.told) >= 250*time.Millisecond {
		d.told = time.Now()
		d.status.Update(demoProgress(n, d.conf.Rounds, t.Start.Sub(d.start), time.Since(d.wall)))
	}
	if ok && n >= d.conf.Rounds {
		return fmt.Sprintf("%d %s done", n, english.Plural(n, "round", "rounds")), true
	}
	if took := t.Start.Sub(d.start); took > time.Duration(d.conf.Rounds)*demoRoundLimit {
		return fmt.Sprintf("not %d rounds after %v of simulated time", d.conf.Rounds, took.Round(time.Second)), false
	}
	return "", false
}

// Close stops the simulator and removes the files ShippedFiles wrote.
func (d *Demo) Close() {
	d.Sim.Close()
	d.cleanup()
}

// DemoSummary is what the demo prints at its end: the tree's counters and
// the simulator's figures.
type DemoSummary struct {
	Rounds, Visits, GivenUp, Charges, DockVisits, Recoveries int
	Travelled                                                float64 // metres
	Collisions                                               int
	BatteryStart, BatteryNow                                 float64 // fractions
	Simulated, Wall                                          time.Duration
	Ticks                                                    uint64
}

// Summary reads the summary of the run rep, which took wall.
func (d *Demo) Summary(rep Report, wall time.Duration) DemoSummary {
	if d.status != nil {
		d.status.Done("")
	}
	s := DemoSummary{BatteryStart: d.conf.Battery, Wall: wall, Ticks: rep.Stats.Ticks, DockVisits: d.Sim.Succeeded("robot1", "dock")}
	d.Sim.Node.Do(func(w *sim.World) error {
		r, _ := w.Robot("robot1")
		s.Travelled, s.Collisions, s.BatteryNow = r.Travelled(), r.Collisions(), r.Battery().Percentage
		return nil
	})
	s.Simulated = d.Sim.Node.Stats().SimTime
	if rep.Tree != nil {
		bb := rep.Tree.Blackboard()
		for _, c := range []struct {
			key string
			n   *int
		}{{"rounds", &s.Rounds}, {"visits", &s.Visits}, {"skipped", &s.GivenUp}, {"charges", &s.Charges}, {"recoveries", &s.Recoveries}} {
			*c.n, _ = counter(bb, c.key)
		}
	}
	return s
}

// Write prints the summary as the demo's closing lines.
func (s DemoSummary) Write(w io.Writer) {
	fmt.Fprintf(w, "rounds      %d (%d places visited, %d given up)\n", s.Rounds, s.Visits, s.GivenUp)
	fmt.Fprintf(w, "distance    %.1f m, %d %s\n", s.Travelled, s.Collisions, english.Plural(s.Collisions, "collision", "collisions"))
	fmt.Fprintf(w, "docking     %d %s, %d %s (battery %.0f%% at the start, %.0f%% now)\n",
		s.Charges, english.Plural(s.Charges, "charge", "charges"), s.DockVisits, english.Plural(s.DockVisits, "dock visit", "dock visits"),
		s.BatteryStart*100, s.BatteryNow*100)
	fmt.Fprintf(w, "recovered   %d navigation %s by the recovery ladder\n", s.Recoveries, english.Plural(s.Recoveries, "failure", "failures"))
	ratio := ""
	if s.Wall > 0 {
		ratio = fmt.Sprintf(" (%.1f times real time)", s.Simulated.Seconds()/s.Wall.Seconds())
	}
	fmt.Fprintf(w, "time        %s simulated in %s wall%s, %d ticks\n", view.ClockText(s.Simulated), s.Wall.Round(100*time.Millisecond), ratio, s.Ticks)
}

// Picture draws the run to file (.png or .svg) and says where, as the
// summary's last line.
func (d *Demo) Picture(w io.Writer, file string) error {
	files, err := d.Sim.Node.Render(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "picture     %s\n", strings.Join(files, ", "))
	return nil
}

// counter reads a counter of the blackboard.
func counter(bb *runtime.Blackboard, key string) (int, bool) {
	v, ok := bb.Get(key)
	if !ok {
		return 0, false
	}
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	}
	return 0, false
}
