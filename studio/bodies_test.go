package studio_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// TestBadBodiesGetAClearAnswer: every route that takes a body, given
// what no page sends — not JSON, two values, the wrong types, a null
// tree or node, no document, too much — answers 400 (413 for too much)
// saying what is wrong; nothing panics and nothing is written.
func TestBadBodiesGetAClearAnswer(t *testing.T) {
	dir := t.TempDir()
	copyMissionsTo(t, dir)
	srv := newServer(t, studio.Conf{Dir: dir, AllowControl: true})
	tree := bigTree(t, 12)
	_, detach := attach(srv, tree)
	defer detach()
	hello, err := os.ReadFile(filepath.Join(dir, "hello.xml"))
	require.NoError(t, err)
	nullTree := `{"path":"hello.xml","doc":{"main":"X","trees":[null]},"profile":"btrobot:robots/sim.yaml","world":"btrobot:worlds/office"}`
	nullChild := `{"path":"hello.xml","doc":{"main":"X","trees":[{"id":"X","attrs":[],"root":{"type":"Sequence","attrs":[],"children":[null]}}]},"profile":"btrobot:robots/sim.yaml","world":"btrobot:worlds/office"}`
	docRoutes := []string{"/api/check", "/api/save", "/api/subtree", "/api/subtrees", "/api/run"}
	type bodyCase struct {
		name, body string
		want       int
		saying     string
	}
	cases := []bodyCase{
		{"not JSON", `pause`, 400, "not JSON at byte"},
		{"empty", ``, 400, "no body"},
		{"cut short", `{"path":"hello.xml"`, 400, "ends early"},
		{"two values", `{"path":"hello.xml"}{}`, 400, "more than one JSON value"},
		{"an array", `[]`, 400, "the body is array, not an object"},
		{"a number for the path", `{"path":1}`, 400, "path is number, not a string"},
	}
	for _, r := range docRoutes {
		for _, c := range append(cases,
			bodyCase{"a null tree", nullTree, 400, "tree 0 is null"},
			bodyCase{"a null child", nullChild, 400, "a null child of a Sequence node"},
		) {
			t.Run(r+"/"+c.name, func(t *testing.T) {
				code, body := postRaw(t, srv.Addr(), r, c.body)
				assert.Equal(t, c.want, code, body)
				assert.Contains(t, body, c.saying)
			})
		}
	}
	for _, r := range []string{"/api/check", "/api/save", "/api/subtree", "/api/subtrees"} {
		t.Run(r+"/no document", func(t *testing.T) {
			code, body := postRaw(t, srv.Addr(), r, `{"path":"hello.xml","doc":null}`)
			assert.Equal(t, 400, code, body)
			assert.Contains(t, body, "no doc")
		})
	}
	for _, c := range []struct {
		name, path, body string
		want             int
		saying           string
	}{
		{"control: an unknown field", "/api/runs/1/control", `{"op":"pause","evil":1}`, 400, "unknown field"},
		{"control: more than 64 KiB", "/api/runs/1/control", `{"op":"set","value":"` + strings.Repeat("x", 70<<10) + `"}`, 413, "larger than the 65536 bytes"},
		{"new: more than 4 KiB", "/api/new", `{"path":"` + strings.Repeat("a", 5000) + `.xml"}`, 413, "larger than the 4096 bytes"},
		{"check: more than 16 MiB", "/api/check", `{"path":"hello.xml","pad":"` + strings.Repeat("x", 17<<20) + `"}`, 413, "larger than the 16777216 bytes"},
		{"check: nested past what JSON decodes", "/api/check", `{"path":"hello.xml","doc":` + strings.Repeat(`[`, 20000) + `}`, 400, "exceeded max depth"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := postRaw(t, srv.Addr(), c.path, c.body)
			assert.Equal(t, c.want, code, body)
			assert.Contains(t, body, c.saying)
		})
	}
	now, err := os.ReadFile(filepath.Join(dir, "hello.xml"))
	require.NoError(t, err)
	assert.Equal(t, string(hello), string(now), "nothing written")
}

// postRaw posts body as JSON; the status and the answer.
func postRaw(t *testing.T, addr, path, body string) (int, string) {
	t.Helper()
	resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(body))
	require.NoError(t, err, "an answer (a panic closes the connection)")
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
