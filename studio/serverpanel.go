package studio

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/btrobot/btrobot/executor"
)

// serverEvery is how often at most the server panel's state is sent to
// the pages: changes in between are sent together (a client sending a
// thousand goals a second costs ten encodings a second).
const serverEvery = 100 * time.Millisecond

// ServerSource is a mission server the studio shows beside its runs
// (btrobot serve --ui): its state, queue and goals' history in a panel
// of the page, live, and at /api/server.
type ServerSource struct {
	// View returns the server's state now, as JSON encodes it
	// (executor.Server.View). Required.
	View func() any
	// Control pauses or resumes the server ("pause", "resume": the code
	// of its ~pause and ~resume services) or cancels a goal ("cancel",
	// goal), when the studio allows control. Nil: the panel only shows.
	Control func(op string, goal uint64) (string, error)
	// Recording returns the recording an ended goal left ("" when none):
	// the page opens it as a replay by the goal's number.
	Recording func(goal uint64) string
}

// serverPanel is the server the studio shows.
type serverPanel struct {
	src ServerSource
	hub *hub

	mu     sync.Mutex
	opened map[string]int // recordings opened: their runs
}

// serverState is what the panel's events and /api/server carry.
type serverState struct {
	Server  json.RawMessage `json:"server"`
	Control bool            `json:"control"`
	// Runs is how many runs the studio shows: a page that follows the
	// goals opens the new one when it grows.
	Runs int `json:"runs"`
}

// ShowServer shows a mission server in the page, until the studio
// closes. Call ServerChanged whenever its View changes.
func (s *Server) ShowServer(src ServerSource) error {
	if src.View == nil {
		return errors.New("studio: a server to show needs its View")
	}
	p := &serverPanel{src: src, hub: newHub(), opened: map[string]int{}}
	s.mu.Lock()
	if s.panel != nil {
		s.mu.Unlock()
		return errors.New("studio: a server is shown already")
	}
	s.panel = p
	s.mu.Unlock()
	s.wg.Add(1)
	go func() { defer s.wg.Done(); s.pumpServer(p) }()
	s.ServerChanged()
	return nil
}

// ServerChanged says the shown server's View changed: the pages get it
// within serverEvery. It never blocks; it may be called before
// ShowServer, and from any goroutine.
func (s *Server) ServerChanged() {
	select {
	case s.serverWake <- struct{}{}:
	default:
	}
}

func (s *Server) shownServer() *serverPanel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.panel
}

// serverState encodes the shown server's state now.
func (s *Server) serverState(p *serverPanel) []byte {
	view, err := json.Marshal(p.src.View())
	if err != nil {
		view, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	s.mu.Lock()
	runs := len(s.runs)
	s.mu.Unlock()
	b, _ := json.Marshal(serverState{Server: view, Control: s.conf.AllowControl && p.src.Control != nil, Runs: runs})
	return b
}

// pumpServer sends the server's state to the pages when it changes, at
// most every serverEvery, until the studio closes.
func (s *Server) pumpServer(p *serverPanel) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			p.hub.close()
			return
		case <-s.serverWake:
		}
		if !p.hub.idle(resumeWithin) {
			p.hub.publish("server", s.serverState(p))
		}
		t.Reset(serverEvery)
		select {
		case <-s.done:
			p.hub.close()
			return
		case <-t.C:
		}
	}
}

// serverRoutes are /api/server (the state as JSON), its events, its
// control and the opening of a goal's recording.
func (s *Server) serverRoutes(mux *http.ServeMux) {
	with := func(f func(http.ResponseWriter, *http.Request, *serverPanel)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			p := s.shownServer()
			if p == nil {
				http.Error(w, "this studio shows no mission server (btrobot serve --ui does)", http.StatusNotFound)
				return
			}
			f(w, r, p)
		}
	}
	mux.HandleFunc("GET /api/server", with(func(w http.ResponseWriter, r *http.Request, p *serverPanel) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(append(s.serverState(p), '\n'))
	}))
	mux.HandleFunc("GET /api/server/events", with(func(w http.ResponseWriter, r *http.Request, p *serverPanel) {
		serveEvents(w, r, p.hub, func() (uint64, []byte) {
			id := p.hub.current()
			return id, s.serverState(p)
		}, s.done, s.conf.WriteTimeout)
	}))
	mux.HandleFunc("POST /api/server/control", with(func(w http.ResponseWriter, r *http.Request, p *serverPanel) {
		if !s.conf.AllowControl || p.src.Control == nil {
			http.Error(w, "control is off: start with --allow-control to pause, resume or cancel from the studio", http.StatusForbidden)
			return
		}
		var req struct {
			Op   string `json:"op"`
			Goal uint64 `json:"goal"`
		}
		if !readJSON(w, r, 1<<12, true, &req) {
			return
		}
		switch req.Op {
		case "pause", "resume", "cancel":
		default:
			http.Error(w, fmt.Sprintf("unknown operation %q: want pause, resume or cancel", req.Op), http.StatusBadRequest)
			return
		}
		msg, err := p.src.Control(req.Op, req.Goal)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		s.ServerChanged()
		writeJSON(w, map[string]string{"message": msg})
	}))
	mux.HandleFunc("POST /api/server/recording", with(func(w http.ResponseWriter, r *http.Request, p *serverPanel) {
		var req struct {
			Goal uint64 `json:"goal"`
		}
		if !readJSON(w, r, 1<<12, true, &req) {
			return
		}
		file := ""
		if p.src.Recording != nil {
			file = p.src.Recording(req.Goal)
		}
		if file == "" {
			http.Error(w, fmt.Sprintf("goal %d left no recording (serve with --record-dir to record every goal)", req.Goal), http.StatusNotFound)
			return
		}
		id, err := s.openRecording(p, file)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]int{"run": id})
	}))
}

// openRecording shows a goal's recording as a run, once: asked again, it
// gives the same run.
func (s *Server) openRecording(p *serverPanel, file string) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id, ok := p.opened[file]; ok {
		return id, nil
	}
	r, err := s.addRecording(file)
	if err != nil {
		return 0, err
	}
	p.opened[file] = r.ID
	return r.ID, nil
}

// ServerFrom is the mission server srv as the studio shows it: its View,
// its pause and resume (the code of ~pause and ~resume) and a goal's
// cancel, and its goals' recordings.
func ServerFrom(srv *executor.Server) ServerSource {
	return ServerSource{
		View: func() any { return srv.View() },
		Control: func(op string, goal uint64) (string, error) {
			switch op {
			case "pause":
				return srv.Pause()
			case "resume":
				return srv.Resume()
			case "cancel":
				return srv.Cancel(goal, "cancelled in the studio")
			}
			return "", fmt.Errorf("unknown operation %q", op)
		},
		Recording: srv.Recording,
	}
}
