package studio_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/inproc"
	"github.com/btrobot/btrobot/studio"
)

// serverMissions: Wait runs until halted; Short runs until /release says
// "go" (so the test, not a timer, decides when it ends), at a pace its
// payload gives.
const serverMissions = `<root BTCPP_format="4">
  <BehaviorTree ID="Wait"><Sequence name="wait"><Sleep name="long" msec="3600000"/></Sequence></BehaviorTree>
  <BehaviorTree ID="Short">
    <RetryUntilSuccessful name="until_released" num_attempts="-1">
      <Sequence name="look">
        <Sleep name="pace" msec="{pace}"/>
        <TopicCondition name="released" topic="/release" msg_type="std_msgs/String" script="msg.data == 'go'"/>
      </Sequence>
    </RetryUntilSuccessful>
  </BehaviorTree>
</root>`

// watchedServer is a mission server on the in-process graph shown by a
// studio as btrobot serve --ui shows it (Conf.Show, Conf.Changed,
// ShowServer(ServerFrom)), with a client of its action.
type watchedServer struct {
	srv    *executor.Server
	page   *studio.Server
	client *ros.ActionClient
	cconn  *ros.Conn
	ended  chan error
	goals  context.Context
	sent   int
}

func watchServer(t *testing.T, control bool, recordDir string) *watchedServer {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "missions.xml"), []byte(serverMissions), 0o644))
	cat, err := executor.LoadCatalog(executor.CatalogConf{Dir: dir})
	require.NoError(t, err)
	graph := inproc.NewGraph()
	conn, err := ros.Connect(ros.Conf{Graph: graph, Name: "btrobot"})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	page := newServer(t, studio.Conf{Follow: true, Title: "btrobot serve", AllowControl: control})
	srv, err := executor.New(executor.Conf{Conn: conn, Catalog: cat, RecordDir: recordDir, Changed: page.ServerChanged,
		Show: func(name string) func(mission.Shown) mission.Debugger {
			return page.Debugger(studio.LiveConf{Name: name})
		}})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	require.NoError(t, page.ShowServer(studio.ServerFrom(srv)))
	cconn, client := executeClient(t, graph)
	goals, stop := context.WithCancel(context.Background())
	w := &watchedServer{srv: srv, page: page, client: client, cconn: cconn, ended: make(chan error, 16), goals: goals}
	t.Cleanup(func() {
		stop()
		for range w.sent {
			<-w.ended
		}
	})
	return w
}

// send sends a goal; its end comes on w.ended.
func (w *watchedServer) send(m, payload string) {
	w.sent++
	go func() {
		_, err := w.client.Run(w.goals, &ros.ExecuteMissionActionGoal{Mission: m, Payload: payload}, ros.GoalConf{})
		w.ended <- err
	}()
}

// apiServer reads /api/server.
func apiServer(t *testing.T, page *studio.Server) (executor.View, bool) {
	t.Helper()
	resp, err := http.Get(page.URL() + "api/server")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct {
		Server  executor.View `json:"server"`
		Control bool          `json:"control"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return body.Server, body.Control
}

// TestStudioShowsTheMissionServer: btrobot serve --ui --allow-control
// --record-dir in chromium. The server panel shows the server idle, then
// running the first goal; a second goal preempts it (the first in the
// history PREEMPTED, "preempted by Short"; the second running); Pause
// server holds it (the panel says paused, as /api/server does) and Resume
// lets it go; an unknown mission is REJECTED with a did-you-mean; the
// second goal ends SUCCESS; the first goal's recording opens as a replay.
func TestStudioShowsTheMissionServer(t *testing.T) {
	w := watchServer(t, true, t.TempDir())
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(w.page.URL()))
	panel := func(js, what string) { t.Helper(); waitJS(t, ctx, 15*time.Second, js, what) }
	panel(`document.querySelector('#server-state').dataset.state === 'idle' && !document.querySelector('#server-box').hidden`, "the panel, idle")
	v, control := apiServer(t, w.page)
	assert.Equal(t, "idle", v.State)
	assert.True(t, control)

	w.send("Wait", "")
	panel(`document.querySelector('#server-state').textContent.startsWith('running Wait · goal 1 since')`, "the first goal running")
	waitJS(t, ctx, 15*time.Second, `!!document.querySelector('g.node[data-path="Wait/wait/long"]')`, "the first goal's tree")

	w.send("Short", "pace: 20")
	panel(`document.querySelector('#server-state').textContent.startsWith('running Short · goal 2')`, "the second goal running")
	panel(`(() => { const li = document.querySelector('#server-history li[data-goal="1"]');
		return !!li && li.dataset.outcome === 'PREEMPTED' && li.textContent.includes('preempted by Short') })()`, "the first goal PREEMPTED by the second")
	assert.Equal(t, "PREEMPTED", eval[string](t, ctx, `document.querySelector('#server-history > li').dataset.outcome`), "the newest first")
	assert.Contains(t, eval[string](t, ctx, `document.querySelector('#server-running').textContent`), "payload · 8 bytes")
	waitJS(t, ctx, 15*time.Second, `!!document.querySelector('g.node[data-path="Short/until_released/look/released"]')`, "the page follows to the second goal's tree")

	clickWhenReady(t, ctx, `#server-pause`)
	panel(`document.querySelector('#server-state').dataset.state === 'paused' && document.querySelector('#server-state').textContent.startsWith('paused Short · goal 2')`, "the panel says paused")
	v, _ = apiServer(t, w.page)
	assert.Equal(t, "paused", v.State)
	assert.Equal(t, "Short", v.Mission)
	clickWhenReady(t, ctx, `#server-resume`)
	panel(`document.querySelector('#server-state').dataset.state === 'running'`, "the panel says running again")

	w.send("Shortt", "")
	panel(`(() => { const li = document.querySelector('#server-history li[data-outcome="REJECTED"]');
		return !!li && li.textContent.includes('did you mean Short') })()`, "the unknown mission REJECTED with a did-you-mean")

	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: w.cconn, Topic: "/release", Msg: &std_msgs.String{}})
	require.NoError(t, err)
	t.Cleanup(pub.Close)
	require.Eventually(t, func() bool {
		_ = pub.Publish(&std_msgs.String{Data: "go"})
		return w.srv.Status().State == "idle"
	}, 20*time.Second, 50*time.Millisecond, "Short ends once released")
	panel(`(() => { const li = document.querySelector('#server-history li[data-goal="2"]');
		return !!li && li.dataset.outcome === 'SUCCESS' && document.querySelector('#server-state').dataset.state === 'idle' })()`, "the second goal SUCCESS, the server idle")
	v, _ = apiServer(t, w.page)
	require.Len(t, v.History, 3)
	assert.Equal(t, []string{executor.OutcomeSuccess, executor.OutcomeRejected, executor.OutcomePreempted},
		[]string{v.History[0].Outcome, v.History[1].Outcome, v.History[2].Outcome}, "newest first")
	assert.Equal(t, "pace: 20", v.History[0].Payload)
	assert.Positive(t, v.History[0].Duration)
	assert.True(t, strings.HasSuffix(v.History[2].Recording, "-Wait.db3"), v.History[2].Recording)
	// The chain that explains a success is drawn in success's colour, not
	// in failure's.
	panel(`(() => { const why = [...document.querySelectorAll('g.node.why rect.box')];
		const ok = getComputedStyle(document.documentElement).getPropertyValue('--SUCCESS').trim();
		const probe = document.createElement('div'); probe.style.color = ok; document.body.appendChild(probe);
		const want = getComputedStyle(probe).color; probe.remove();
		return why.length > 0 && why.every(r => getComputedStyle(r).stroke === want) })()`, "the success's chain in the success colour")
	screenshot(t, ctx, "studio-server")

	clickWhenReady(t, ctx, `#server-history li[data-goal="1"] button.replay`)
	panel(`document.querySelector('#runs').selectedOptions[0].textContent.startsWith('recording · ') &&
		document.querySelector('#runs').selectedOptions[0].textContent.endsWith('-Wait.db3')`, "the first goal's recording opened")
	waitJS(t, ctx, 15*time.Second, `!document.querySelector('#replay').hidden && !!document.querySelector('g.node[data-path="Wait/wait/long"]')`, "its tree, to replay")
}

// clickWhenReady clicks the element a selector finds, once it is there.
func clickWhenReady(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	q, err := json.Marshal(sel)
	require.NoError(t, err)
	waitJS(t, ctx, 10*time.Second, `(() => { const b = document.querySelector(`+string(q)+`); if (!b || b.disabled) return false; b.click(); return true })()`, "clicking "+sel)
}

// TestServerAPI: /api/server and its requests, as a tool (no browser)
// uses them: the state as JSON and as events, control refused when the
// studio is read-only, and what is wrong said plainly.
func TestServerAPI(t *testing.T) {
	post := func(t *testing.T, page *studio.Server, path, body string) (int, string) {
		t.Helper()
		resp, err := http.Post(page.URL()+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	for _, tc := range []struct {
		name    string
		control bool
		path    string
		body    string
		code    int
		says    string
		state   string // the server's state after, when not ""
	}{
		{name: "pause, read-only", path: "api/server/control", body: `{"op":"pause"}`, code: http.StatusForbidden, says: "--allow-control", state: "idle"},
		{name: "pause", control: true, path: "api/server/control", body: `{"op":"pause"}`, code: http.StatusOK, says: "paused", state: "paused"},
		{name: "an unknown operation", control: true, path: "api/server/control", body: `{"op":"jump"}`, code: http.StatusBadRequest, says: `unknown operation "jump"`},
		{name: "a field of no request", control: true, path: "api/server/control", body: `{"op":"pause","force":true}`, code: http.StatusBadRequest, says: "force"},
		{name: "cancel a goal that is not there", control: true, path: "api/server/control", body: `{"op":"cancel","goal":99}`, code: http.StatusConflict, says: "goal 99: no such goal"},
		{name: "the recording of a goal that left none", path: "api/server/recording", body: `{"goal":99}`, code: http.StatusNotFound, says: "--record-dir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := watchServer(t, tc.control, "")
			code, body := post(t, w.page, tc.path, tc.body)
			assert.Equal(t, tc.code, code, body)
			assert.Contains(t, body, tc.says)
			if tc.state != "" {
				v, control := apiServer(t, w.page)
				assert.Equal(t, tc.state, v.State)
				assert.Equal(t, tc.control, control)
			}
		})
	}
	t.Run("events", func(t *testing.T) {
		w := watchServer(t, false, "")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.page.URL()+"api/server/events", nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		lines.Buffer(nil, 1<<20)
		next := func(want string) string {
			t.Helper()
			for lines.Scan() {
				if l := lines.Text(); strings.HasPrefix(l, "data: ") && strings.Contains(l, want) {
					return l
				}
			}
			require.FailNow(t, fmt.Sprintf("the stream ended before %q: %v", want, lines.Err()))
			return ""
		}
		assert.Contains(t, next(`"state":"idle"`), `"control":false`, "the snapshot")
		w.send("Wait", "")
		assert.Contains(t, next(`"state":"running"`), `"mission":"Wait"`, "the goal's start, as it comes")
	})
	t.Run("no server shown", func(t *testing.T) {
		page := newServer(t, studio.Conf{})
		resp, err := http.Get(page.URL() + "api/server")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	})
}
