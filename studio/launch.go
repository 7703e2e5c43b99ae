package studio

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/sim"
)

// Run (the editor's): the edited mission on btrobot's simulator, in this
// process — a ROS master of its own on loopback, the simulator serving the
// chosen world with one robot (robot1, at its spawn), the mission with the
// chosen profile in lockstep with it (mission.StartSim, as `btrobot demo`
// does) — shown as a live run of this studio. One run at a time: a second
// Run stops the first; Stop, and the studio's Close, stop it (the
// mission's fail-safe stops the robot), then the simulator and the
// master. It needs no Conf.AllowControl: what it starts is a simulated
// robot on a master nothing else is on (debugging the run still needs
// it).

// launchRobot is the robot Run simulates: the world's spawn of that name
// is where it starts.
const launchRobot = "robot1"

// launchTimeout bounds how long a run may take to build its tree.
const launchTimeout = time.Minute

// maxLaunchLog is how many of a run's last log lines are kept.
const maxLaunchLog = 200

// launcher holds the run the editor started.
type launcher struct {
	mu     sync.Mutex // held while a run starts or stops
	cur    *launched
	closed bool
}

// launched is a run the editor started.
type launched struct {
	id     int    // the studio's run
	master string // its ROS master's URI
	cancel context.CancelFunc
	done   chan struct{} // closed once the mission ended and the simulator and master are closed

	mu  sync.Mutex
	log []string
	end string // how the run ended, once it has
}

func (l *launched) logLine(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.log) == maxLaunchLog {
		l.log = append(l.log[:0], l.log[1:]...)
	}
	l.log = append(l.log, line)
}

// launchInfo is what GET /api/run says of the run the editor started.
type launchInfo struct {
	Run     int      `json:"run,omitempty"`
	Master  string   `json:"master,omitempty"`
	Running bool     `json:"running"`
	End     string   `json:"end,omitempty"`
	Log     []string `json:"log"`
}

func (l *launched) info() launchInfo {
	running := true
	select {
	case <-l.done:
		running = false
	default:
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return launchInfo{Run: l.id, Master: l.master, Running: running, End: l.end, Log: append([]string{}, l.log...)}
}

// stop stops the run and waits for its end: the robot stopped, the
// simulator and the master closed.
func (l *launched) stop() {
	l.cancel()
	<-l.done
}

// close stops the current run, and refuses new ones.
func (lr *launcher) close() error {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.closed = true
	if lr.cur != nil {
		lr.cur.stop()
	}
	return nil
}

// runRequest is the page's Run.
type runRequest struct {
	Path string `json:"path"`
	// Doc is the file as the page has it: saved first when it differs
	// from the file; nil runs the file as saved.
	Doc *docJSON `json:"doc"`
	target
	// Speed is simulated seconds per wall second [1].
	Speed float64 `json:"speed"`
	// Battery is the robot's charge at the start, a fraction in (0, 1]
	// [1: full]: how a mission copes with a low battery is tried so.
	Battery float64 `json:"battery"`
	// Seed seeds the simulator's draws (noise, slip) and the mission's
	// random nodes [1]: the same seed runs the same.
	Seed uint64 `json:"seed"`
}

// launchRoutes adds Run's API to mux: the choices of profile and world,
// Run, Stop and the state of the run.
func (s *Server) launchRoutes(mux *http.ServeMux) {
	e := s.editor
	mux.HandleFunc("GET /api/targets", func(w http.ResponseWriter, r *http.Request) {
		profiles, worlds := e.choices()
		writeJSON(w, map[string]any{"profiles": profiles, "worlds": worlds, "robot": launchRobot})
	})
	mux.HandleFunc("GET /api/run", func(w http.ResponseWriter, r *http.Request) {
		s.launch.mu.Lock()
		cur := s.launch.cur
		s.launch.mu.Unlock()
		if cur == nil {
			writeJSON(w, launchInfo{Log: []string{}})
			return
		}
		writeJSON(w, cur.info())
	})
	mux.HandleFunc("POST /api/run", func(w http.ResponseWriter, r *http.Request) {
		var req runRequest
		if !readJSON(w, r, maxBody, false, &req) {
			return
		}
		if req.Doc != nil {
			if err := req.Doc.valid(); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		info, saved, err := s.startRun(req)
		if err != nil {
			msg := err.Error()
			if saved {
				msg = "saved, but not run: " + msg
			}
			http.Error(w, msg, http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"run": info.Run, "master": info.Master, "saved": saved})
	})
	mux.HandleFunc("POST /api/run/stop", func(w http.ResponseWriter, r *http.Request) {
		s.launch.mu.Lock()
		cur := s.launch.cur
		if cur != nil {
			cur.stop()
		}
		s.launch.mu.Unlock()
		if cur == nil {
			http.Error(w, "no run to stop: Run starts one", http.StatusBadRequest)
			return
		}
		writeJSON(w, cur.info())
	})
}

// startRun saves the page's edits, stops the current run and starts the
// file's mission on the simulator; the error says why it could not start
// (a mission that does not load: every problem, as btrobot check says it).
func (s *Server) startRun(req runRequest) (launchInfo, bool, error) {
	e := s.editor
	p, err := e.clean(req.Path)
	if err != nil {
		return launchInfo{}, false, err
	}
	if req.Profile == "" || req.World == "" {
		return launchInfo{}, false, errors.New("Run needs a robot profile and a world: choose them beside Run")
	}
	speed := req.Speed
	if speed == 0 {
		speed = 1
	}
	if !(speed > 0 && speed <= 100) {
		return launchInfo{}, false, fmt.Errorf("speed %v: want a factor of real time above 0, up to 100", req.Speed)
	}
	battery, seed := cmp.Or(req.Battery, 1), cmp.Or(req.Seed, 1)
	if !(battery > 0 && battery <= 1) {
		return launchInfo{}, false, fmt.Errorf("battery %v: want the charge at the start as a fraction above 0, up to 1 (0.3 is 30 %%)", req.Battery)
	}
	saved, err := e.saveEdits(p, req.Doc, req.target)
	if err != nil {
		return launchInfo{}, saved, err
	}
	// mission.Load reads the tree and its includes by path: they are read
	// through the folder first, and one that leads outside it is refused.
	if doc, _, err := e.read(p); doc == nil {
		return launchInfo{}, saved, e.inDir(err)
	}
	// The profile is read through the folder's root first: a symlink out
	// of the folder is refused before mission.Load reads it by path.
	if _, err := e.profile(req.Profile); err != nil {
		return launchInfo{}, saved, e.inDir(err)
	}
	profile := filepath.Join(e.dir, filepath.FromSlash(path.Clean(req.Profile)))
	if rel, ok := strings.CutPrefix(req.Profile, shippedPrefix); ok {
		if profile, err = e.shipped.path(rel); err != nil {
			return launchInfo{}, saved, err
		}
	}
	world, _, err := e.world(req.World)
	if err != nil {
		return launchInfo{}, saved, e.inDir(err)
	}
	m, err := mission.Load(mission.LoadConf{Tree: e.abs(p), Profile: profile, Places: world})
	if err != nil {
		return launchInfo{}, saved, e.inDir(err)
	}
	name := fmt.Sprintf("%s · %s · %s", path.Base(p), strings.TrimPrefix(req.Profile, shippedPrefix), strings.TrimPrefix(req.World, shippedPrefix))

	lr := &s.launch
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if lr.closed {
		return launchInfo{}, saved, errors.New("the studio is closing")
	}
	if lr.cur != nil {
		lr.cur.stop() // a second Run stops the first
	}
	l, err := s.launchMission(m, world, name, speed, battery, seed)
	if err != nil {
		return launchInfo{}, saved, err
	}
	lr.cur = l
	return l.info(), saved, nil
}

// launchMission starts m on the simulator serving the world at dir, the
// robot's battery charged to battery and every draw seeded with seed, and
// returns once the studio shows its run.
func (s *Server) launchMission(m *mission.Mission, dir, name string, speed, battery float64, seed uint64) (*launched, error) {
	w, err := sim.LoadWorld(dir, sim.WorldConf{Seed: seed})
	if err != nil {
		return nil, s.editor.inDir(err)
	}
	sp, ok := w.Places().Spawn(launchRobot)
	if !ok {
		return nil, fmt.Errorf("world %s: no spawn named %s: add spawns: [{name: %s, pose: [x, y, yaw]}] to its places.yaml", s.editor.rel(dir), launchRobot, launchRobot)
	}
	if _, err := w.AddRobot(sim.RobotConf{Name: launchRobot, Spawn: sp.Pose, Battery: sim.BatteryConf{Initial: battery}}); err != nil {
		return nil, err
	}
	l := &launched{done: make(chan struct{})}
	simr, err := mission.StartSim(mission.SimConf{
		World: w, Speed: speed, MasterLog: l.logLine,
		OnEvent: func(at time.Duration, line string) {
			l.logLine(fmt.Sprintf("%v sim: %s", at.Round(time.Millisecond), line))
		},
	})
	if err != nil {
		return nil, err
	}
	rc, err := simr.RunConf(m, launchRobot)
	if err != nil {
		return nil, errors.Join(err, simr.Close())
	}
	l.master = simr.URI()
	attached := make(chan *session, 1)
	rc.Seed, rc.Log = seed, l.logLine
	l.logLine(fmt.Sprintf("%s: battery %.0f %% at the start, seed %d, ×%g", launchRobot, battery*100, seed, speed))
	rc.Debugger = func(sh mission.Shown) mission.Debugger {
		r := s.attach(LiveConf{Name: name, Map: simr.Node.WriteSVG, Master: simr.URI(), launched: true}, sh)
		attached <- r
		return r.live
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	var runErr error
	go func() {
		defer close(l.done)
		rep, err := mission.Run(ctx, rc)
		cancel()
		cerr := simr.Close()
		l.mu.Lock()
		defer l.mu.Unlock()
		runErr = err
		l.end = rep.Summary()
		if err != nil {
			l.end = err.Error()
		}
		if cerr != nil {
			l.log = append(l.log, "closing the simulator: "+cerr.Error())
		}
	}()
	shown := func(r *session) *launched {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.id = r.ID
		return l
	}
	select {
	case r := <-attached:
		return shown(r), nil
	case <-l.done:
		select {
		case r := <-attached:
			return shown(r), nil // it ended at once, but the page can show how
		default:
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if runErr != nil {
			return nil, runErr
		}
		return nil, fmt.Errorf("the mission ended before it started: %s", l.end)
	case <-time.After(launchTimeout):
		l.stop()
		return nil, fmt.Errorf("the mission did not start within %v", launchTimeout)
	}
}

// saveEdits writes the page's document d to p when it differs from the
// file (Run saves unsaved edits as Save does, problems and all), and says
// whether it wrote.
func (e *editor) saveEdits(p string, d *docJSON, t target) (bool, error) {
	if d == nil {
		return false, nil
	}
	base, err := e.base(p)
	if err != nil {
		return false, err
	}
	have, err1 := json.Marshal(e.docJSONOf(base))
	want, err2 := json.Marshal(d)
	if err1 == nil && err2 == nil && bytes.Equal(have, want) {
		return false, nil
	}
	probs, saved, err := e.save(p, base, *d, t)
	if err != nil {
		return false, err
	}
	if !saved {
		return false, fmt.Errorf("%s cannot be written: %s", p, probs[0].Msg)
	}
	return true, nil
}

// inDir names the folder's files relative to it in err, as `btrobot
// check` run there names them.
func (e *editor) inDir(err error) error {
	return errors.New(e.named(err.Error()))
}

// rel names a path of the folder relative to it.
func (e *editor) rel(p string) string {
	if r, err := filepath.Rel(e.dir, p); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return p
}
