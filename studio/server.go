package studio

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// DefaultAddr is where the studio listens unless told otherwise.
const DefaultAddr = "127.0.0.1:7070"

//go:embed assets
var assets embed.FS

// Conf configures a Server.
type Conf struct {
	// Addr is the address to listen on [DefaultAddr]; port 0 picks a free
	// one. An address that is not loopback needs a token (Token).
	Addr string
	// AllowControl lets the page debug: breakpoints, pause, step, forced
	// results, blackboard writes. Without it the studio is read-only.
	AllowControl bool
	// Token, on an address that is not loopback, is what every request
	// must carry (?token=, a cookie the page sets, or Authorization:
	// Bearer) [a random one, see Server.Token]. It is ignored on loopback.
	Token string
	// Title names what the studio shows, in the page's title.
	Title string
	// Follow has the page follow the runs as they come (a mission
	// server's goals, each a run): it opens each new run once it is
	// added, rather than staying on the first.
	Follow bool
	// PumpEvery is how often at most a live run's changes are sent
	// [PumpEvery].
	PumpEvery time.Duration
	// Dir, when set, is the folder of trees the editor opens (its XML
	// files, never anything outside it).
	Dir string
	// WriteTimeout is how long a page may take to accept an event before
	// its stream is closed (it reconnects and resumes) [10 s].
	WriteTimeout time.Duration
	// ReadTimeout is how long a peer may take to send a request's body
	// once its header is in [1 min] (the header: 10 s at most): one that
	// sends slowly is cut off. A page's stream of events is not cut.
	ReadTimeout time.Duration
}

// Server is the studio's HTTP server and the runs it shows.
type Server struct {
	conf   Conf
	ln     net.Listener
	srv    *http.Server
	remote bool  // the address is not loopback: the token is needed
	hosts  hosts // what the Host header may name (guard.go)

	editor *editor
	launch launcher // the run the editor started (launch.go)

	mu   sync.Mutex
	runs []*session
	// panel is the mission server shown (ShowServer), nil when none;
	// serverWake is poked when its state or the runs change.
	panel      *serverPanel
	serverWake chan struct{}
	done       chan struct{}
	wg         sync.WaitGroup
}

// session is one run the studio shows: live or recorded.
type session struct {
	ID     int     `json:"id"`
	Name   string  `json:"name"`
	Kind   string  `json:"kind"` // "live" or "replay"
	Rate   float64 `json:"rate,omitempty"`
	HasMap bool    `json:"map"`
	// Master is the ROS master the run is on, when known (LiveConf.Master).
	Master string `json:"master,omitempty"`
	// Launched marks the runs the editor's Run started.
	Launched bool       `json:"launched,omitempty"`
	nodes    []treeNode // static
	tree     *runtime.Tree
	hub      *hub
	live     *live
	replay   *replay
	mapFn    func(io.Writer) error
}

// New listens on conf.Addr and serves the studio until Close.
func New(conf Conf) (*Server, error) {
	if conf.Addr == "" {
		conf.Addr = DefaultAddr
	}
	host, _, err := net.SplitHostPort(conf.Addr)
	if err != nil {
		return nil, fmt.Errorf("studio: address %q: want HOST:PORT, such as %s", conf.Addr, DefaultAddr)
	}
	if conf.WriteTimeout <= 0 {
		conf.WriteTimeout = defaultWriteTimeout
	}
	if conf.ReadTimeout <= 0 {
		conf.ReadTimeout = time.Minute
	}
	s := &Server{conf: conf, done: make(chan struct{}), serverWake: make(chan struct{}, 1)}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		s.remote = true
		if s.conf.Token == "" {
			b := make([]byte, 16)
			if _, err := rand.Read(b); err != nil {
				return nil, err
			}
			s.conf.Token = hex.EncodeToString(b)
		}
	}
	if conf.Dir != "" {
		if s.editor, err = newEditor(conf.Dir); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", conf.Addr)
	if err != nil {
		return nil, fmt.Errorf("studio: %w", err)
	}
	s.ln = ln
	s.hosts = hostsOf(host, ln)
	// A peer that sends its header or body slowly is cut off (a stream of
	// events is a response: its writes have their own deadline).
	s.srv = &http.Server{Handler: s.handler(), ReadHeaderTimeout: min(10*time.Second, conf.ReadTimeout), ReadTimeout: conf.ReadTimeout,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: maxHeaderBytes}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Token returns the token requests need ("" on loopback, where none is).
func (s *Server) Token() string {
	if !s.remote {
		return ""
	}
	return s.conf.Token
}

// URL returns the page's address, with the token when one is needed.
// On every interface (0.0.0.0) it names this host.
func (s *Server) URL() string {
	addr := s.ln.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host, _ = os.Hostname()
	}
	u := "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port)) + "/"
	if t := s.Token(); t != "" {
		u += "?token=" + t
	}
	return u
}

// Close stops serving: every page's stream ends, replays are closed.
func (s *Server) Close() error {
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		return nil
	default:
	}
	close(s.done)
	s.mu.Unlock()
	// The run the editor started stops first: its robot stopped, its
	// simulator and master closed, before its run is shut.
	errs := []error{s.launch.close()}
	s.mu.Lock()
	runs := s.runs
	s.mu.Unlock()
	for _, r := range runs {
		r.hub.close()
		if r.live != nil {
			r.live.dbg.bp.Close()
			r.live.shutdown()
		}
		if r.replay != nil {
			if err := r.replay.close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if s.editor != nil {
		s.editor.shipped.close()
		errs = append(errs, s.editor.root.Close())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		// A page whose stream has not ended within the grace (a browser
		// on a loaded machine) is cut off: that is how it closes, not a
		// failure to close.
		errs = append(errs, s.srv.Close())
	}
	s.wg.Wait()
	return errors.Join(errs...)
}

func (s *Server) add(r *session) {
	s.mu.Lock()
	r.ID = len(s.runs) + 1
	s.runs = append(s.runs, r)
	s.mu.Unlock()
	s.ServerChanged() // a page following a server's goals opens it
}

// LiveConf describes a running tree beyond what mission.Shown says.
type LiveConf struct {
	// Name names the run in the page [the robot's namespace, else the
	// mission's file].
	Name string
	// Map, when set, draws the simulated world now as SVG (the page asks
	// for it about twice a second).
	Map func(io.Writer) error
	// Master, when set, is the URI of the ROS master the run is on, given
	// in the run's info (/api/runs) for tests and ROS tools.
	Master string

	launched bool // the editor's Run started it
}

// Debugger returns what mission.RunConf.Debugger wants: each run it is
// given to (each robot of a fleet) becomes a run of the studio. The
// debugger it makes also has Mark(at time.Time, kind, label, text string),
// which draws an event on the run's timeline (hil marks the faults that
// strike and the verdicts).
func (s *Server) Debugger(c LiveConf) func(mission.Shown) mission.Debugger {
	return func(sh mission.Shown) mission.Debugger { return s.attach(c, sh).live }
}

// attach makes a live run of the studio of the run sh shows.
func (s *Server) attach(c LiveConf, sh mission.Shown) *session {
	name := c.Name
	if name == "" && sh.Conn != nil {
		name = sh.Conn.Namespace()
	}
	if name == "" && sh.Mission != nil {
		name = sh.Mission.TreeFile
	}
	r := &session{Name: name, Kind: "live", Rate: sh.Rate, HasMap: c.Map != nil, Master: c.Master, Launched: c.launched, nodes: describe(sh.Tree), tree: sh.Tree, hub: newHub(), mapFn: c.Map}
	r.live = newLive(r, sh.Tree, sh.Rate, s.conf.PumpEvery)
	s.add(r)
	return r
}

// AddRecording shows a recording (.btlog or .db3), ready to play.
func (s *Server) AddRecording(file string) error {
	_, err := s.addRecording(file)
	return err
}

func (s *Server) addRecording(file string) (*session, error) {
	r := &session{Name: filepath.Base(file), Kind: "replay", hub: newHub()}
	rp, err := newReplay(r, file)
	if err != nil {
		return nil, err
	}
	r.replay, r.tree, r.nodes = rp, rp.tree, describe(rp.tree)
	s.add(r)
	return r, nil
}

func (s *Server) run(id string) *session {
	n, err := strconv.Atoi(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || n < 1 || n > len(s.runs) {
		return nil
	}
	return s.runs[n-1]
}

// assetTypes are the page's files' types, named here rather than read from
// the system's mime.types: a module script whose type is not JavaScript is
// refused by the browser (the studio sends nosniff), and a system's table
// may say otherwise or nothing.
var assetTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".html": "text/html; charset=utf-8",
}

// pageAssets serves the page's embedded files with their types, and has
// the browser ask again each time (an embedded file has no date to
// revalidate with, and a new binary must not meet an old module).
func pageAssets(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Path
		if strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		if t, ok := assetTypes[path.Ext(name)]; ok {
			w.Header().Set("Content-Type", t)
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// handler routes the page and its API.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	sub, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /", pageAssets(http.FileServerFS(sub)))
	mux.HandleFunc("GET /api/runs", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		runs := append([]*session{}, s.runs...)
		s.mu.Unlock()
		writeJSON(w, map[string]any{"title": s.conf.Title, "control": s.conf.AllowControl, "runs": runs, "editor": s.editor != nil, "follow": s.conf.Follow,
			"server": s.shownServer() != nil})
	})
	mux.HandleFunc("GET /api/runs/{id}/tree", s.withRun(func(w http.ResponseWriter, r *http.Request, run *session) {
		writeJSON(w, map[string]any{"run": run, "nodes": run.nodes})
	}))
	mux.HandleFunc("GET /api/runs/{id}/events", s.withRun(func(w http.ResponseWriter, r *http.Request, run *session) {
		snap := run.snapshot
		serveEvents(w, r, run.hub, snap, s.done, s.conf.WriteTimeout)
	}))
	mux.HandleFunc("GET /api/runs/{id}/nodes/{uid}", s.withRun(func(w http.ResponseWriter, r *http.Request, run *session) {
		uid, err := strconv.Atoi(r.PathValue("uid"))
		if err != nil || uid < 1 || uid > len(run.nodes) {
			http.Error(w, "no such node", http.StatusNotFound)
			return
		}
		tn := run.nodes[uid-1]
		b := runtime.NodeOf(run.tree.Nodes()[uid-1])
		type portNow struct {
			portInfo
			Value json.RawMessage `json:"value"`
			shown
		}
		ports := []portNow{}
		for _, p := range tn.Ports {
			v := portValue(b, p)
			ports = append(ports, portNow{p, jsonValue(v), show(v)})
		}
		writeJSON(w, map[string]any{"node": tn, "ports": ports})
	}))
	mux.HandleFunc("GET /api/runs/{id}/timeline", s.withRun(func(w http.ResponseWriter, r *http.Request, run *session) {
		if run.replay == nil {
			writeJSON(w, []trans{})
			return
		}
		tl, err := run.replay.timeline()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, tl)
	}))
	mux.HandleFunc("GET /api/runs/{id}/map.svg", s.withRun(func(w http.ResponseWriter, r *http.Request, run *session) {
		if run.mapFn == nil {
			http.Error(w, "this run has no simulated world", http.StatusNotFound)
			return
		}
		var buf strings.Builder
		if err := run.mapFn(&buf); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, buf.String())
	}))
	mux.HandleFunc("POST /api/runs/{id}/replay", s.withRun(func(w http.ResponseWriter, r *http.Request, run *session) {
		var req struct {
			Op     string  `json:"op"`
			Offset float64 `json:"at_s"`
			Speed  float64 `json:"speed"`
		}
		if run.replay == nil {
			http.Error(w, "not a recording", http.StatusBadRequest)
			return
		}
		if !readJSON(w, r, 1<<16, true, &req) {
			return
		}
		if err := run.replay.control(req.Op, req.Offset, req.Speed); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]bool{"ok": true})
	}))
	mux.HandleFunc("POST /api/runs/{id}/control", s.withRun(s.control))
	s.serverRoutes(mux)
	if s.editor != nil {
		s.editor.routes(mux)
		s.launchRoutes(mux)
	}
	return s.guard(mux)
}

func (s *Server) withRun(f func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		run := s.run(r.PathValue("id"))
		if run == nil {
			http.Error(w, "no such run", http.StatusNotFound)
			return
		}
		f(w, r, run)
	}
}

func (r *session) snapshot() (uint64, []byte) {
	if r.live != nil {
		return r.live.snapshot()
	}
	return r.replay.snapshot()
}

// controlRequest is a debugging action of the page.
type controlRequest struct {
	// Op is "break" (UID, At "before" or "after", On), "force" (UID,
	// Status SUCCESS, FAILURE or IDLE to stop forcing), "pause", "step",
	// "resume" or "set" (Scope, Key, Value as typed).
	Op     string `json:"op"`
	UID    uint32 `json:"uid"`
	At     string `json:"at"`
	On     bool   `json:"on"`
	Status string `json:"status"`
	Scope  string `json:"scope"`
	Key    string `json:"key"`
	Value  string `json:"value"`
}

func (s *Server) control(w http.ResponseWriter, r *http.Request, run *session) {
	if !s.conf.AllowControl {
		http.Error(w, "control is off: start the studio with --allow-control to debug", http.StatusForbidden)
		return
	}
	if run.live == nil {
		http.Error(w, "a recording cannot be debugged", http.StatusBadRequest)
		return
	}
	var req controlRequest
	if !readJSON(w, r, 1<<16, true, &req) {
		return
	}
	if err := run.live.control(req, run.nodes); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	run.live.touch()
	writeJSON(w, run.live.dbg.state())
}

// control applies a page's debugging action.
func (l *live) control(req controlRequest, nodes []treeNode) error {
	needNode := func() error {
		if req.UID < 1 || int(req.UID) > len(nodes) {
			return fmt.Errorf("node %d: the tree has nodes 1 to %d", req.UID, len(nodes))
		}
		return nil
	}
	switch req.Op {
	case "break":
		if err := needNode(); err != nil {
			return err
		}
		if req.At != "before" && req.At != "after" {
			return fmt.Errorf("breakpoint at %q: want before or after", req.At)
		}
		l.dbg.setBreakpoint(req.UID, req.At, req.On)
	case "force":
		if err := needNode(); err != nil {
			return err
		}
		st, err := runtime.ParseStatus(req.Status)
		if err != nil || st == runtime.Running || st == runtime.Skipped {
			return fmt.Errorf("force %q: want SUCCESS, FAILURE, or IDLE to tick the node again", req.Status)
		}
		l.dbg.setForce(req.UID, st)
	case "pause":
		l.dbg.bp.Pause()
	case "step":
		l.dbg.bp.Continue(true)
	case "resume":
		l.dbg.bp.Continue(false)
	case "set":
		var bb *runtime.Blackboard
		for _, sc := range l.scope {
			if sc.name == req.Scope {
				bb = sc.bb
			}
		}
		if bb == nil {
			return fmt.Errorf("scope %q: the tree has no such blackboard", req.Scope)
		}
		if req.Key == "" {
			return errors.New("set: no key")
		}
		if err := bb.Assign(req.Key, parseValue(req.Value), true); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown operation %q: want break, force, pause, step, resume or set", req.Op)
	}
	l.debugChanged() // every page shows it, not only the one that asked
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

// readJSON decodes the request's body, one JSON value of at most limit
// bytes, into v (strict: no field v lacks). What is wrong is answered
// here, plainly (413 for a body too large, else 400), and ok is false.
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, strict bool, v any) (ok bool) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	var big *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return true
	case errors.As(err, &big):
		http.Error(w, fmt.Sprintf("request: the body is larger than the %d bytes this request may have", limit), http.StatusRequestEntityTooLarge)
		return false
	case errors.Is(err, io.EOF):
		err = errors.New("no body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = errors.New("the JSON ends early")
	case errors.As(err, &syn):
		err = fmt.Errorf("not JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		err = fmt.Errorf("%s is %s, not %s", cmpOr(typ.Field, "the body"), typ.Value, jsonKind(typ.Type))
	}
	http.Error(w, "request: "+err.Error(), http.StatusBadRequest)
	return false
}

// jsonKind names what JSON value t decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
