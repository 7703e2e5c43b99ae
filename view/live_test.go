package view

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// workAction is a test action that runs until the test finishes it: its
// outcome is read from the fixture's map under the node's name.
type workAction struct{ fx *viewFixture }

func (w workAction) OnStart(n *runtime.Leaf) (runtime.Status, error) { return w.OnRunning(n) }
func (w workAction) OnRunning(n *runtime.Leaf) (runtime.Status, error) {
	if st, ok := w.fx.outcome[n.Name()]; ok {
		return st, nil
	}
	return runtime.Running, nil
}
func (w workAction) OnHalted(*runtime.Leaf) {}

// viewFixture is a tree under a manual clock with a live view attached.
type viewFixture struct {
	t       *testing.T
	tree    *runtime.Tree
	clock   *runtime.ManualClock
	wall    atomic.Int64 // Unix ns; the view reads it from its goroutine
	view    *Live
	out     *bytes.Buffer
	outcome map[string]runtime.Status
	cond    map[string]bool
	seq     uint64
	stalled time.Duration // the next tick's TickReport.Stalled
}

var fixtureEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newViewFixture(t *testing.T, xml string, conf LiveConf) *viewFixture {
	t.Helper()
	fx := &viewFixture{t: t, clock: runtime.NewManualClock(fixtureEpoch),
		out: &bytes.Buffer{}, outcome: map[string]runtime.Status{}, cond: map[string]bool{}}
	fx.wall.Store(fixtureEpoch.UnixNano())
	reg := runtime.NewRegistry()
	reg.MustRegister(
		runtime.StatefulActionType("Work", []runtime.PortSpec{runtime.InputPort[string]("goal", "where to go")},
			func(*runtime.Config) (runtime.StatefulAction, error) { return workAction{fx}, nil }),
		runtime.ConditionType("Check", nil, func(n *runtime.Leaf) (bool, error) { return fx.cond[n.Name()], nil }),
	)
	doc, err := trees.Parse("view.xml", []byte(xml))
	require.NoError(t, err)
	fx.tree, err = runtime.Build(reg, doc, runtime.BuildConf{Clock: fx.clock})
	require.NoError(t, err)
	conf.Out, conf.Tree, conf.Registry = fx.out, fx.tree, reg
	conf.Wall = func() time.Time { return time.Unix(0, fx.wall.Load()) }
	fx.view = NewLive(conf)
	fx.tree.Observe(fx.view)
	return fx
}

// tick ticks the tree once, 50 ms of tree time and 10 ms of wall time
// after the last, and reports it to the view.
func (fx *viewFixture) tick() runtime.Status {
	fx.t.Helper()
	if fx.seq > 0 {
		fx.clock.Advance(50 * time.Millisecond)
		fx.wall.Add(int64(10 * time.Millisecond))
	}
	fx.seq++
	start := fx.clock.Now()
	st, err := fx.tree.TickExactlyOnce()
	require.NoError(fx.t, err)
	fx.view.OnTick(runtime.TickReport{Seq: fx.seq, Start: start, Lateness: time.Duration(fx.seq) * time.Millisecond, Status: st, Stalled: fx.stalled})
	fx.stalled = 0
	return st
}

// frame renders what the terminal would show now.
func (fx *viewFixture) frame(cols, rows int) []string {
	var f liveFrame
	f.states = make([]nodeState, len(fx.view.nodes))
	fx.view.fill(&f)
	return fx.view.render(&f, cols, rows)
}

const patrolXML = `<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <ReactiveSequence name="patrol">
      <Check name="battery_ok"/>
      <Sequence name="round">
        <Work name="go_kitchen" goal="kitchen"/>
        <Fallback name="door">
          <Check name="door_open"/>
          <Work name="knock" goal="door"/>
        </Fallback>
        <Work name="go_lab" goal="{next}"/>
      </Sequence>
    </ReactiveSequence>
  </BehaviorTree>
</root>`

func TestLiveViewFrameShowsStatusesAndTheRunningPath(t *testing.T) {
	fx := newViewFixture(t, patrolXML, LiveConf{Title: "btrobot run patrol.xml", Terminal: true, Rate: 20, Keys: []string{"next", "absent"}})
	fx.cond["battery_ok"] = true
	require.NoError(t, fx.tree.Blackboard().Set("next", "lab"))
	fx.tick()                                  // go_kitchen starts
	fx.outcome["go_kitchen"] = runtime.Success // then succeeds; door_open fails; knock runs
	fx.tick()
	fx.tick()

	got := fx.frame(72, 24)
	want := []string{
		"btrobot run patrol.xml",
		"up 0:00:00.1 · 3 ticks · 20.0 Hz · late p99 3ms max 3ms · 0 overruns",
		"▶ patrol (ReactiveSequence)                          RUNNING       100ms",
		"  ✓ battery_ok (Check)                               success      0s ago", // re-ticked and reset every tick
		"  ▶ round (Sequence)                                 RUNNING       100ms",
		"    ✓ go_kitchen (Work)                              SUCCESS        50ms",
		"    ▶ door (Fallback)                                RUNNING        50ms",
		"      ✗ door_open (Check)                            FAILURE        50ms",
		"      ▶ knock (Work)  goal=door                      RUNNING        50ms",
		"    · go_lab (Work)",
		"next=lab",
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(got, "\n"), "frame:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))

	// The battery fails: the reactive sequence halts the round. Halted
	// nodes show it; nodes reset to IDLE keep showing what they last did.
	fx.cond["battery_ok"] = false
	fx.tick()
	got = fx.frame(72, 24)
	want = []string{
		"btrobot run patrol.xml",
		"up 0:00:00.2 · 4 ticks · 20.0 Hz · late p99 4ms max 4ms · 0 overruns",
		"✗ patrol (ReactiveSequence)                          failure      0s ago",
		"  ✗ battery_ok (Check)                               failure      0s ago",
		"  ■ round (Sequence)                                 halted       0s ago",
		"    ✓ go_kitchen (Work)                              success   100ms ago",
		"    ■ door (Fallback)                                halted       0s ago",
		"      ✗ door_open (Check)                            failure   100ms ago",
		"      ■ knock (Work)                                 halted       0s ago",
		"    · go_lab (Work)",
		"next=lab",
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(got, "\n"), "frame after the halt:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
}

// TestLiveViewShowsStalls: the status line (terminal frame and plain
// heartbeat) counts the controller's stalls when there were any, and is
// unchanged when there were none.
func TestLiveViewShowsStalls(t *testing.T) {
	cases := []struct {
		name   string
		stalls []time.Duration // before ticks 2, 3, ...
		want   string
	}{
		{name: "none", want: "3 ticks · 20.0 Hz · late p99 3ms max 3ms · 0 overruns"},
		{name: "one", stalls: []time.Duration{5016 * time.Millisecond},
			want: "3 ticks · 20.0 Hz · late p99 3ms max 3ms · 0 overruns · 1 stall (5.02s)"},
		{name: "two", stalls: []time.Duration{300 * time.Millisecond, 5016 * time.Millisecond},
			want: "3 ticks · 20.0 Hz · late p99 3ms max 3ms · 0 overruns · 2 stalls (longest 5.02s)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := newViewFixture(t, patrolXML, LiveConf{Title: "btrobot run patrol.xml", Terminal: true, Rate: 20})
			fx.tick()
			for i := range 2 {
				if i < len(tc.stalls) {
					fx.stalled = tc.stalls[i]
				}
				fx.tick()
			}
			got := fx.frame(120, 24)
			if assert.GreaterOrEqual(t, len(got), 2) {
				assert.Equal(t, "up 0:00:00.1 · "+tc.want, got[1])
			}
			var f liveFrame
			f.states = make([]nodeState, len(fx.view.nodes))
			fx.view.fill(&f)
			assert.Equal(t, "     0.100s #3      "+tc.want, fx.view.summaryLine(&f))
		})
	}
}

// bigTree is a Sequence of n rounds, each a Sequence of three leaves.
func bigTree(n int) string {
	var b strings.Builder
	b.WriteString(`<root BTCPP_format="4" main_tree_to_execute="Main"><BehaviorTree ID="Main"><Sequence name="mission">`)
	for i := range n {
		fmt.Fprintf(&b, `<Sequence name="round%d"><Check name="ok%d"/><Work name="go%d" goal="p%d"/><Work name="back%d" goal="home"/></Sequence>`, i, i, i, i, i)
	}
	b.WriteString(`</Sequence></BehaviorTree></root>`)
	return b.String()
}

func TestLiveViewCompactsBigTrees(t *testing.T) {
	fx := newViewFixture(t, bigTree(40), LiveConf{Terminal: true})
	for i := range 40 {
		fx.cond[fmt.Sprintf("ok%d", i)] = true
	}
	// Finish the first 20 rounds, then leave go20 running.
	for i := range 20 {
		fx.outcome[fmt.Sprintf("go%d", i)] = runtime.Success
		fx.outcome[fmt.Sprintf("back%d", i)] = runtime.Success
	}
	fx.tick()

	for _, tc := range []struct {
		rows int
		want []string // lines that must be there, in order
	}{
		{rows: 200, want: []string{"▶ mission (Sequence)", "  ✓ round0 (Sequence)", "    ✓ ok0 (Check)", "    ▶ go20 (Work)  goal=p20", "  · round39 (Sequence)", "    · back39 (Work)"}},
		// Only the running path expanded: 40 rounds collapsed, one open.
		{rows: 50, want: []string{"▶ mission (Sequence)", "  ✓ round0 (Sequence) [+3]", "  ▶ round20 (Sequence)", "    ▶ go20 (Work)  goal=p20", "  · round39 (Sequence) [+3]"}},
		// A window of siblings around the running one.
		{rows: 16, want: []string{"▶ mission (Sequence)", "  … 17 more", "  ✓ round17 (Sequence) [+3]", "  ▶ round20 (Sequence)", "    ▶ go20 (Work)  goal=p20", "  · round23 (Sequence) [+3]", "  … 16 more"}},
		{rows: 10, want: []string{"▶ mission (Sequence)", "  … 20 more", "  ▶ round20 (Sequence)", "    ▶ go20 (Work)  goal=p20", "  … 19 more"}},
	} {
		got := fx.frame(60, tc.rows)
		assert.LessOrEqual(t, len(got), tc.rows-1, "rows %d: %d lines drawn, want at most %d", tc.rows, len(got), tc.rows-1)
		k := 0
		for _, l := range got {
			if k < len(tc.want) && strings.HasPrefix(l, tc.want[k]) {
				k++
			}
		}
		if k < len(tc.want) {
			assert.Fail(t, fmt.Sprintf("rows %d: missing %q (in order) in\n%s", tc.rows, tc.want[k], strings.Join(got, "\n")))
		}
	}

	// Halted (Ctrl-C) at the time of the last tick, as under a simulated
	// clock, the tree shows the path the halt stopped.
	fx.tree.Halt()
	got := strings.Join(fx.frame(60, 10), "\n")
	for _, w := range []string{"■ mission (Sequence)", "  ■ round20 (Sequence)", "    ■ go20 (Work)"} {
		assert.Contains(t, got, w, "after the halt the frame lacks %q:\n%s", w, got)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")

func TestLiveViewLinesFitTheWidth(t *testing.T) {
	fx := newViewFixture(t, bigTree(6), LiveConf{Title: strings.Repeat("long title ", 20), Terminal: true, Color: true, SimTime: true, Keys: []string{"k"}})
	fx.tree.Blackboard().Set("k", strings.Repeat("v", 100))
	fx.cond["ok0"] = true
	for range 3 {
		fx.tick()
	}
	for cols := 20; cols <= 130; cols += 7 {
		for _, rows := range []int{3, 8, 40} {
			for _, l := range fx.frame(cols, rows) {
				plain := ansi.ReplaceAllString(l, "")
				n := len([]rune(plain))
				require.LessOrEqual(t, n, cols, "cols %d rows %d: line of %d columns: %q", cols, rows, n, plain)
				i := strings.LastIndex(l, "\x1b[")
				if i >= 0 {
					require.True(t, strings.HasPrefix(l[i:], "\x1b[0m"), "a line must not leave its colour on: %q", l)
				}
			}
		}
	}
	got := fx.frame(80, 24)
	assert.Contains(t, got[0], "\x1b[1m", "colour: the title is bold and the running path highlighted:\n%q", got)
	assert.Contains(t, strings.Join(got, ""), "\x1b[1;7;33mgo0 (Work)", "colour: the title is bold and the running path highlighted:\n%q", got)
}

func TestLiveViewPlainLines(t *testing.T) {
	fx := newViewFixture(t, patrolXML, LiveConf{Title: "btrobot run patrol.xml", Heartbeat: -1})
	fx.cond["battery_ok"] = true
	fx.tree.Blackboard().Set("next", "lab")
	fx.view.Start()
	fx.tick()
	fx.tick() // the condition is re-ticked with the same result: no line
	fx.outcome["go_kitchen"] = runtime.Success
	fx.tick()
	fx.outcome["knock"] = runtime.Success
	fx.tick()
	fx.tick()
	fx.cond["battery_ok"] = false // halts go_lab
	fx.tick()
	fx.view.Close("mission failed")
	want := `btrobot run patrol.xml
     0.000s #1      RUNNING Main/patrol
     0.000s #1      SUCCESS Main/patrol/battery_ok
     0.000s #1      RUNNING Main/patrol/round/go_kitchen  goal=kitchen
     0.100s #3      SUCCESS Main/patrol/round/go_kitchen
     0.100s #3      FAILURE Main/patrol/round/door/door_open
     0.100s #3      RUNNING Main/patrol/round/door/knock  goal=door
     0.150s #4      SUCCESS Main/patrol/round/door/knock
     0.150s #4      RUNNING Main/patrol/round/go_lab  goal=lab
     0.250s #6      FAILURE Main/patrol/battery_ok
     0.250s #6      HALTED  Main/patrol/round/go_lab
     0.250s #6      FAILURE Main/patrol
     0.250s #6      6 ticks · 20.0 Hz · late p99 6ms max 6ms
mission failed
`
	got := fx.out.String()
	assert.Equal(t, want, got, "plain log:\n%s\nwant:\n%s", got, want)
}

func TestLiveViewRedrawsInPlace(t *testing.T) {
	var out bytes.Buffer
	v := &Live{conf: LiveConf{Out: &out}}
	v.writeFrame([]string{"a", "b", "c"})
	v.writeFrame([]string{"d", "e"})
	want := "a\x1b[K\nb\x1b[K\nc\x1b[K\n\x1b[J" + "\r\x1b[3Ad\x1b[K\ne\x1b[K\n\x1b[J"
	assert.Equal(t, want, out.String(), "redraw wrote %q, want %q", out.String(), want)
}

// blockedWriter blocks every Write until released.
type blockedWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func TestLiveViewNeverBlocksTheTick(t *testing.T) {
	for _, terminal := range []bool{false, true} {
		w := &blockedWriter{release: make(chan struct{})}
		fx := newViewFixture(t, patrolXML, LiveConf{Terminal: terminal, Interval: time.Millisecond})
		fx.view.conf.Out = w
		fx.view.Start()
		// The output stays stuck until every tick has run, so a tick that
		// waited for it would never return: the ticks ending at all is the
		// proof, whatever the machine's speed. The watchdog only turns
		// such a hang into a failure.
		watchdog := time.AfterFunc(2*time.Minute, func() { close(w.release) })
		for i := range 3000 {
			fx.cond["battery_ok"] = i%2 == 0 // a flapping battery: four lines a tick
			fx.tick()
		}
		require.True(t, watchdog.Stop(), "terminal=%v: a tick waited for the stuck output", terminal)
		close(w.release)
		fx.view.Close("done")
		w.mu.Lock()
		got := w.buf.String()
		w.mu.Unlock()
		assert.Contains(t, got, "done", "terminal=%v: the final state was not written once the output moved:\n%.300s", terminal, got)
		if !terminal {
			assert.Contains(t, got, "lines left out: the output was too slow", "plain lines dropped for a stuck output must be counted:\n%.300s", got)
		}
	}
}

func TestDurationsInFewCharacters(t *testing.T) {
	for _, tc := range []struct {
		d          time.Duration
		short, clk string
	}{
		{0, "0s", "0:00:00.0"},
		{750 * time.Microsecond, "750µs", "0:00:00.0"},
		{12500 * time.Microsecond, "12.5ms", "0:00:00.0"},
		{1500 * time.Millisecond, "1.5s", "0:00:01.5"},
		{83 * time.Second, "1m23s", "0:01:23.0"},
		{2*time.Hour + 5*time.Minute, "2h05m", "2:05:00.0"},
	} {
		got := shortDuration(tc.d)
		assert.Equal(t, tc.short, got, "shortDuration(%v) = %q, want %q", tc.d, got, tc.short)
		got = ClockText(tc.d)
		assert.Equal(t, tc.clk, got, "ClockText(%v) = %q, want %q", tc.d, got, tc.clk)
	}
}

func TestLiveViewKeepsEveryRunningChild(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<root BTCPP_format="4" main_tree_to_execute="Main"><BehaviorTree ID="Main"><Sequence name="mission"><Parallel name="watched" success_count="-1" failure_count="1">`)
	b.WriteString(`<Work name="navigate" goal="lab"/>`)
	for i := range 12 {
		fmt.Fprintf(&b, `<Check name="fine%d"/>`, i)
	}
	b.WriteString(`<Work name="watch_battery" goal="x"/></Parallel>`)
	for i := range 12 {
		fmt.Fprintf(&b, `<Work name="later%d" goal="x"/>`, i)
	}
	b.WriteString(`</Sequence></BehaviorTree></root>`)
	fx := newViewFixture(t, b.String(), LiveConf{Terminal: true})
	for i := range 12 {
		fx.cond[fmt.Sprintf("fine%d", i)] = true
	}
	fx.tick()
	got := fx.frame(70, 8) // room for six rows: only the running children and the elisions
	want := []string{"▶ mission (Sequence)", "  ▶ watched (Parallel)", "    ▶ navigate (Work)  goal=lab", "    … 12 more", "    ▶ watch_battery (Work)  goal=x", "  … 12 more"}
	require.Len(t, got, len(want)+1, "got %d lines, want the header and %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	for i, w := range want {
		assert.True(t, strings.HasPrefix(got[i+1], w), "line %d = %q, want it to start with %q", i+1, got[i+1], w)
	}
}
