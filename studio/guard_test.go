package studio_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

// route is one route of the studio's API, with a body it takes.
type route struct {
	method, path, body string
}

// studioRoutes is every route of the studio: run 1 is live, run 2 a
// recording, the folder holds hello.xml.
var studioRoutes = []route{
	{"GET", "/", ""},
	{"GET", "/studio.js", ""},
	{"GET", "/api/runs", ""},
	{"GET", "/api/runs/1/tree", ""},
	{"GET", "/api/runs/1/events", ""},
	{"GET", "/api/runs/1/nodes/1", ""},
	{"GET", "/api/runs/2/timeline", ""},
	{"GET", "/api/runs/1/map.svg", ""},
	{"GET", "/api/files", ""},
	{"GET", "/api/palette", ""},
	{"GET", "/api/file?path=hello.xml", ""},
	{"GET", "/api/conditions", ""},
	{"GET", "/api/targets", ""},
	{"GET", "/api/run", ""},
	{"POST", "/api/runs/1/control", `{"op":"pause"}`},
	{"POST", "/api/runs/2/replay", `{"op":"speed","speed":2}`},
	{"POST", "/api/new", `{"path":"made.xml"}`},
	{"POST", "/api/check", `{"path":"hello.xml","doc":{"main":"X","trees":[]}}`},
	{"POST", "/api/save", `{"path":"saved.xml","doc":{"main":"X","trees":[]}}`},
	{"POST", "/api/script", `{"code":"x := 1"}`},
	{"POST", "/api/subtree", `{"path":"hello.xml","doc":{"main":"X","trees":[]}}`},
	{"POST", "/api/subtrees", `{"path":"hello.xml","doc":{"main":"X","trees":[]}}`},
	{"POST", "/api/run", `{"path":"hello.xml"}`}, // no profile: refused by Run itself, once past the door
	{"POST", "/api/run/stop", `{}`},
}

// guardRig is a studio with every kind of run and the editor: the live
// run's tree has a blackboard entry n = 1.
func guardRig(t *testing.T) (*studio.Server, string, *runtime.Tree, mission.Debugger) {
	t.Helper()
	dir := t.TempDir()
	copyMissionsTo(t, dir)
	srv := newServer(t, studio.Conf{AllowControl: true, Dir: dir})
	tree := bigTree(t, 12)
	require.NoError(t, tree.Blackboard().Set("n", 1.0))
	dbg, detach := attach(srv, tree)
	t.Cleanup(detach)
	require.NoError(t, srv.AddRecording(recordHello(t, 3)))
	return srv, dir, tree, dbg
}

// send makes one request to the studio at addr with the headers given
// (Host is the request's Host), and returns the status and the start of
// the answer (a stream of events is not read to its end).
func send(t *testing.T, addr string, rt route, hdr map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var body io.Reader
	if rt.body != "" {
		body = strings.NewReader(rt.body)
	}
	req, err := http.NewRequestWithContext(ctx, rt.method, "http://"+addr+rt.path, body)
	require.NoError(t, err)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b := make([]byte, 4096)
	n, _ := io.ReadAtLeast(resp.Body, b, 1)
	return resp.StatusCode, string(b[:n])
}

// TestStudioTakesRequestsFromItsOwnPageOnly: every route, asked as the
// studio's own page asks, as a client that is no browser, and as another
// site's page (a foreign Origin, a rebinding Host, a body a form or a
// no-cors fetch can send, a browser's request without its Origin). The
// door refuses what another page sends, and says why; what it lets
// through reaches the route.
func TestStudioTakesRequestsFromItsOwnPageOnly(t *testing.T) {
	srv, _, _, dbg := guardRig(t)
	t.Cleanup(func() { dbg.Resume() }) // the page's own pause, let through
	_, port, _ := net.SplitHostPort(srv.Addr())
	own := "127.0.0.1:" + port
	json := "application/json"
	type outcome int
	const (
		passes   outcome = iota // the route answers (whatever it says)
		refused                 // 403, the door says why
		badType                 // 415: not JSON
		readOnly                // passes for a read, refused for a change
	)
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want outcome
		// page: the outcome for the page and its files (not /api/), when it differs
		page *outcome
	}{
		{name: "the page: own Origin, JSON", hdr: map[string]string{"Origin": "http://" + own, "Content-Type": json}, want: passes},
		{name: "the page, its browser says same-origin without an Origin", hdr: map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Content-Type": json}, want: passes},
		{name: "the page as localhost", hdr: map[string]string{"Host": "localhost:" + port, "Origin": "http://localhost:" + port, "Content-Type": json}, want: passes},
		{name: "the page as [::1]", hdr: map[string]string{"Host": "[::1]:" + port, "Origin": "http://[::1]:" + port, "Content-Type": json}, want: passes},
		{name: "not a browser: no Origin, JSON", hdr: map[string]string{"Content-Type": json}, want: passes},
		{name: "JSON with a charset", hdr: map[string]string{"Origin": "http://" + own, "Content-Type": "application/json; charset=utf-8"}, want: passes},
		{name: "another origin", hdr: map[string]string{"Origin": "http://evil.example", "Content-Type": json}, want: refused},
		{name: "another port of this host", hdr: map[string]string{"Origin": "http://127.0.0.1:1", "Content-Type": json}, want: refused},
		{name: "an opaque origin (sandboxed frame, file://)", hdr: map[string]string{"Origin": "null", "Content-Type": json}, want: refused},
		{name: "a rebinding Host", hdr: map[string]string{"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port, "Content-Type": json}, want: refused},
		{name: "a rebinding Host without Origin", hdr: map[string]string{"Host": "evil.example:" + port, "Content-Type": json}, want: refused},
		{name: "a Host of another port", hdr: map[string]string{"Host": "127.0.0.1:1", "Content-Type": json}, want: refused},
		{name: "localhost with a trailing dot", hdr: map[string]string{"Host": "localhost.:" + port, "Content-Type": json}, want: refused},
		{name: "text/plain from the page's origin", hdr: map[string]string{"Origin": "http://" + own, "Content-Type": "text/plain"}, want: readOnly + badType},
		{name: "a form post", hdr: map[string]string{"Origin": "http://" + own, "Content-Type": "application/x-www-form-urlencoded"}, want: readOnly + badType},
		{name: "a multipart form", hdr: map[string]string{"Origin": "http://" + own, "Content-Type": "multipart/form-data; boundary=x"}, want: readOnly + badType},
		{name: "no content type", hdr: map[string]string{"Origin": "http://" + own}, want: readOnly + badType},
		{name: "text/plain, not a browser", hdr: map[string]string{"Content-Type": "text/plain"}, want: readOnly + badType},
		{name: "a browser's cross-site request without Origin", hdr: map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Content-Type": json}, want: refused, page: ptr(passes)},
		{name: "a browser's same-site request (another port) without Origin", hdr: map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Content-Type": json}, want: refused, page: ptr(passes)},
		{name: "a browser's request without Origin nor Sec-Fetch-Site", hdr: map[string]string{"Sec-Fetch-Mode": "no-cors", "Content-Type": json}, want: readOnly + refused},
		{name: "another site's Referer without Origin", hdr: map[string]string{"Referer": "http://evil.example/attack.html", "Content-Type": json}, want: readOnly + refused},
		{name: "the page's Referer without Origin", hdr: map[string]string{"Referer": "http://" + own + "/", "Content-Type": json}, want: passes},
	} {
		for _, rt := range studioRoutes {
			t.Run(tc.name+"/"+rt.method+" "+rt.path, func(t *testing.T) {
				want := tc.want
				isRead := rt.method == "GET"
				switch {
				case want >= readOnly && isRead:
					want = passes
				case want >= readOnly:
					want -= readOnly
				}
				if tc.page != nil && !strings.HasPrefix(rt.path, "/api/") {
					want = *tc.page
				}
				code, body := send(t, srv.Addr(), rt, tc.hdr)
				switch want {
				case passes:
					assert.NotContains(t, []int{http.StatusForbidden, http.StatusUnsupportedMediaType, http.StatusUnauthorized}, code, body)
				case refused:
					assert.Equal(t, http.StatusForbidden, code, body)
					assert.True(t, has(body, "this studio") && (has(body, "own page") || has(body, "answers to")), body)
				case badType:
					assert.Equal(t, http.StatusUnsupportedMediaType, code, body)
					assert.Contains(t, body, "application/json only")
				}
			})
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestAnotherPageChangesNothing: what another site's page would do —
// pause the robot, set a blackboard entry, overwrite a tree, make a file,
// start a run — with what a browser lets it send, leaves all as it was.
func TestAnotherPageChangesNothing(t *testing.T) {
	srv, dir, tree, dbg := guardRig(t)
	_, port, _ := net.SplitHostPort(srv.Addr())
	hello, err := os.ReadFile(filepath.Join(dir, "hello.xml"))
	require.NoError(t, err)
	attacks := map[string]map[string]string{
		"no-cors fetch, text/plain":    {"Origin": "http://127.0.0.1:1", "Content-Type": "text/plain;charset=UTF-8", "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors"},
		"form post":                    {"Origin": "http://evil.example", "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"},
		"rebinding name, JSON":         {"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"},
		"rebinding name, text/plain":   {"Host": "evil.example:" + port, "Origin": "http://evil.example:" + port, "Content-Type": "text/plain"},
		"foreign Origin, JSON (no ok)": {"Origin": "http://evil.example", "Content-Type": "application/json"},
	}
	for name, hdr := range attacks {
		t.Run(name, func(t *testing.T) {
			for _, rt := range []route{
				{"POST", "/api/runs/1/control", `{"op":"pause"}`},
				{"POST", "/api/runs/1/control", `{"op":"set","scope":"Big","key":"n","value":"2"}`},
				{"POST", "/api/save", `{"path":"hello.xml","doc":{"main":"X","trees":[{"id":"X","attrs":[],"root":{"type":"AlwaysFailure","attrs":[],"children":[]}}]}}`},
				{"POST", "/api/new", `{"path":"made.xml"}`},
				{"POST", "/api/run", `{"path":"hello.xml","profile":"btrobot:robots/sim.yaml","world":"btrobot:worlds/office"}`},
			} {
				code, body := send(t, srv.Addr(), rt, hdr)
				assert.Contains(t, []int{http.StatusForbidden, http.StatusUnsupportedMediaType}, code, "%s: %s", rt.path, body)
			}
			var runs struct {
				Runs []struct {
					Kind string `json:"kind"`
				} `json:"runs"`
			}
			getJSON(t, srv.Addr(), "/api/runs", &runs)
			assert.Len(t, runs.Runs, 2, "no run started")
			now, err := os.ReadFile(filepath.Join(dir, "hello.xml"))
			require.NoError(t, err)
			assert.Equal(t, string(hello), string(now), "hello.xml as it was")
			assert.NoFileExists(t, filepath.Join(dir, "made.xml"))
			assert.False(t, dbg.Paused(), "not paused")
			n, ok := tree.Blackboard().Get("n")
			assert.True(t, ok)
			assert.Equal(t, 1.0, n, "the blackboard as it was")
		})
	}
}
