package mission

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/view"
)

// ReplayConf configures Replay. Instants are record.ParseInstant's: seconds
// since the recording's start, a duration, or an RFC 3339 time.
type ReplayConf struct {
	// File is the recording (.btlog or .db3).
	File string
	// From and Until bound what is played [the whole recording].
	From, Until string
	// Speed is recorded seconds per wall second [1]; < 0: as fast as
	// possible.
	Speed float64
	// Display makes the replay's display (a view.Live) once the recorded
	// tree is rebuilt (Shown without a mission or a connection; the nodes
	// give their recorded reasons), with a title naming the recording and
	// the root blackboard's keys at Until (none for a .btlog); it is
	// closed when the replay ends.
	Display func(s Shown, title string, keys []string) Display
	// Progress, when set, gets one status line (view.StatusLine: rewritten
	// on a terminal, a plain line every 10 s otherwise) saying how far the
	// replay is: "replay: 1m10s of 10m0s (12%) · 4.0× · 2m15s left". For a
	// headless replay's stderr; a live view owns its terminal.
	Progress io.Writer
}

// replayProgress is the line ReplayConf.Progress shows: how far into the
// span [0, total] the replay is after wall of playing.
func replayProgress(at, total, wall time.Duration) string {
	s := fmt.Sprintf("replay: %v of %v", at.Round(100*time.Millisecond), total.Round(100*time.Millisecond))
	if total > 0 {
		s += fmt.Sprintf(" (%.0f%%)", 100*float64(at)/float64(total))
	}
	if wall >= time.Second && at > 0 {
		speed := float64(at) / float64(wall)
		s += fmt.Sprintf(" · %.1f×", speed)
		if left := time.Duration(float64(total-at) / speed); left > 0 {
			s += fmt.Sprintf(" · %v left", left.Round(time.Second))
		}
	}
	return s
}

// Replay plays a recording through a display as it ran: the tree rebuilt
// from the recording against the palette wired to no robot, its statuses,
// reasons and blackboard as recorded, paced at Speed, until the end of
// the recording or of ctx. A recording cut short (a killed process) plays
// up to the cut, the display's last line says so, and Replay returns the
// damage (a *record.FormatError). ctx also ends the reading of a file
// that takes long (record.OpenContext). Every error names the file.
func Replay(ctx context.Context, c ReplayConf) error {
	return named(c.File, replay(ctx, c))
}

func replay(ctx context.Context, c ReplayConf) error {
	rec, err := record.OpenContext(ctx, c.File)
	if err != nil {
		return err
	}
	defer rec.Close()
	h := rec.Header()
	fromT, untilT, err := span(rec, c.From, c.Until)
	if err != nil {
		return err
	}
	reg := Nodes()
	tree, err := record.BuildTree(h, reg)
	if err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	var d Display
	var status *view.StatusLine
	started, told := time.Now(), time.Time{}
	if c.Progress != nil {
		status = view.NewStatusLine(c.Progress, 10*time.Second)
	}
	player, err := record.NewPlayer(rec, record.PlayConf{Tree: tree, From: fromT, Until: untilT, Speed: c.Speed,
		Observer: observerFunc(func(batch []runtime.Transition) {
			if d != nil {
				d.OnTransitions(batch)
			}
		}),
		OnTick: func(t runtime.TickReport) {
			if d != nil {
				d.OnTick(t)
			}
			if status != nil && time.Since(told) >= 250*time.Millisecond {
				told = time.Now()
				status.Update(replayProgress(t.Start.Sub(fromT), untilT.Sub(fromT), time.Since(started)))
			}
		}})
	if err != nil {
		return err
	}
	if c.Display != nil {
		var keys []string
		if st, err := rec.StateAt(untilT); err == nil {
			for k := range st.Blackboard[record.ScopeNames(tree)[tree.Blackboard()]] {
				keys = append(keys, k)
			}
			sort.Strings(keys)
		}
		title := fmt.Sprintf("btrobot replay %s · run %s · btrobot %s", c.File, h.RunID, h.Version)
		d = c.Display(Shown{Tree: tree, Registry: reg}, title, keys)
	}
	err = player.Play(ctx)
	if status != nil {
		status.Done(replayProgress(untilT.Sub(fromT), untilT.Sub(fromT), time.Since(started)))
	}
	if d != nil {
		end := fmt.Sprintf("replayed %s: run %s, %.1f s", c.File, h.RunID, untilT.Sub(fromT).Seconds())
		if dmg := rec.Damage(); dmg != nil {
			end += "; the recording was cut short: " + dmg.Error()
		}
		if err != nil {
			end += "; stopped: " + err.Error()
		}
		d.Close(end)
	}
	if ctx.Err() != nil && d != nil {
		return nil // interrupted: the display said so
	}
	if err == nil {
		err = rec.Damage()
	}
	return err
}

// ReplayAt writes to out, as indented JSON (record.Snapshot), the
// recorded state of the tree at instant at of file. Of a recording cut
// short it writes the state up to the cut, then returns the damage (a
// *record.FormatError). ctx ends the reading early. Every error names the
// file.
func ReplayAt(ctx context.Context, out io.Writer, file, at string) error {
	return named(file, replayAt(ctx, out, file, at))
}

func replayAt(ctx context.Context, out io.Writer, file, at string) error {
	rec, err := record.OpenContext(ctx, file)
	if err != nil {
		return err
	}
	defer rec.Close()
	t, err := record.ParseInstant(at, rec.Header().Start)
	if err != nil {
		return err
	}
	st, err := rec.StateAt(t)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(st.Snapshot(rec.Header())); err != nil {
		return err
	}
	return rec.Damage()
}

// named makes err name file, if it does not already.
func named(file string, err error) error {
	if err == nil || strings.Contains(err.Error(), file) {
		return err
	}
	return fmt.Errorf("%s: %w", file, err)
}

// span reads the instants from and until of rec ("" for the recording's
// first instant and its last event).
func span(rec record.Recording, from, until string) (f, u time.Time, err error) {
	start := rec.Header().Start
	f, u = rec.Span()
	if from != "" {
		if f, err = record.ParseInstant(from, start); err != nil {
			return f, u, err
		}
	}
	if until != "" {
		if u, err = record.ParseInstant(until, start); err != nil {
			return f, u, err
		}
	}
	if u.Before(f) {
		return f, u, fmt.Errorf("until %s is before from %s", u.Sub(start), f.Sub(start))
	}
	return f, u, nil
}

// observerFunc is a function of a batch as a runtime.Observer.
type observerFunc func([]runtime.Transition)

func (f observerFunc) OnTransitions(batch []runtime.Transition) { f(batch) }
