package studio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/inproc"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/trees"
)

const (
	officeWorld = "../worlds/office"
	simProfile  = "../robots/sim.yaml"
	missionsDir = "../trees/missions"
	// chromium is Debian's browser; headlessShell is Debian's build of
	// the same Chromium as its headless shell (package
	// chromium-headless-shell): the same Blink and V8, without the
	// browser's own UI, extensions and services. The studio's tests cost
	// chromium 50 core-s a run in the shell, 110 in the browser (measured
	// one after the other; a blank tab: 0.34 against 1.4 core-s).
	chromium      = "/usr/bin/chromium"
	headlessShell = "/usr/bin/chromium-headless-shell"
)

// browser returns a tab of Debian's Chromium, headless, for the test.
//
// A test gets a browser context of its own (a fresh profile: storage,
// cookies and cache, gone when the test ends) in one chromium-headless-shell
// the package's tests share: starting one costs ~3 core-seconds, which a
// browser per test paid two dozen times a run.
//
// A test that needs chromium started with extra options (the guard's
// tests, which check what a browser lets one site do to another), and
// every benchmark (what a user's browser draws), get a chromium browser
// of their own.
//
// A missing binary is a failure under CI=true.
func browser(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	_, bench := t.(*testing.B)
	path, pkg := headlessShell, "chromium-headless-shell"
	if len(extra) > 0 || bench {
		path, pkg = chromium, "chromium"
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("needs Debian's %s (apt-get install %s; scripts/test installs it)", pkg, pkg)
		if os.Getenv("CI") == "true" {
			require.FailNow(t, msg+" (CI=true, so this fails instead of skipping)")
		}
		t.Skip(msg)
	}
	if path == chromium {
		ctx, stop := startChromium(chromium, t.TempDir(), extra...)
		t.Cleanup(stop)
		require.NoError(t, chromedp.Do(ctx), "chromium did not start")
		require.NoError(t, quiet(ctx))
		return ctx
	}
	parent, err := sharedChromium.get()
	require.NoError(t, err, "chromium-headless-shell did not start")
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx), "chromium-headless-shell opened no tab")
	require.NoError(t, quiet(ctx))
	return ctx
}

// quiet turns off the DevTools domains that chromedp enables on every tab
// and no test reads: Network (an event per request and response, each
// encoded by chromium and decoded by the test under the race detector),
// CSS (a stylesheet event per sheet, and the style tracking behind it)
// and Log. Runtime, Page and DOM stay: evaluating, navigating and the
// selector queries need them.
func quiet(ctx context.Context) error {
	for _, off := range []cdp.Command[cdp.Empty, cdp.Empty]{network.Disable, css.Disable, cdplog.Disable} {
		if _, err := chromedp.Call(ctx, off, cdp.Empty{}); err != nil {
			return fmt.Errorf("%s: %w", off.Method, err)
		}
	}
	return nil
}

// startChromium starts the chromium binary at path on the profile in dir;
// stop ends it.
func startChromium(path, dir string, extra ...chromedp.ExecAllocatorOption) (ctx context.Context, stop func()) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1500, 950),
	}
	opts = append(opts, extra...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	return ctx, func() {
		cancelC()
		cancelA()
	}
}

// sharedChromium is the package's chromium, started by the first test that
// asks for a browser and ended by TestMain after the last.
var sharedChromium chromiumOnce

type chromiumOnce struct {
	mu   sync.Mutex
	ctx  context.Context // the first tab, which keeps the browser
	stop func()
	dir  string
	err  error
}

func (c *chromiumOnce) get() (context.Context, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx != nil || c.err != nil {
		return c.ctx, c.err
	}
	c.dir, c.err = os.MkdirTemp("", "studio-chromium-")
	if c.err != nil {
		return nil, c.err
	}
	c.ctx, c.stop = startChromium(headlessShell, c.dir)
	if c.err = chromedp.Do(c.ctx); c.err != nil {
		c.close()
	}
	return c.ctx, c.err
}

// close ends the browser, if one was started, and removes its profile.
func (c *chromiumOnce) close() {
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	if c.dir != "" {
		os.RemoveAll(c.dir) //nolint:errcheck
		c.dir = ""
	}
	if c.err == nil {
		c.ctx = nil
	}
}

// within runs chromedp actions with a deadline.
func within(t testing.TB, ctx context.Context, d time.Duration, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	require.NoError(t, chromedp.Do(c, actions...))
}

// eval returns a JavaScript expression's value.
func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "evaluating %s", js)
	return v
}

// waitJS polls a JavaScript expression until it is true, for at most d.
func waitJS(t testing.TB, ctx context.Context, d time.Duration, js, what string) {
	t.Helper()
	require.True(t, waitFor(t, ctx, d, js), "waited %v for %s (%s)", d, what, js)
}

// waitFor polls a JavaScript expression with testify's Eventually until it
// is true, and says whether it became so within d, leaving the failure
// (and what to print with it) to the caller. An expression that cannot be
// evaluated fails the test at once.
func waitFor(t testing.TB, ctx context.Context, d time.Duration, js string) bool {
	t.Helper()
	var mu sync.Mutex
	var evalErr error
	// A CollectT keeps Eventually's "Condition never satisfied" out of the
	// test: the caller says what did not happen.
	ok := assert.Eventually(new(assert.CollectT), func() bool {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		v, err := chromedp.Run(c, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		if err != nil {
			mu.Lock()
			evalErr = err
			mu.Unlock()
			return true // stop polling: reported below
		}
		return v
	}, d, 50*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	require.NoError(t, evalErr, "evaluating %s", js)
	return ok
}

// screenshot writes the page to docs/img/NAME.png when
// UPDATE_SCREENSHOTS=1; the test checks everything else without it.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return
	}
	time.Sleep(300 * time.Millisecond)
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("..", "docs", "img", name+".png"), png, 0o644))
}

// simRig is btrobot's simulator on the office world at real time, on a
// master of its own, with a separate subscriber of robot1's cmd_vel.
type simRig struct {
	uri  string
	node *simnode.Node
	*cmdVelWatcher

	logs []string // the mission's log lines, under the watcher's mu
}

func startSim(t *testing.T) *simRig {
	t.Helper()
	r := &simRig{uri: rostest.StartMaster(t)}
	w, err := sim.LoadWorld(officeWorld, sim.WorldConf{Seed: 1})
	require.NoError(t, err)
	sp, _ := w.Places().Spawn("robot1")
	_, err = w.AddRobot(sim.RobotConf{Name: "robot1", Spawn: sp.Pose})
	require.NoError(t, err)
	conn, err := ros.Connect(ros.Conf{MasterURI: r.uri, Host: "127.0.0.1", Name: "sim"})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	r.node, err = simnode.Start(simnode.Conf{World: w, Conn: conn, Speed: 1})
	require.NoError(t, err)
	t.Cleanup(func() { r.node.Close() })
	r.cmdVelWatcher = watchCmdVel(t, r.uri)
	return r
}

// freeze stops (or restarts) the messages of one of robot1's topics.
func (r *simRig) freeze(t *testing.T, topic string, on bool) {
	t.Helper()
	require.NoError(t, r.node.Do(func(w *sim.World) error {
		rb := w.Robots()[0]
		f := rb.TopicFault(topic)
		f.Frozen = on
		return rb.SetTopicFault(topic, f)
	}))
}

// cmdVelWatcher is a separate ROS node subscribed to robot1's cmd_vel on
// the master at uri: what reaches the robot, not what was sent.
type cmdVelWatcher struct {
	mu   sync.Mutex
	cmds []geometry_msgs.Twist
	odom int // robot1's odometry messages received: the watcher is on the graph
}

func watchCmdVel(t *testing.T, uri string) *cmdVelWatcher {
	t.Helper()
	w := &cmdVelWatcher{}
	conn, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: "cmd_vel_watcher"})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, err = ros.Subscribe(conn, "/robot1/cmd_vel", func(m *geometry_msgs.Twist) {
		w.mu.Lock()
		w.cmds = append(w.cmds, *m)
		w.mu.Unlock()
	})
	require.NoError(t, err)
	_, err = ros.Subscribe(conn, "/robot1/odom", func(*nav_msgs.Odometry) {
		w.mu.Lock()
		w.odom++
		w.mu.Unlock()
	})
	require.NoError(t, err)
	return w
}

// ready reports whether the watcher hears the simulator: its links to the
// graph's publishers are up.
func (w *cmdVelWatcher) ready() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.odom > 0
}

// zeroSince reports whether a Twist after the first skip that reached the
// watcher was zero.
func (w *cmdVelWatcher) zeroSince(skip int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range w.cmds[min(skip, len(w.cmds)):] {
		if c == (geometry_msgs.Twist{}) {
			return true
		}
	}
	return false
}

// zero reports whether a zero Twist reached the watcher.
func (w *cmdVelWatcher) zero() bool { return w.zeroSince(0) }

// count is how many Twists reached the watcher.
func (w *cmdVelWatcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.cmds)
}

// running is a mission running on the rig, shown by a studio.
type running struct {
	srv  *studio.Server
	stop context.CancelFunc
	done chan struct{} // closed when the run ended, with rep
	rep  mission.Report
	tick func() uint64
}

// ended waits for the run's end and returns its report.
func (r *running) ended(t *testing.T) mission.Report {
	t.Helper()
	select {
	case <-r.done:
		return r.rep
	case <-time.After(20 * time.Second):
		require.FailNow(t, "the run did not end")
		return mission.Report{}
	}
}

// runPatrol runs the patrol mission on the rig with srv as its debugger;
// it returns once the run ticks.
func runPatrol(t *testing.T, r *simRig, srv *studio.Server) *running {
	t.Helper()
	m, err := mission.Load(mission.LoadConf{Tree: missionsDir + "/patrol.xml", Profile: simProfile, Places: officeWorld})
	require.NoError(t, err)
	var mu sync.Mutex
	var seq uint64
	rc := mission.RunConf{
		Mission: m, Seed: 1,
		ROS: ros.Conf{MasterURI: r.uri, Host: "127.0.0.1", Namespace: "/robot1", Name: "btrobot"},
		Log: func(line string) { r.mu.Lock(); r.logs = append(r.logs, line); r.mu.Unlock() },
		OnTick: func(_ *runtime.Tree, tr runtime.TickReport) (string, bool) {
			mu.Lock()
			seq = tr.Seq
			mu.Unlock()
			return "", false
		},
		Debugger: srv.Debugger(studio.LiveConf{Name: "robot1", Map: r.node.WriteSVG}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &running{srv: srv, stop: cancel, done: make(chan struct{}), tick: func() uint64 { mu.Lock(); defer mu.Unlock(); return seq }}
	go func() {
		defer close(run.done)
		rep, err := mission.Run(ctx, rc)
		if err != nil {
			rep.Why = err.Error()
		}
		run.rep = rep
	}()
	t.Cleanup(func() {
		cancel()
		run.ended(t)
	})
	require.Eventually(t, func() bool { return run.tick() >= 5 }, 30*time.Second, 20*time.Millisecond, "the mission did not tick")
	return run
}

// newServer starts a studio on a free loopback port (or addr).
func newServer(t *testing.T, conf studio.Conf) *studio.Server {
	t.Helper()
	if conf.Addr == "" {
		conf.Addr = "127.0.0.1:0"
	}
	srv, err := studio.New(conf)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
	return srv
}

// offlineTree builds a tree of the shipped palette with no robot, on a
// manual clock.
func offlineTree(t *testing.T, file string) (*runtime.Tree, *runtime.Document, *runtime.ManualClock) {
	t.Helper()
	doc, err := trees.Load(file)
	require.NoError(t, err)
	clock := runtime.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	tree, err := runtime.Build(mission.Nodes(), doc, runtime.BuildConf{Clock: clock, Blackboard: runtime.NewBlackboard(clock.Now)})
	require.NoError(t, err)
	tree.SetExplaining(true)
	return tree, doc, clock
}

// recordHello records ticks of hello.xml, one simulated second apart, to
// a SQLite recording, and returns its path.
func recordHello(t *testing.T, ticks int) string {
	t.Helper()
	tree, doc, clock := offlineTree(t, missionsDir+"/hello.xml")
	path := filepath.Join(t.TempDir(), "hello.db3")
	rec, err := record.New(record.Conf{Path: path, Tree: tree, Document: doc, Palette: mission.Nodes(), Reason: func(b *runtime.Base) string { return b.Reason() }})
	require.NoError(t, err)
	detach := rec.Attach()
	for i := 1; i <= ticks; i++ {
		clock.Advance(time.Second)
		start := clock.Now()
		st, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		rec.OnTick(runtime.TickReport{Seq: uint64(i), Start: start, Status: st})
	}
	detach()
	require.NoError(t, rec.Close())
	return path
}

// jsq quotes a string for JavaScript.
func jsq(s string) string { return fmt.Sprintf("%q", s) }

// has reports whether s holds every part.
func has(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

var _ = exec.Command

// getJSON reads a JSON answer of the studio at addr.
func getJSON(t testing.TB, addr, path string, v any) {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.NoError(t, json.Unmarshal(body, v), string(body))
}

// postJSON posts body to the studio at addr; the status and the answer.
func postJSON(t testing.TB, addr, path string, body any) (int, []byte) {
	t.Helper()
	data, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(string(data)))
	require.NoError(t, err)
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// fileDoc is the page's view of a file of the folder: its trees as
// GET /api/file gives them.
func fileDoc(t testing.TB, srv *studio.Server, name string) json.RawMessage {
	t.Helper()
	var got struct {
		Doc json.RawMessage `json:"doc"`
	}
	getJSON(t, srv.Addr(), "/api/file?path="+url.QueryEscape(name), &got)
	return got.Doc
}

// copyMissionsTo copies the shipped missions into dir.
func copyMissionsTo(tb testing.TB, dir string) {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(missionsDir, "*.xml"))
	require.NoError(tb, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(tb, err)
		require.NoError(tb, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
	}
}

// writeIn writes content to name (slash-separated) under dir, making its
// folders, and returns its path.
func writeIn(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// executeClient joins graph as "client" with an action client of the
// mission server's /btrobot/execute, connected to the server.
func executeClient(t *testing.T, graph *inproc.Graph) (*ros.Conn, *ros.ActionClient) {
	t.Helper()
	cconn, err := ros.Connect(ros.Conf{Graph: graph, Name: "client"})
	require.NoError(t, err)
	t.Cleanup(func() { cconn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, err := executor.DialExecute(ctx, cconn, "/btrobot/execute")
	require.NoError(t, err)
	return cconn, client
}
