package studio_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// post sends a control request to run 1, with a token when given, and
// returns the status code and the body.
func post(t *testing.T, addr, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", "http://"+addr+"/api/runs/1/control", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestStudioRefusesControlItWasNotGiven: control needs AllowControl, and on
// an address beyond loopback every request needs the token printed at
// start; what is refused says why.
func TestStudioRefusesControlItWasNotGiven(t *testing.T) {
	pause := `{"op":"pause"}`
	for _, tc := range []struct {
		name     string
		conf     studio.Conf
		token    func(*studio.Server) string
		body     string
		want     int
		saying   string
		holdsRun bool // the pause took: the next tick is held
	}{
		{name: "loopback, read-only: refused", conf: studio.Conf{}, body: pause, want: http.StatusForbidden, saying: "--allow-control"},
		{name: "loopback with control: allowed", conf: studio.Conf{AllowControl: true}, body: pause, want: http.StatusOK, holdsRun: true},
		{name: "beyond loopback without the token: refused", conf: studio.Conf{Addr: "0.0.0.0:0", AllowControl: true}, body: pause, want: http.StatusUnauthorized, saying: "token"},
		{name: "beyond loopback with a wrong token: refused", conf: studio.Conf{Addr: "0.0.0.0:0", AllowControl: true},
			token: func(*studio.Server) string { return "not-the-token" }, body: pause, want: http.StatusUnauthorized, saying: "token"},
		{name: "beyond loopback with the token: allowed", conf: studio.Conf{Addr: "0.0.0.0:0", AllowControl: true},
			token: (*studio.Server).Token, body: pause, want: http.StatusOK, holdsRun: true},
		{name: "beyond loopback with the token but read-only: refused", conf: studio.Conf{Addr: "0.0.0.0:0"},
			token: (*studio.Server).Token, body: pause, want: http.StatusForbidden, saying: "--allow-control"},
		{name: "an unknown operation: what would be right", conf: studio.Conf{AllowControl: true}, body: `{"op":"explode"}`,
			want: http.StatusBadRequest, saying: "want break, force, pause, step, resume or set"},
		{name: "a breakpoint on a node the tree lacks", conf: studio.Conf{AllowControl: true}, body: `{"op":"break","uid":999,"at":"before","on":true}`,
			want: http.StatusBadRequest, saying: "the tree has nodes 1 to"},
		{name: "a forced RUNNING", conf: studio.Conf{AllowControl: true}, body: `{"op":"force","uid":1,"status":"RUNNING"}`,
			want: http.StatusBadRequest, saying: "want SUCCESS, FAILURE, or IDLE"},
		{name: "a value of the wrong type", conf: studio.Conf{AllowControl: true}, body: `{"op":"set","scope":"Big","key":"n","value":"\"text\""}`,
			want: http.StatusBadRequest, saying: "n"},
		{name: "not JSON", conf: studio.Conf{AllowControl: true}, body: `pause`, want: http.StatusBadRequest, saying: "request:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.conf)
			tree := bigTree(t, 12)
			require.NoError(t, tree.Blackboard().Set("n", 1.0))
			dbg, detach := attach(srv, tree)
			defer detach()
			addr := srv.Addr()
			if strings.HasPrefix(addr, "0.0.0.0:") || strings.HasPrefix(addr, "[::]:") {
				_, port, _ := net.SplitHostPort(addr)
				addr = "127.0.0.1:" + port
			}
			token := ""
			if tc.token != nil {
				token = tc.token(srv)
			}
			code, body := post(t, addr, token, tc.body)
			assert.Equal(t, tc.want, code, body)
			assert.Contains(t, body, tc.saying)
			held := make(chan struct{})
			go func() { defer close(held); tick(t, tree, dbg, 1) }()
			select {
			case <-held:
				assert.False(t, tc.holdsRun, "the tick was not held")
			case <-time.After(300 * time.Millisecond):
				assert.True(t, tc.holdsRun, "a refused pause held the tick")
				assert.True(t, dbg.Paused())
				dbg.Resume()
				<-held
			}
		})
	}
}

// TestStudioPageOffersNoControlWithoutIt: the read-only page says so and
// has no debugging buttons; the page opened with the printed URL beyond
// loopback works, and without the token it gets nothing.
func TestStudioPageOffersNoControlWithoutIt(t *testing.T) {
	ctx := browser(t)
	t.Run("read-only on loopback", func(t *testing.T) {
		srv := newServer(t, studio.Conf{})
		tree := bigTree(t, 12)
		_, detach := attach(srv, tree)
		defer detach()
		within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
		waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 12`, "the tree")
		assert.True(t, eval[bool](t, ctx, `document.querySelector('#debug').hidden`), "no pause, step, resume")
		assert.False(t, eval[bool](t, ctx, `document.querySelector('#readonly').hidden`), "read-only said")
		eval[bool](t, ctx, `document.querySelector('g.node[data-uid="1"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))`)
		waitJS(t, ctx, 5*time.Second, `!!document.querySelector('#node-type')`, "the node panel")
		assert.False(t, eval[bool](t, ctx, `!!document.querySelector('#bp-before')`), "no breakpoint buttons")
	})
	t.Run("beyond loopback: the token opens it", func(t *testing.T) {
		srv := newServer(t, studio.Conf{Addr: "0.0.0.0:0", AllowControl: true})
		tree := bigTree(t, 12)
		_, detach := attach(srv, tree)
		defer detach()
		_, port, _ := net.SplitHostPort(srv.Addr())
		require.NotEmpty(t, srv.Token())
		within(t, ctx, 20*time.Second, chromedp.Navigate("http://127.0.0.1:"+port+"/api/runs"))
		assert.Contains(t, eval[string](t, ctx, `document.body.textContent`), "token", "refused without the token")
		within(t, ctx, 20*time.Second, chromedp.Navigate("http://127.0.0.1:"+port+"/?token="+srv.Token()))
		waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 12`, "the tree, with the token kept in a cookie")
		assert.False(t, eval[bool](t, ctx, `document.querySelector('#debug').hidden`), "debugging offered")
	})
}

// TestStudioShowsEachRobotOfAFleet: two runs on one studio (as a fleet's
// robots get, one per RunConf) are listed at the top of the page; choosing
// one draws its tree.
func TestStudioShowsEachRobotOfAFleet(t *testing.T) {
	srv := newServer(t, studio.Conf{})
	small, big := bigTree(t, 12), bigTree(t, 40)
	_, d1 := attach(srv, small)
	defer d1()
	_, d2 := attach(srv, big)
	defer d2()
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(srv.URL()))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 12`, "the first robot's tree")
	assert.Equal(t, 2, eval[int](t, ctx, `document.querySelectorAll('#runs option').length`))
	eval[bool](t, ctx, `(() => { const s = document.querySelector('#runs'); s.value = '2'; s.dispatchEvent(new Event('change')); return true })()`)
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 40`, "the second robot's tree")
}
