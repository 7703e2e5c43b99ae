package studio_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if err := os.WriteFile(filepath.Join(parent, "secret.yaml"), []byte(secret), 0o644); err != nil {
		f.Fatal(err)
	}
	dir := filepath.Join(parent, "folder")
	copyMissionsTo(f, mkdir(f, dir))
	sim, err := os.ReadFile(simProfile)
	if err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.yaml"), sim, 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(parent, "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		f.Fatal(err)
	}
	f.Add("link.yaml", "")
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Dir: dir})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	doc := `{"main":"M","trees":[{"id":"M","attrs":[],"root":{"type":"NavigateTo","attrs":[["goal","kitchen"]],"children":[]}}]}`
	f.Fuzz(func(t *testing.T, profile, world string) {
		body, _ := json.Marshal(map[string]any{"path": "new.xml", "doc": json.RawMessage(doc), "profile": profile, "world": world})
		resp, err := http.Post("http://"+srv.Addr()+"/api/check", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Problems []struct{ Msg string } `json:"problems"`
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		for _, p := range r.Problems {
			if strings.Contains(p.Msg, "leaked_secret") {
				t.Fatalf("profile %q, world %q: the answer shows a file outside the folder: %s", profile, world, p.Msg)
			}
		}
	})
}

func mkdir(tb testing.TB, dir string) string {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}
