package mission

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/record/groot2"
	"github.com/btrobot/btrobot/runtime"
)

// Version is btrobot's version as the build knows it: the module's version
// (v1.2.3 for `go install ...@v1.2.3`), else the VCS revision the binary was
// built from (with "+dirty" for uncommitted changes), else "devel".
// Recordings keep it in their header.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return rev + dirty
}

// watchers are the recorder and the Groot2 server a run attaches to its
// tree (RunConf.Record, RunConf.Groot); a nil *watchers has neither.
type watchers struct {
	rec    *record.Recorder
	srv    *groot2.Server
	detach []func()
	once   sync.Once
}

// watchConf is what attachWatchers needs of a run.
type watchConf struct {
	record    string // RunConf.Record
	groot     int    // RunConf.Groot
	grootHost string // RunConf.GrootHost
	tree      *runtime.Tree
	doc       *runtime.Document
	palette   *runtime.Registry
	profile   string // the profile's file, kept in the recording
	runID     uuid.UUID
	seed      uint64
	onPause   func(n *runtime.Base, paused bool)
}

// attachWatchers creates the recorder and the Groot2 server asked for and
// attaches them to the tree; call it before the first tick, and close the
// result whatever ends the run. Its error is a recording that cannot be
// created or a port that cannot be bound.
func attachWatchers(c watchConf) (*watchers, error) {
	w := &watchers{}
	if c.record != "" {
		var profile []byte
		if c.profile != "" {
			var err error
			if profile, err = os.ReadFile(c.profile); err != nil {
				return nil, fmt.Errorf("record %s: the robot profile: %w", c.record, err)
			}
		}
		rec, err := record.New(record.Conf{
			Path: c.record, Tree: c.tree, Document: c.doc, Palette: c.palette,
			Profile: profile, RunID: c.runID, Version: Version(), Seed: c.seed,
		})
		if err != nil {
			return nil, err
		}
		w.rec = rec
		w.detach = append(w.detach, rec.Attach())
	}
	if c.groot != 0 {
		srv, err := groot2.New(groot2.Conf{Tree: c.tree, Document: c.doc, Palette: c.palette, Host: c.grootHost, Port: c.groot, TreeID: c.runID, OnPause: c.onPause})
		if err != nil {
			err = fmt.Errorf("groot2 on port %d: %w", c.groot, err)
			return nil, errors.Join(err, w.close())
		}
		w.srv = srv
		w.detach = append(w.detach, srv.Attach())
	}
	return w, nil
}

// onTick records a tick's report; on the tick's goroutine.
func (w *watchers) onTick(t runtime.TickReport) {
	if w != nil && w.rec != nil {
		w.rec.OnTick(t)
	}
}

// paused reports whether a Groot2 breakpoint holds the tree.
func (w *watchers) paused() bool { return w != nil && w.srv != nil && w.srv.Paused() }

// resume releases a tick a breakpoint holds, for a run that must end.
func (w *watchers) resume() {
	if w != nil && w.srv != nil {
		w.srv.Resume()
	}
}

// close detaches both, stops the Groot2 server and writes what is left of
// the recording; the error says what the recording lost, if anything. Only
// the first call does anything.
func (w *watchers) close() error {
	if w == nil {
		return nil
	}
	var errs []error
	w.once.Do(func() {
		for i := len(w.detach) - 1; i >= 0; i-- {
			w.detach[i]()
		}
		if w.srv != nil {
			if err := w.srv.Close(); err != nil {
				errs = append(errs, fmt.Errorf("groot2: %w", err))
			}
		}
		if w.rec != nil {
			if err := w.rec.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	})
	return errors.Join(errs...)
}

// CheckWatchers says what is wrong with a RunConf's Record and Groot (an
// unknown recording format, a port out of range), before anything runs.
func CheckWatchers(recordPath string, grootPort int) error {
	if grootPort < 0 || grootPort > 65534 {
		return fmt.Errorf("groot port %d: want 1 to 65534 (the PUB socket takes the next; %d is Groot2's own), or 0 for none", grootPort, groot2.DefaultPort)
	}
	if recordPath != "" && !record.IsRecordingName(recordPath) {
		return fmt.Errorf("record %s: name the file .btlog (BT.CPP's FileLogger2, for Groot2) or .db3 (SQLite, everything)", recordPath)
	}
	return nil
}

// spreadWatchers gives each of a fleet's runs its own recording and Groot2
// ports where they share them: FILE.db3 becomes FILE.NAME.db3 (NAME the
// robot's namespace, or its number), and the k-th run sharing a port
// takes the k-th pair of ports from it.
func spreadWatchers(confs []RunConf) []RunConf {
	out := slices.Clone(confs)
	files, ports := map[string]int{}, map[int]int{}
	for _, c := range confs {
		files[c.Record]++
		ports[c.Groot]++
	}
	seenPort := map[int]int{}
	for i := range out {
		c := &out[i]
		if c.Record != "" && files[c.Record] > 1 {
			name := path.Base("/" + strings.Trim(c.ROS.Namespace, "/"))
			if c.Conn != nil {
				name = path.Base(c.Conn.Namespace())
			}
			if name == "/" || name == "." {
				name = strconv.Itoa(i + 1)
			}
			ext := filepath.Ext(c.Record)
			c.Record = strings.TrimSuffix(c.Record, ext) + "." + name + ext
		}
		if c.Groot > 0 && ports[c.Groot] > 1 {
			k := seenPort[c.Groot]
			seenPort[c.Groot]++
			c.Groot += 2 * k
		}
	}
	return out
}
