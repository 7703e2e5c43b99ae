package studio_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/executor"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/inproc"
	"github.com/btrobot/btrobot/studio"
)

// TestStudioFollowsAMissionServer: btrobot serve --ui in chromium. Each
// goal is a run of the studio named by its mission and goal; the page,
// opened on the first goal's tree, shows the second's once a second goal
// replaces the first (it opens each new run as it comes).
func TestStudioFollowsAMissionServer(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wait.xml"), []byte(`<root BTCPP_format="4">
  <BehaviorTree ID="Wait"><Sequence name="wait"><Sleep name="long" msec="3600000"/></Sequence></BehaviorTree>
  <BehaviorTree ID="WaitToo"><Sequence name="wait_too"><Sleep name="longer" msec="3600000"/></Sequence></BehaviorTree>
</root>`), 0o644))
	cat, err := executor.LoadCatalog(executor.CatalogConf{Dir: dir})
	require.NoError(t, err)
	graph := inproc.NewGraph()
	conn, err := ros.Connect(ros.Conf{Graph: graph, Name: "btrobot"})
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	page := newServer(t, studio.Conf{Follow: true, Title: "btrobot serve"})
	srv, err := executor.New(executor.Conf{Conn: conn, Catalog: cat, Show: func(name string) func(mission.Shown) mission.Debugger {
		return page.Debugger(studio.LiveConf{Name: name})
	}})
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	_, client := executeClient(t, graph)
	goals, stop := context.WithCancel(context.Background())
	ended := make(chan struct{}, 2)
	send := func(m string) {
		go func() {
			client.Run(goals, &ros.ExecuteMissionActionGoal{Mission: m}, ros.GoalConf{})
			ended <- struct{}{}
		}()
	}
	t.Cleanup(func() { stop(); <-ended; <-ended })

	send("Wait")
	require.Eventually(t, func() bool { return srv.Status().Mission == "Wait" }, 20*time.Second, time.Millisecond)
	ctx := browser(t)
	within(t, ctx, 20*time.Second, chromedp.Navigate(page.URL()))
	waitJS(t, ctx, 15*time.Second, `!!document.querySelector('g.node[data-path="Wait/wait/long"]')`, "the first goal's tree")
	waitJS(t, ctx, 5*time.Second, `document.querySelector('#runs').selectedOptions[0].textContent === 'live · Wait · goal 1'`, "the first goal named")

	send("WaitToo")
	waitJS(t, ctx, 15*time.Second, `!!document.querySelector('g.node[data-path="WaitToo/wait_too/longer"]')`, "the second goal's tree")
	waitJS(t, ctx, 5*time.Second, `!document.querySelector('g.node[data-path="Wait/wait/long"]')`, "the first goal's tree gone")
	waitJS(t, ctx, 5*time.Second, `document.querySelector('#runs').selectedOptions[0].textContent === 'live · WaitToo · goal 2'`, "the second goal named")
}
