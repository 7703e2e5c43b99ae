package studio_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/internal/cputime"
	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

// BenchmarkTick5000At20Hz is the tick of a 5,000-node tree ticking at
// 20 Hz (the time between ticks is not counted), explaining and with a
// display-like observer as mission.Run has: alone, with the studio and no
// page, and with a page reading its stream — what the studio costs the
// loop's tick, and what the process spends per tick period on all its
// goroutines (cpu-µs/tick: steadier than the tick's wall time on a
// loaded machine). Two trees: "busy", whose every leaf changes status on
// every tick (the worst case for any observer: about 10,000 transitions
// a tick), and "patrol", where a running path of a dozen nodes ticks
// while the rest waits (as a mission mostly does).
//
//	go test -run '^$' -bench Tick5000At20Hz -benchtime 100x -count 3 ./studio/
func BenchmarkTick5000At20Hz(b *testing.B) {
	for _, shape := range []string{"busy", "patrol"} {
		for _, bc := range []struct {
			name   string
			studio bool
			page   bool
		}{
			{name: "alone"},
			{name: "studio", studio: true},
			{name: "studio+page", studio: true, page: true},
		} {
			b.Run(shape+"/"+bc.name, func(b *testing.B) {
				var tree *runtime.Tree
				if shape == "busy" {
					tree = bigTree(b, 5000)
				} else {
					tree = patrolTree(b, 5000)
				}
				tree.SetExplaining(true)
				tree.Observe(runtime.ObserverFunc(func(runtime.Transition) {})) // the display
				var dbg mission.Debugger = nopDebugger{}
				if bc.studio {
					srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0"})
					require.NoError(b, err)
					defer srv.Close()
					d, detach := attach(srv, tree)
					defer detach()
					dbg = d
					if bc.page {
						// A page's reading, here; its parsing happens in
						// the browser's process, not the controller's.
						page := openEvents(b, srv, "")
						go io.Copy(io.Discard, page.resp.Body)
					}
				}
				b.ResetTimer()
				cpu0 := cputime.Process()
				next := time.Now()
				for range b.N {
					tick(b, tree, dbg, 1)
					b.StopTimer()
					next = next.Add(50 * time.Millisecond)
					time.Sleep(time.Until(next))
					b.StartTimer()
				}
				// What the process spent per tick period, on any core: the
				// tick, the pump, the encoding, the page's reading, the
				// collector. Other work on the machine does not count.
				b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/float64(b.N), "cpu-µs/tick")
			})
		}
	}
}

// BenchmarkBusyTreeSideBySide is the busy tree of BenchmarkTick5000At20Hz
// at 20 Hz four ways in one process, alternated in rounds of b.N ticks so
// that the machine's other work falls on each alike: no studio (the
// display-like observer only), the studio with no page, the studio with
// a page reading its stream in this process ("page"), and with curl
// reading it in its own, as a browser does ("curl"; a studio is made for
// its round and closed after it: only the one measured runs). It reports
// each one's process CPU time per tick (internal/cputime: the tick, the
// pump, the encoding, the page's reading when in-process, the collector,
// on any core; other processes' work does not count) over all rounds and
// the tick's own wall time (TickExactlyOnce and the loop's report to the
// debugger, what the loop waits for), and the studio's as ratios to none.
//
//	go test -run '^$' -bench BusyTreeSideBySide -benchtime 100x ./studio/
func BenchmarkBusyTreeSideBySide(b *testing.B) {
	type setup struct {
		name               string
		studio, page, curl bool
		tree               *runtime.Tree
		cpu, wall          time.Duration
	}
	setups := []*setup{{name: "none"}, {name: "studio", studio: true}, {name: "page", studio: true, page: true},
		{name: "curl", studio: true, curl: true}}
	for _, s := range setups {
		s.tree = bigTree(b, 5000)
		s.tree.SetExplaining(true)
		s.tree.Observe(runtime.ObserverFunc(func(runtime.Transition) {})) // the display
	}
	// round ticks s's tree b.N times at 20 Hz and adds the CPU time used.
	round := func(s *setup) {
		var dbg mission.Debugger = nopDebugger{}
		if s.studio {
			srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0"})
			require.NoError(b, err)
			defer srv.Close()
			d, detach := attach(srv, s.tree)
			defer detach()
			dbg = d
			if s.page {
				page := openEvents(b, srv, "")
				defer page.resp.Body.Close()
				go io.Copy(io.Discard, page.resp.Body)
			}
			if s.curl {
				// The page read in a process of its own, as a
				// browser reads it: its reading is not the
				// controller's.
				cmd := exec.Command("curl", "-sN", "-o", "/dev/null", "http://"+srv.Addr()+"/api/runs/1/events")
				require.NoError(b, cmd.Start())
				defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
				require.Eventually(b, func() bool { return studio.Pages(dbg) == 1 }, 30*time.Second, time.Millisecond, "curl reads the events")
			}
		}
		tick(b, s.tree, dbg, 5) // the first ticks size what is reused
		cpu0 := cputime.Process()
		next := time.Now()
		for range b.N {
			start := time.Now()
			tick(b, s.tree, dbg, 1)
			s.wall += time.Since(start)
			next = next.Add(50 * time.Millisecond)
			time.Sleep(time.Until(next))
		}
		s.cpu += cputime.Process() - cpu0
	}
	const rounds = 3
	b.ResetTimer()
	for range rounds {
		for _, s := range setups {
			round(s)
		}
	}
	b.StopTimer()
	perTick := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 / float64(rounds*b.N) }
	for _, s := range setups {
		b.ReportMetric(perTick(s.cpu), s.name+"-cpu-µs/tick")
		b.ReportMetric(perTick(s.wall), s.name+"-wall-µs/tick")
	}
	b.ReportMetric(perTick(setups[1].cpu)/perTick(setups[0].cpu), "studio/none")
	b.ReportMetric(perTick(setups[2].cpu)/perTick(setups[0].cpu), "page/none")
	b.ReportMetric(perTick(setups[3].cpu)/perTick(setups[0].cpu), "curl/none")
	b.ReportMetric(perTick(setups[1].wall)/perTick(setups[0].wall), "studio/none-wall")
	b.ReportMetric(perTick(setups[2].wall)/perTick(setups[0].wall), "page/none-wall")
	b.ReportMetric(perTick(setups[3].wall)/perTick(setups[0].wall), "curl/none-wall")
}

// BenchmarkTick5000BackToBack is the busy tree of
// BenchmarkTick5000At20Hz ticked back to back, alone, with the studio
// and no page, and with a page reading its stream: the tick's own cost of
// the studio's observer and hook, with the pump competing for the cores
// as it does at a high rate.
//
//	go test -run '^$' -bench Tick5000BackToBack -benchtime 2000x -count 3 ./studio/
func BenchmarkTick5000BackToBack(b *testing.B) {
	for _, bc := range []struct {
		name         string
		studio, page bool
	}{{name: "alone"}, {name: "studio", studio: true}, {name: "page", studio: true, page: true}} {
		b.Run(bc.name, func(b *testing.B) {
			tree := bigTree(b, 5000)
			tree.SetExplaining(true)
			tree.Observe(runtime.ObserverFunc(func(runtime.Transition) {})) // the display
			var dbg mission.Debugger = nopDebugger{}
			if bc.studio {
				srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0"})
				require.NoError(b, err)
				defer srv.Close()
				d, detach := attach(srv, tree)
				defer detach()
				dbg = d
				if bc.page {
					page := openEvents(b, srv, "")
					defer page.resp.Body.Close()
					go io.Copy(io.Discard, page.resp.Body)
				}
			}
			b.ResetTimer()
			cpu0 := cputime.Process()
			for range b.N {
				tick(b, tree, dbg, 1)
			}
			b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/float64(b.N), "cpu-µs/tick")
		})
	}
}

// nopDebugger stands for no studio.
type nopDebugger struct{ mission.Debugger }

func (nopDebugger) OnTick(runtime.TickReport) {}

// patrolTree is a tree of about n nodes shaped like a patrol: a
// ReactiveSequence checks a few conditions every tick, then a long
// action runs (here a Sleep that outlasts the benchmark) at the end of a
// path of Sequences, beside a large idle part (fallback branches that
// never start).
func patrolTree(t testing.TB, n int) *runtime.Tree {
	var sb strings.Builder
	sb.WriteString(`<root BTCPP_format="4" main_tree_to_execute="Big"><BehaviorTree ID="Big"><ReactiveSequence>`)
	made := 1
	for range 4 {
		sb.WriteString(`<ScriptCondition code="true"/>`)
		made++
	}
	sb.WriteString(`<Sequence><Sequence><Sequence><Sleep msec="3600000"/></Sequence></Sequence>`)
	made += 4
	for made+1 < n {
		sb.WriteString(`<Fallback>`)
		made++
		for k := 0; k < 9 && made < n; k++ {
			sb.WriteString(`<AlwaysFailure/>`)
			made++
		}
		sb.WriteString(`</Fallback>`)
	}
	sb.WriteString(`</Sequence></ReactiveSequence></BehaviorTree></root>`)
	return buildXML(t, "patrol.xml", sb.String())
}

// BenchmarkPage5000At20Hz: the 5,000-node tree ticking at 20 Hz (real
// time) with the studio open in chromium; how far behind the tick the
// page has drawn (lag, ms: median, 99th percentile, max, from the page's
// own clock against the tick's end) and how many events it received
// against how many it drew (a growing backlog would show as drawn <
// received). Run it with a number of ticks:
//
//	go test -run '^$' -bench Page5000 -benchtime 200x ./studio/
func BenchmarkPage5000At20Hz(b *testing.B) {
	t := b
	ctx := browser(t)
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0"})
	require.NoError(b, err)
	defer srv.Close()
	tree := bigTree(b, 5000)
	dbg, detach := attach(srv, tree)
	defer detach()
	tick(b, tree, dbg, 1)
	within(t, ctx, 30*time.Second, chromedp.Navigate(srv.URL()))
	waitJS(t, ctx, 30*time.Second, `document.querySelectorAll('g.node').length > 20 && window.studio.stats.events > 0`, "the tree drawn (the part near the view)")
	eval[bool](t, ctx, `(window.studio.stats.lags = [], window.studio.stats.lagMax = 0, true)`)
	b.ResetTimer()
	next := time.Now()
	for range b.N {
		next = next.Add(50 * time.Millisecond)
		tick(b, tree, dbg, 1)
		time.Sleep(time.Until(next))
	}
	b.StopTimer()
	time.Sleep(300 * time.Millisecond)
	lags := eval[[]float64](t, ctx, `window.studio.stats.lags`)
	require.NotEmpty(b, lags)
	sort.Float64s(lags)
	b.ReportMetric(lags[len(lags)/2], "lag-p50-ms")
	b.ReportMetric(lags[len(lags)*99/100], "lag-p99-ms")
	b.ReportMetric(lags[len(lags)-1], "lag-max-ms")
	b.ReportMetric(float64(len(lags)), "frames")
}

// BenchmarkFirstPaint is the time from navigation to the studio's first
// contentful paint and to the tree drawn with its state (the page's own
// mark), measured in chromium with the Performance API, for a small tree
// and a 5,000-node one.
//
//	go test -run '^$' -bench FirstPaint -benchtime 5x ./studio/
func BenchmarkFirstPaint(b *testing.B) {
	for _, n := range []int{12, 5000} {
		b.Run(fmt.Sprintf("%d-nodes", n), func(b *testing.B) {
			t := b
			ctx := browser(t)
			srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0"})
			require.NoError(b, err)
			defer srv.Close()
			tree := bigTree(b, n)
			dbg, detach := attach(srv, tree)
			defer detach()
			tick(b, tree, dbg, 1)
			var fcp, drawn float64
			for range b.N {
				within(t, ctx, 30*time.Second, chromedp.Navigate(srv.URL()))
				waitJS(t, ctx, 30*time.Second, `window.studio.stats.firstPaint > 0`, "the tree drawn")
				fcp += eval[float64](t, ctx, `(performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint') || performance.getEntriesByType('paint')[0] || {startTime: -1}).startTime`)
				drawn += eval[float64](t, ctx, `window.studio.stats.firstPaint`)
			}
			b.ReportMetric(fcp/float64(b.N), "fcp-ms")
			b.ReportMetric(drawn/float64(b.N), "tree-drawn-ms")
		})
	}
}

// BenchmarkEditor2000 opens a file of 2,000 nodes in the editor, in
// chromium, and edits it: the time from navigation to the first frame
// showing the tree (laid out, drawn); and from each edit to the frame
// showing its check by the server — a port typed in the inspector, a node
// added from the palette (the tree laid out and drawn again), and that
// addition undone.
//
//	go test -run '^$' -bench Editor2000 -benchtime 5x ./studio/
func BenchmarkEditor2000(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	sb.WriteString(`<root BTCPP_format="4" main_tree_to_execute="Big"><BehaviorTree ID="Big"><Sequence name="root">`)
	for made := 1; made < 2000; {
		sb.WriteString(`<Sequence>`)
		made++
		for k := 0; k < 9 && made < 2000; k++ {
			sb.WriteString(`<Repeat num_cycles="2"><AlwaysSuccess/></Repeat>`)
			made += 2
		}
		sb.WriteString(`</Sequence>`)
	}
	sb.WriteString(`</Sequence></BehaviorTree></root>`)
	require.NoError(b, os.WriteFile(filepath.Join(dir, "big.xml"), []byte(sb.String()), 0o644))
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	require.NoError(b, err)
	defer srv.Close()
	ctx := browser(b)
	// edited runs an edit and returns the time to its check drawn.
	edited := func(what, js string) float64 {
		eval[bool](b, ctx, `(window.studio.stats.checks = [], `+js+`, true)`)
		waitJS(b, ctx, 10*time.Second, `(window.studio.stats.checks || []).length > 0`, what+" checked")
		return eval[float64](b, ctx, `window.studio.stats.checks[0]`)
	}
	var open, port, add, undo float64
	for i := range b.N {
		within(b, ctx, 30*time.Second, chromedp.Navigate(srv.URL()+"?file=big.xml"))
		if !waitFor(b, ctx, 30*time.Second, `window.studio.editor.specs.length >= 2000 && window.studio.stats.firstPaint > 0`) {
			require.FailNow(b, eval[string](b, ctx, `document.querySelectorAll('g.node').length + ' ' + document.querySelector('#conn').textContent + ' ' + window.studio.stats.firstPaint`))
		}
		open += eval[float64](b, ctx, `window.studio.stats.firstPaint`)
		waitJS(b, ctx, 10*time.Second, `!!document.querySelector('#problems li')`, "the first check")
		// The keyboard walks to the first Repeat (node 3): root, its first
		// Sequence, that one's first child; the view follows.
		key := func(k string) {
			eval[bool](b, ctx, `(window.dispatchEvent(new KeyboardEvent('keydown', {key: '`+k+`'})), true)`)
		}
		key("ArrowDown")
		key("ArrowDown")
		key("ArrowDown")
		require.Equal(b, 3, eval[int](b, ctx, `window.studio.state.selected`))
		v := fmt.Sprint(3 + i%5)
		port += edited("a port", `(() => { const x = document.querySelector('#inspector input[data-attr="num_cycles"]'); x.value = '`+v+`'; x.dispatchEvent(new Event('input')) })()`)
		key("ArrowUp") // to the Sequence, which takes the new node
		add += edited("a node added", `document.querySelector('#palette .pt[data-type="AlwaysFailure"]').click()`)
		undo += edited("the addition undone", `document.querySelector('#btn-undo').click()`)
	}
	n := float64(b.N)
	b.ReportMetric(open/n, "open-ms")
	b.ReportMetric(port/n, "port-edit-ms")
	b.ReportMetric(add/n, "add-node-ms")
	b.ReportMetric(undo/n, "undo-ms")
}
