package studio_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// FuzzControlRequest: whatever a page (or anyone on the port) posts as a
// debugging action, the server answers 200 or 400 with a message, never
// panics, and a tick still completes unless the request was a pause,
// step or breakpoint that holds it.
func FuzzControlRequest(f *testing.F) {
	for _, seed := range []string{
		`{"op":"pause"}`, `{"op":"resume"}`, `{"op":"step"}`,
		`{"op":"break","uid":1,"at":"after","on":true}`, `{"op":"force","uid":3,"status":"FAILURE"}`,
		`{"op":"set","scope":"Big","key":"k","value":"1.5"}`, `{"op":"set","scope":"Big","key":"","value":""}`,
		`{"op":"break","uid":4294967295,"at":"before"}`, `{"op":7}`, `[]`, ``, `{"op":"pause","extra":1}`,
		`{"op":"set","scope":"Big","key":"@x","value":"{\"a\":[1,2]}"}`,
	} {
		f.Add(seed)
	}
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", AllowControl: true})
	require.NoError(f, err)
	defer srv.Close()
	tree := bigTree(f, 12)
	dbg, detach := attach(srv, tree)
	defer detach()
	f.Fuzz(func(t *testing.T, body string) {
		resp, err := http.Post("http://"+srv.Addr()+"/api/runs/1/control", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Contains(t, []int{http.StatusOK, http.StatusBadRequest}, resp.StatusCode, "%q: status %d %s", body, resp.StatusCode, msg)
		if resp.StatusCode == http.StatusBadRequest {
			require.NotEmpty(t, msg, "%q: refused without a reason", body)
		}
		done := make(chan struct{})
		go func() { defer close(done); tick(t, tree, dbg, 1) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			require.True(t, dbg.Paused(), "%q: the tick neither completed nor is held by the debugger", body)

		}
		// Leave the debugger clean for the next input: no breakpoint, no
		// pause, nothing forced.
		for uid := 1; uid <= 12; uid++ {
			for _, at := range []string{"before", "after"} {
				r, _ := http.Post("http://"+srv.Addr()+"/api/runs/1/control", "application/json",
					strings.NewReader(`{"op":"break","at":"`+at+`","on":false,"uid":`+itoa(uid)+`}`))
				r.Body.Close()
			}
			r, _ := http.Post("http://"+srv.Addr()+"/api/runs/1/control", "application/json", strings.NewReader(`{"op":"force","status":"IDLE","uid":`+itoa(uid)+`}`))
			r.Body.Close()
		}
		r, _ := http.Post("http://"+srv.Addr()+"/api/runs/1/control", "application/json", strings.NewReader(`{"op":"resume"}`))
		r.Body.Close()
		<-done
	})
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
