package studio_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// importRE finds a module's static imports of its siblings.
var importRE = regexp.MustCompile(`(?m)^import [^;]* from '\./([a-z]+\.js)';`)

// TestPageModulesAreServedAsJavaScript: the page is native ES modules the
// server embeds. Every file of the folder is served with its type (a
// module whose type is not JavaScript is refused by the browser under
// nosniff, whatever the system's mime.types says), revalidated each time,
// and every module a module imports is one the server serves.
func TestPageModulesAreServedAsJavaScript(t *testing.T) {
	srv := newServer(t, studio.Conf{})
	files, err := filepath.Glob("assets/*")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 8, "the page's files")
	want := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8"}
	get := func(t *testing.T, name string) (*http.Response, string) {
		resp, err := http.Get(srv.URL() + name)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(b)
	}
	for _, f := range append(files, "assets/") {
		name := strings.TrimPrefix(f, "assets/")
		t.Run("/"+name, func(t *testing.T) {
			resp, body := get(t, name)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			ext := filepath.Ext(name)
			if name == "" {
				ext = ".html"
			}
			assert.Equal(t, want[ext], resp.Header.Get("Content-Type"))
			assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
			if ext != ".js" {
				return
			}
			src, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.Equal(t, string(src), body)
			for _, m := range importRE.FindAllStringSubmatch(body, -1) {
				r, _ := get(t, m[1])
				assert.Equal(t, http.StatusOK, r.StatusCode, "%s imports %s", name, m[1])
			}
		})
	}
	t.Run("a missing module is 404, not a page", func(t *testing.T) {
		resp, _ := get(t, "nothere.js")
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.NotContains(t, resp.Header.Get("Content-Type"), "javascript")
	})
}
