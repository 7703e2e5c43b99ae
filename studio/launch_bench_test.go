package studio_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// BenchmarkCheckPatrol: a check of patrol.xml (POST /api/check, the file
// as the page has it) against the palette wired to no robot, and against
// the sim profile and the office's places (read and wired anew for each
// check).
//
//	go test -run '^$' -bench CheckPatrol -benchtime 200x ./studio/
func BenchmarkCheckPatrol(b *testing.B) {
	dir := copyMissions(b)
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	require.NoError(b, err)
	defer srv.Close()
	doc := fileDoc(b, srv, "patrol.xml")
	for _, bc := range []struct {
		name           string
		profile, world string
	}{
		{"no-profile", "", ""},
		{"sim-office", "btrobot:robots/sim.yaml", "btrobot:worlds/office"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := map[string]any{"path": "patrol.xml", "doc": doc, "profile": bc.profile, "world": bc.world}
			for b.Loop() {
				code, body := postJSON(b, srv.Addr(), "/api/check", req)
				if code != http.StatusOK {
					require.Equal(b, http.StatusOK, code, string(body)) // guarded: the loop pays for the check only on failure
				}
			}
		})
	}
}

// BenchmarkRunStart: from Run (POST /api/run) to the run shown by the
// studio (master, simulator and mission started, the tree built), then
// Stop (the robot stopped, the simulator and master closed).
//
//	go test -run '^$' -bench RunStart -benchtime 10x ./studio/
func BenchmarkRunStart(b *testing.B) {
	dir := copyMissions(b)
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	require.NoError(b, err)
	defer srv.Close()
	req := map[string]any{"path": "patrol.xml", "profile": "btrobot:robots/sim.yaml", "world": "btrobot:worlds/office"}
	for b.Loop() {
		code, body := postJSON(b, srv.Addr(), "/api/run", req)
		if code != http.StatusOK {
			require.Equal(b, http.StatusOK, code, string(body)) // guarded: the loop pays for the check only on failure
		}
		b.StopTimer()
		postJSON(b, srv.Addr(), "/api/run/stop", map[string]any{})
		b.StartTimer()
	}
}
