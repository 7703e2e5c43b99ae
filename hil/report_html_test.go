package hil

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/record"
)

// TestHTMLReportInChromium: a campaign of a matrix (2 seeds × 2 battery
// drops) with recordings and reports; each run's page, opened in
// Debian's chromium with nothing else (file://, no network), shows the
// verdict, the expectations with the failing one marked, the map with the
// fault's cross, the timeline, the command that runs it again and a link
// to its recording, which opens as a recording of the tree.
func TestHTMLReportInChromium(t *testing.T) {
	dir := t.TempDir()
	planned, err := Plan([]string{"testdata/report.scenario.yaml"}, Selection{})
	runs := planned.Runs
	require.NoError(t, err)
	require.Len(t, runs, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var told []Progress // Progress is called one call at a time
	cases := RunCampaign(ctx, CampaignConf{Scenarios: runs, Jobs: 2, Record: dir, Picture: true,
		Progress: func(p Progress) { told = append(told, p) }})
	for _, c := range cases {
		require.NoError(t, c.Err)
	}
	// The progress came as the runs advanced and ended, never going back.
	require.NotEmpty(t, told)
	last := told[len(told)-1]
	assert.Equal(t, Progress{Done: 4, Total: 4}, Progress{Done: last.Done, Total: last.Total})
	for i := 1; i < len(told); i++ {
		assert.GreaterOrEqual(t, told[i].Done, told[i-1].Done)
		assert.GreaterOrEqual(t, told[i].Simulated, told[i-1].Simulated)
	}
	var simulated time.Duration
	for _, c := range cases {
		simulated += c.Result.SimTime
	}
	assert.GreaterOrEqual(t, last.Simulated, simulated, "the progress covers the time the runs were judged at")
	index, err := WriteReports(dir, cases)
	require.NoError(t, err)
	require.FileExists(t, index)

	browser := newBrowser(t)
	for _, tc := range []struct {
		run     int
		name    string
		verdict string
		failed  string // text of the failing row, "" when all held
		replay  string
	}{
		{0, "errand report [seed=1 drop=0.3]", "FAIL", "{battery_never_below: 0.5}", "btrobot hil testdata/report.scenario.yaml --only seed=1,drop=0.3"},
		{1, "errand report [seed=1 drop=0.8]", "PASS", "", "btrobot hil testdata/report.scenario.yaml --only seed=1,drop=0.8"},
		{3, "errand report [seed=2 drop=0.8]", "PASS", "", "btrobot hil testdata/report.scenario.yaml --only seed=2,drop=0.8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cases[tc.run]
			require.Len(t, c.Result.Recordings, 1)
			rec, err := record.Open(c.Result.Recordings[0])
			require.NoError(t, err)
			first, last := rec.Span()
			trs, err := rec.Transitions(first, last.Add(time.Second))
			require.NoError(t, err)
			assert.NotEmpty(t, trs)
			require.NoError(t, rec.Close())

			page := filepath.Join(dir, RunFile(c.Result.Scenario, "", ".html"))
			require.NoError(t, chromedp.Do(browser, chromedp.Navigate("file://"+page)))
			text := func(sel string) string {
				s, err := chromedp.Run(browser, chromedp.Text(sel))
				require.NoError(t, err, sel)
				return s
			}
			count := func(js string) int {
				n, err := chromedp.Run(browser, chromedp.Evaluate[int](js))
				require.NoError(t, err, js)
				return n
			}
			title, verdict, replay := text("#title"), text("#verdict"), text("#replay")
			failed, err := chromedp.Run(browser, chromedp.Evaluate[string](`[...document.querySelectorAll("#verdicts tr.fail")].map(r => r.innerText).join("\n")`))
			require.NoError(t, err)
			recordingHref, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.querySelector("#recordings a").getAttribute("href")`))
			require.NoError(t, err)
			verdictRows := count(`document.querySelectorAll("#verdicts tr.pass, #verdicts tr.fail").length`)
			mapSVG := count(`document.querySelectorAll("#map svg").length`)
			crosses := count(`[...document.querySelectorAll("#map svg text")].filter(t => t.textContent == "F1").length`)
			timelineFaults := count(`document.querySelectorAll("#timeline tr.fault").length`)
			assert.Equal(t, tc.name, title)
			assert.Equal(t, tc.verdict, verdict)
			assert.Equal(t, tc.replay, replay)
			assert.Equal(t, 3, verdictRows)
			if tc.failed == "" {
				assert.Empty(t, failed)
			} else {
				assert.Contains(t, failed, tc.failed)
				assert.Regexp(t, `lowest 2\d\.\d% at `, failed)
			}
			assert.Equal(t, 1, mapSVG)
			assert.Equal(t, 1, crosses, "the fault's cross on the map")
			assert.Equal(t, 1, timelineFaults)
			assert.Equal(t, filepath.Base(c.Result.Recordings[0]), recordingHref)
			if tc.run == 0 && os.Getenv("BTROBOT_SCREENSHOT") != "" {
				require.NoError(t, chromedp.Do(browser, chromedp.EmulateViewport(1150, 1500)))
				png, err := chromedp.Run(browser, chromedp.CaptureScreenshot())
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(os.Getenv("BTROBOT_SCREENSHOT"), png, 0o644))
			}
		})
	}
	require.NoError(t, chromedp.Do(browser, chromedp.Navigate("file://"+index)))
	rows, err := chromedp.Run(browser, chromedp.Evaluate[int](`document.querySelectorAll("#runs tr.pass, #runs tr.fail").length`))
	require.NoError(t, err)
	assert.Equal(t, 4, rows)
}

// newBrowser starts Debian's Chromium for the test: its headless shell
// (package chromium-headless-shell), the same Blink and V8 as the browser
// without the browser's own UI and services, at a quarter of the CPU a
// headless chromium takes to open a page (the studio's tests measured it).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := "/usr/bin/chromium-headless-shell"
	_, err := os.Stat(path)
	require.NoError(t, err, "Debian's Chromium headless shell is needed (apt-get install chromium-headless-shell; scripts/test installs it): %v", err)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("allow-file-access-from-files", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelT(); cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx))
	return ctx
}

// TestReplayCommandAndFileNames: the command quotes what a shell would
// split, and a run's files are named by its parameters.
func TestReplayCommandAndFileNames(t *testing.T) {
	for _, tc := range []struct {
		s            *Scenario
		replay, file string
	}{
		{&Scenario{File: "scenarios/patrol.scenario.yaml", Name: "patrol happy path"}, "btrobot hil scenarios/patrol.scenario.yaml", "patrol_happy_path.robot1.btlog"},
		{&Scenario{File: "my dir/x.scenario.yaml", Name: "x [seed=3 road=it's]", Params: []Param{{"seed", "3"}, {"road", "it's"}}},
			`btrobot hil 'my dir/x.scenario.yaml' --only 'seed=3,road=it'\''s'`, "x_seed-3_road-it_s.robot1.btlog"},
	} {
		assert.Equal(t, tc.replay, ReplayCommand(tc.s))
		assert.Equal(t, tc.file, RunFile(tc.s, "robot1", ".btlog"))
		assert.False(t, strings.ContainsAny(RunFile(tc.s, "", ""), " /'[]"))
	}
}
