package studio_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// FuzzEditorTarget: whatever profile and world a request names, the check
// answers 200 with problems (never a panic), and nothing outside the
// folder is read: a secret beside it never shows in an answer.
func FuzzEditorTarget(f *testing.F) {
	for _, seed := range [][2]string{
		{"btrobot:robots/sim.yaml", "btrobot:worlds/office"}, {"mine.yaml", "lab"}, {"../secret.yaml", "../"},
		{"/etc/passwd", "/"}, {"btrobot:../robots/sim.yaml", "btrobot:worlds/../worlds/office"}, {".", "."},
		{"btrobot:", "btrobot:worlds"}, {"lab/places.yaml", "mine.yaml"}, {"a\\..\\..\\secret.yaml", "lab/../.."},
	} {
		f.Add(seed[0], seed[1])
	}
	parent := f.TempDir()
	const secret = "leaked_secret: 1\n" // read as a profile, its problem would name it
	require.NoError(f, os.WriteFile(filepath.Join(parent, "secret.yaml"), []byte(secret), 0o644))
	dir := filepath.Join(parent, "folder")
	copyMissionsTo(f, mkdir(f, dir))
	sim, err := os.ReadFile(simProfile)
	require.NoError(f, err)
	require.NoError(f, os.WriteFile(filepath.Join(dir, "mine.yaml"), sim, 0o644))
	require.NoError(f, os.Symlink(filepath.Join(parent, "secret.yaml"), filepath.Join(dir, "link.yaml")))
	f.Add("link.yaml", "")
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	require.NoError(f, err)
	defer srv.Close()
	doc := `{"main":"M","trees":[{"id":"M","attrs":[],"root":{"type":"NavigateTo","attrs":[["goal","kitchen"]],"children":[]}}]}`
	f.Fuzz(func(t *testing.T, profile, world string) {
		body, _ := json.Marshal(map[string]any{"path": "new.xml", "doc": json.RawMessage(doc), "profile": profile, "world": world})
		resp, err := http.Post("http://"+srv.Addr()+"/api/check", "application/json", strings.NewReader(string(body)))
		require.NoError(t, err)
		defer resp.Body.Close()
		var r struct {
			Problems []struct{ Msg string } `json:"problems"`
		}
		require.Equal(t, http.StatusOK, resp.StatusCode, "status")
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
		for _, p := range r.Problems {
			require.NotContains(t, p.Msg, "leaked_secret", "profile %q, world %q: the answer shows a file outside the folder: %s", profile, world, p.Msg)
		}
	})
}

func mkdir(tb testing.TB, dir string) string {
	tb.Helper()
	require.NoError(tb, os.MkdirAll(dir, 0o755))

	return dir
}
