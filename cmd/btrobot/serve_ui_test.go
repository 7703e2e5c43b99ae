package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestServeShowsItselfInTheStudio: `btrobot serve --ui --allow-control`,
// the program: its studio shows the server at /api/server (idle, its
// missions), and a pause asked there is the server's (/api/server says
// paused, as ~pause would).
func TestServeShowsItselfInTheStudio(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wait.xml"), []byte(`<root BTCPP_format="4">
  <BehaviorTree ID="Wait"><Sleep msec="3600000"/></BehaviorTree></root>`), 0o644))
	ui := "http://127.0.0.1:" + strconv.Itoa(rostest.FreePort(t)) + "/"
	srv := rostest.Start(t, freeMasterURI(t), bin, "serve", "--missions", dir, "--master", "auto",
		"--ui", strings.TrimSuffix(strings.TrimPrefix(ui, "http://"), "/"), "--allow-control")
	srv.WaitLine(t, "missions of", 30*time.Second)
	type state struct {
		Server struct {
			State    string   `json:"state"`
			Missions []string `json:"missions"`
		} `json:"server"`
		Control bool `json:"control"`
	}
	get := func() state {
		t.Helper()
		resp, err := http.Get(ui + "api/server")
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var s state
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
		return s
	}
	s := get()
	assert.Equal(t, "idle", s.Server.State)
	assert.Equal(t, []string{"Wait"}, s.Server.Missions)
	assert.True(t, s.Control)
	resp, err := http.Post(ui+"api/server/control", "application/json", strings.NewReader(`{"op":"pause"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "paused", get().Server.State)
	srv.Interrupt()
	require.NoError(t, srv.WaitExit(t, 20*time.Second))
}
