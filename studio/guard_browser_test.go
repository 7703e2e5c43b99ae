package studio_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// attackPage is another origin's page (a second server on another port)
// that tries what a browser lets any page do to the studio at %[1]s: a
// no-cors fetch (text/plain), a form post shaped as JSON, a fetch with
// text/plain, and one with JSON (its preflight refused). window.tried
// counts the attempts that came back (whatever their answer).
const attackPage = `<!doctype html><title>another site</title>
<iframe name="sink" id="sink"></iframe>
<script>
window.tried = 0;
const done = () => { window.tried++; };
const studio = %[1]q;
fetch(studio + '/api/runs/1/control', {method: 'POST', mode: 'no-cors', body: '{"op":"resume"}'}).then(done, done);
fetch(studio + '/api/runs/1/control', {method: 'POST', headers: {'Content-Type': 'text/plain'}, body: '{"op":"set","scope":"Big","key":"n","value":"2"}'}).then(done, done);
fetch(studio + '/api/runs/1/control', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"op":"resume"}'}).then(done, done);
const f = document.createElement('form');
f.method = 'POST'; f.enctype = 'text/plain'; f.target = 'sink';
f.action = studio + '/api/runs/1/control';
const i = document.createElement('input');
i.name = '{"op":"set","scope":"Big","key":"n","value":"3","x":"'; i.value = '"}';
f.appendChild(i); document.body.appendChild(f);
document.getElementById('sink').onload = done;
f.submit();
</script>`

// TestAnotherSitesPageCannotDriveTheRobot: in chromium, the studio's page
// shows a paused tree; a page of another origin (a server on another
// port) tries to resume it and to write the blackboard in every way a
// browser lets it, then a page under a name rebound to this machine tries
// it as a same-origin page. After each the tree is still paused, and the
// studio's page says so; the blackboard is as it was.
func TestAnotherSitesPageCannotDriveTheRobot(t *testing.T) {
	srv := newServer(t, studio.Conf{AllowControl: true})
	tree := bigTree(t, 12)
	require.NoError(t, tree.Blackboard().Set("n", 1.0))
	dbg, detach := attach(srv, tree)
	defer detach()
	_, port, _ := net.SplitHostPort(srv.Addr())
	studioURL := "http://127.0.0.1:" + port

	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, attackPage, studioURL)
	}))
	defer attacker.Close()

	// The rebinding name: chromium resolves it to this machine.
	ctx := browser(t, chromedp.Flag("host-resolver-rules", "MAP rebound.test 127.0.0.1"))
	within(t, ctx, 20*time.Second, chromedp.Navigate(studioURL+"/"))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('g.node').length === 12`, "the tree")
	code, body := postJSON(t, srv.Addr(), "/api/runs/1/control", map[string]any{"op": "pause"})
	require.Equal(t, http.StatusOK, code, string(body))
	held := make(chan struct{})
	go func() { defer close(held); tick(t, tree, dbg, 1) }()
	defer func() { dbg.Resume(); <-held }()
	paused := `!document.querySelector('#paused-banner').hidden`
	waitJS(t, ctx, 10*time.Second, paused, "the page shows the tree paused")

	// unchanged checks, after an attack, that the tick is still held and
	// the studio's page shows it so; the blackboard is as it was.
	unchanged := func(t *testing.T) {
		select {
		case <-held:
			require.FailNow(t, "the held tick went on: another page resumed the tree")
		default:
		}
		assert.True(t, dbg.Paused(), "still paused")
		n, _ := tree.Blackboard().Get("n")
		assert.Equal(t, 1.0, n, "the blackboard as it was")
		within(t, ctx, 20*time.Second, chromedp.Navigate(studioURL+"/"))
		waitJS(t, ctx, 10*time.Second, paused, "the studio's page, opened again, shows the tree paused still")
	}

	t.Run("a page of another origin", func(t *testing.T) {
		tab := ctx
		within(t, tab, 20*time.Second, chromedp.Navigate(attacker.URL))
		waitJS(t, tab, 20*time.Second, `window.tried === 4`, "every attempt answered")
		unchanged(t)
	})
	t.Run("a page under a rebound name, same-origin to the browser", func(t *testing.T) {
		tab := ctx
		within(t, tab, 20*time.Second, chromedp.Navigate("http://rebound.test:"+port+"/"))
		assert.Contains(t, eval[string](t, tab, `document.body.textContent`), "rebinding", "the studio's page refused under that name")
		got := eval[string](t, tab, `(async () => {
			const files = await fetch('/api/runs');
			const resume = await fetch('/api/runs/1/control', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"op":"resume"}'});
			const set = await fetch('/api/runs/1/control', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"op":"set","scope":"Big","key":"n","value":"4"}'});
			return [files.status, resume.status, set.status].join(' ');
		})()`)
		assert.Equal(t, "403 403 403", got)
		unchanged(t)
	})
}
