package studio_test

import (
	"bufio"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
	"github.com/btrobot/btrobot/trees"
)

// sse is one server-sent event as a page gets it.
type sse struct {
	id, name string
	data     map[string]any
}

// sseReader reads a run's event stream.
type sseReader struct {
	t    testing.TB
	resp *http.Response
	r    *bufio.Reader
}

func openEvents(t testing.TB, srv *studio.Server, lastID string) *sseReader {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+srv.Addr()+"/api/runs/1/events", nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	t.Cleanup(func() { resp.Body.Close() })
	return &sseReader{t: t, resp: resp, r: bufio.NewReaderSize(resp.Body, 1<<20)}
}

func (s *sseReader) next() sse {
	s.t.Helper()
	e, err := s.nextErr()
	require.NoError(s.t, err)
	return e
}

// nextErr is next, saying why the stream ended instead of failing.
func (s *sseReader) nextErr() (sse, error) {
	var e sse
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && e.name != "":
			return e, nil
		case strings.HasPrefix(line, "id: "):
			e.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			e.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &e.data); err != nil {
				return e, err
			}
		}
	}
}

// bigTree is a tree of about n nodes whose every leaf changes status on
// every tick: a ReactiveSequence over Sequences of AlwaysSuccess, under a
// KeepRunningUntilFailure so that the root stays RUNNING.
func bigTree(t testing.TB, n int) *runtime.Tree {
	var sb strings.Builder
	sb.WriteString(`<root BTCPP_format="4" main_tree_to_execute="Big"><BehaviorTree ID="Big"><KeepRunningUntilFailure><Sequence>`)
	for made := 2; made < n; {
		sb.WriteString(`<Sequence>`)
		made++
		for k := 0; k < 9 && made < n; k++ {
			sb.WriteString(`<AlwaysSuccess/>`)
			made++
		}
		sb.WriteString(`</Sequence>`)
	}
	sb.WriteString(`</Sequence></KeepRunningUntilFailure></BehaviorTree></root>`)
	return buildXML(t, "big.xml", sb.String())
}

// buildXML builds a tree of the shipped palette from a document written to
// a file named name, as the loader reads missions.
func buildXML(t testing.TB, name, xml string) *runtime.Tree {
	file := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(file, []byte(xml), 0o644))
	doc, err := trees.Load(file)
	require.NoError(t, err)
	tree, err := runtime.Build(mission.Nodes(), doc, runtime.BuildConf{})
	require.NoError(t, err)
	return tree
}

// attach shows tree in srv as a live run, as mission.Run does.
func attach(srv *studio.Server, tree *runtime.Tree) (dbg mission.Debugger, detach func()) {
	dbg = srv.Debugger(studio.LiveConf{Name: "offline"})(mission.Shown{Tree: tree, Rate: 20})
	a, b := tree.Observe(dbg), tree.Hook(dbg)
	return dbg, func() { b(); a() }
}

// tick ticks the tree n times, reporting each tick to dbg.
func tick(t testing.TB, tree *runtime.Tree, dbg mission.Debugger, n int) {
	for i := 0; i < n; i++ {
		start := time.Now()
		st, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		dbg.OnTick(runtime.TickReport{Seq: tree.Ticks(), Start: start, Duration: time.Since(start), Status: st})
	}
}

// TestAStuckPageNeverHoldsTheTick: a page that connects and stops
// reading (its socket's buffers fill) beside one that reads. The tree
// ticks on regardless and the reading page follows; the stuck page's
// queue is bounded: what it missed is dropped, and when it reads again it
// gets a snapshot with the state as it is — or, stuck longer than
// WriteTimeout, its stream is closed (a browser reconnects and resumes).
func TestAStuckPageNeverHoldsTheTick(t *testing.T) {
	for _, tc := range []struct {
		name         string
		writeTimeout time.Duration
		closed       bool
	}{
		{name: "stuck for a while: a snapshot when it reads again", writeTimeout: 5 * time.Minute},
		{name: "stuck past the write timeout: its stream is closed", writeTimeout: time.Second, closed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond, WriteTimeout: tc.writeTimeout})
			tree := bigTree(t, 1500)
			dbg, detach := attach(srv, tree)
			defer detach()

			// A small receive buffer, set before the connection is made
			// (shrunk after, the kernel takes the window back by
			// retransmissions).
			d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
				var serr error
				err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
				return errors.Join(err, serr)
			}}
			stuck, err := d.Dial("tcp", srv.Addr())
			require.NoError(t, err)
			defer stuck.Close()
			_, err = fmt.Fprintf(stuck, "GET /api/runs/1/events HTTP/1.1\r\nHost: %s\r\n\r\n", srv.Addr())
			require.NoError(t, err)
			time.Sleep(100 * time.Millisecond) // the stuck page's stream is open

			const ticks = 600 // events enough to fill the stuck socket's buffers (a busy delta is about 20 KB)
			healthy := openEvents(t, srv, "")
			followed := make(chan bool, 1)
			go func() { // the reading page, as it reads; closed when slow, it reconnects as a browser does
				last := ""
				for {
					e, err := healthy.nextErr()
					if err != nil {
						healthy.resp.Body.Close()
						healthy = openEvents(t, srv, last)
						continue
					}
					last = e.id
					if loop, ok := e.data["loop"].(map[string]any); ok && loop["ticks"] == float64(ticks) {
						followed <- true
						return
					}
				}
			}()
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 0; i < ticks; i++ {
					tick(t, tree, dbg, 1)
					time.Sleep(2 * time.Millisecond) // a pump between ticks
				}
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				require.FailNow(t, "the ticks were held")
			}
			select {
			case <-followed:
			case <-time.After(30 * time.Second):
				require.FailNow(t, "the reading page did not follow to the last tick")
			}

			if tc.closed {
				time.Sleep(tc.writeTimeout + 500*time.Millisecond) // stuck for longer than it may be
			}
			require.NoError(t, stuck.SetReadDeadline(time.Now().Add(30*time.Second)))
			r := bufio.NewReaderSize(stuck, 1<<20)
			var ids []int
			var names []string
			for {
				line, err := r.ReadString('\n')
				if tc.closed {
					if err != nil {
						assert.ErrorIs(t, err, io.EOF, "the stream closed, not timed out")
						return
					}
					continue
				}
				require.NoError(t, err, "the stuck page catches up (events %v)", names)
				switch {
				case strings.HasPrefix(line, "id: "):
					var id int
					fmt.Sscan(line[4:], &id)
					ids = append(ids, id)
				case strings.HasPrefix(line, "event: "):
					names = append(names, strings.TrimSpace(line[7:]))
				case strings.HasPrefix(line, "data: "):
					var d map[string]any
					require.NoError(t, json.Unmarshal([]byte(line[6:]), &d))
					if loop, ok := d["loop"].(map[string]any); ok && loop["ticks"] == float64(ticks) {
						gaps := 0
						for i := 1; i < len(ids); i++ {
							if ids[i] != ids[i-1]+1 {
								gaps++
							}
						}
						assert.Positive(t, gaps, "events were dropped for the stuck page: %v", ids)
						assert.Equal(t, "snapshot", names[len(names)-1], "the state now came as a snapshot")
						assert.Less(t, len(ids), ids[len(ids)-1], "fewer events than were published")
						return
					}
				}
			}
		})
	}
}

// TestAReconnectingPageResumes: a page that reconnects names the last
// event it saw; it gets the events since when the server still holds
// them, else a snapshot.
func TestAReconnectingPageResumes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lastID   func(seen int) string
		want     string // the first event's name
		wantNext bool   // the first event is the one after the last seen
	}{
		{name: "the last event seen is recent: the events since", lastID: func(seen int) string { return fmt.Sprint(seen) }, want: "delta", wantNext: true},
		{name: "no last event: a snapshot", lastID: func(int) string { return "" }, want: "snapshot"},
		{name: "a last event older than the history: a snapshot", lastID: func(int) string { return "0" }, want: "snapshot"},
		{name: "a last event from the future (a restarted server): a snapshot", lastID: func(seen int) string { return fmt.Sprint(seen + 1000) }, want: "snapshot"},
		{name: "a garbled ID: a snapshot", lastID: func(int) string { return "x1" }, want: "snapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{PumpEvery: 2 * time.Millisecond})
			tree := bigTree(t, 30)
			dbg, detach := attach(srv, tree)
			defer detach()
			for range 300 { // more events than the history holds
				tick(t, tree, dbg, 1)
				time.Sleep(3 * time.Millisecond)
			}
			page := openEvents(t, srv, "")
			snap := page.next()
			require.Equal(t, "snapshot", snap.name)
			var seen int
			fmt.Sscan(snap.id, &seen)
			page.resp.Body.Close()
			tick(t, tree, dbg, 3) // what the page misses while away
			time.Sleep(50 * time.Millisecond)

			again := openEvents(t, srv, tc.lastID(seen))
			e := again.next()
			assert.Equal(t, tc.want, e.name)
			if tc.wantNext {
				assert.Equal(t, fmt.Sprint(seen+1), e.id, "the event after the last seen")
			}
		})
	}
}

// TestEveryTransitionReachesThePage: the transitions of every tick are in
// the stream, each once, in order, counted without gaps.
func TestEveryTransitionReachesThePage(t *testing.T) {
	srv := newServer(t, studio.Conf{PumpEvery: time.Millisecond})
	tree := bigTree(t, 30)
	dbg, detach := attach(srv, tree)
	defer detach()
	page := openEvents(t, srv, "")
	snap := page.next()
	require.Equal(t, "snapshot", snap.name)
	n := snap.data["n"].(float64)
	const ticks = 20
	tick(t, tree, dbg, ticks)
	// Each tick: the root and KeepRunningUntilFailure enter RUNNING once,
	// then every Sequence and leaf goes IDLE -> SUCCESS -> IDLE.
	for n < float64(2+ticks*2*28) {
		e := page.next()
		// The pump sends at a tick's end: a delta may carry only the
		// loop's figures, the tick's transitions having gone in the one
		// before. Every transition still comes once, in order.
		trs, _ := e.data["transitions"].([]any)
		for _, tr := range trs {
			got := tr.([]any)[0].(float64)
			require.Equal(t, n+1, got, "the transitions counted without gaps")
			n = got
		}
	}
}

// TestEveryPageSeesTheTreeHeld: a hold reaches the stream even when it
// leaves nothing else to send — a breakpoint before the root holds the
// tick before any node has moved, and the tree's blackboard is quiet.
// (The page that asked learns of its action from the answer; every other
// page, and the asking page once the tick reaches the breakpoint, only
// from the stream.)
func TestEveryPageSeesTheTreeHeld(t *testing.T) {
	for _, tc := range []struct {
		name string
		ask  string
		want string // the hold the stream must show: uid and where
	}{
		{"a breakpoint before the root", `{"op":"break","uid":1,"at":"before","on":true}`, "1 before"},
		{"a pause", `{"op":"pause"}`, "1 before"},
		{"a breakpoint after the root", `{"op":"break","uid":1,"at":"after","on":true}`, "1 after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, studio.Conf{AllowControl: true, PumpEvery: 2 * time.Millisecond})
			tree := buildXML(t, "quiet.xml", `<root BTCPP_format="4"><BehaviorTree ID="Quiet">
				<KeepRunningUntilFailure><AlwaysSuccess/></KeepRunningUntilFailure></BehaviorTree></root>`)
			dbg, detach := attach(srv, tree)
			defer detach()
			tick(t, tree, dbg, 2)
			page := openEvents(t, srv, "")
			require.Equal(t, "snapshot", page.next().name)
			held := make(chan string, 64)
			go func() {
				for {
					e, err := page.nextErr()
					if err != nil {
						close(held)
						return
					}
					d, _ := e.data["debug"].(map[string]any)
					if h, ok := d["held"].(map[string]any); ok {
						held <- fmt.Sprint(h["uid"], " ", h["at"])
					}
				}
			}()
			code, body := post(t, srv.Addr(), "", tc.ask)
			require.Equal(t, http.StatusOK, code, body)
			ticked := make(chan struct{})
			go func() { defer close(ticked); tick(t, tree, dbg, 1) }()
			select {
			case got := <-held:
				assert.Equal(t, tc.want, got)
			case <-time.After(5 * time.Second):
				assert.Fail(t, "the stream never showed the tree held")
			}
			require.True(t, dbg.Paused())
			dbg.Resume()
			<-ticked
		})
	}
}
