package studio_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/studio"
)

// secretTree is a tree outside the editor's folder: were it read, its
// tree's ID (or its bytes in an error) would reach the page.
const secretTree = `<root BTCPP_format="4"><BehaviorTree ID="SECRET_TREE"><AlwaysSuccess/></BehaviorTree></root>`

// escapeRig is a folder with links and includes out of it, beside a
// folder outside holding a tree, a profile, a world and its map.
type escapeRig struct {
	dir, outside string
	srv          *studio.Server
}

func newEscapeRig(t *testing.T) *escapeRig {
	t.Helper()
	root := t.TempDir()
	r := &escapeRig{dir: filepath.Join(root, "folder"), outside: filepath.Join(root, "outside")}
	require.NoError(t, os.MkdirAll(r.dir, 0o755))
	out := func(name, content string) string { return writeIn(t, r.outside, name, content) }
	secret := out("secret.xml", secretTree)
	out("sub/inner.xml", secretTree)
	prof, err := os.ReadFile(simProfile)
	require.NoError(t, err)
	out("secret_robot.yaml", string(prof))
	for _, f := range []string{"places.yaml", "office.yaml", "office.pgm"} {
		data, err := os.ReadFile(filepath.Join(officeWorld, f))
		require.NoError(t, err)
		out("world/"+f, string(data))
	}
	in := func(name, content string) { writeIn(t, r.dir, name, content) }
	link := func(name, target string) {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.Symlink(target, p))
	}
	copyMissionsTo(t, r.dir)
	link("link.xml", secret)
	link("passwd.xml", "/etc/passwd")
	link("subdir", filepath.Join(r.outside, "sub"))
	link("dangling.xml", filepath.Join(r.outside, "made_through_a_link.xml"))
	link("inside_link.xml", "hello.xml") // a link that stays inside: fine
	inc := func(p string) string {
		return `<root BTCPP_format="4" main_tree_to_execute="Main"><include path="` + p + `"/><BehaviorTree ID="Main"><AlwaysSuccess/></BehaviorTree></root>`
	}
	in("inc_link.xml", inc("link.xml"))
	in("inc_abs.xml", inc(secret))
	in("inc_entity.xml", inc(strings.ReplaceAll(secret, "/", "&#47;")))
	in("inc_dotdot.xml", inc("../outside/secret.xml"))
	in("inc_nested.xml", inc("lib/a.xml"))
	in("lib/a.xml", `<root BTCPP_format="4"><include path="../link.xml"/></root>`)
	link("robot.yaml", filepath.Join(r.outside, "secret_robot.yaml"))
	link("linkworld", filepath.Join(r.outside, "world"))
	in("mapworld/places.yaml", "map: mapworld.yaml\nspawns:\n  - {name: robot1, pose: [0, 0, 0]}\n")
	in("mapworld/mapworld.yaml", "image: "+filepath.Join(r.outside, "world", "office.pgm")+"\nresolution: 0.05\norigin: [0, 0, 0]\n")
	require.NoError(t, syscall.Mkfifo(filepath.Join(r.dir, "fifo.xml"), 0o644))
	r.srv = newServer(t, studio.Conf{Dir: r.dir})
	return r
}

// TestTheEditorStaysInItsFolder: every route that reads or writes a file,
// given a path that leads out of the folder — a symbolic link (to a tree,
// to /etc/passwd, to a folder, dangling), an <include> that leaves it
// (through a link, absolute, written with an entity, with .., nested), a
// profile, a world or a map image outside — refuses it and says why,
// shows nothing of what lies outside, and writes nothing there. A FIFO is
// refused without blocking.
func TestTheEditorStaysInItsFolder(t *testing.T) {
	r := newEscapeRig(t)
	run := func(p string) map[string]any {
		return map[string]any{"path": p, "profile": "btrobot:robots/sim.yaml", "world": "btrobot:worlds/office"}
	}
	emptyDoc := map[string]any{"main": "X", "trees": []any{}}
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   any
		want   int
		saying string
	}{
		{"Open a link out", "GET", "/api/file?path=link.xml", nil, 400, "outside the folder"},
		{"Open a link to /etc/passwd", "GET", "/api/file?path=passwd.xml", nil, 400, "outside the folder"},
		{"Open through a linked folder", "GET", "/api/file?path=subdir/inner.xml", nil, 400, "outside the folder"},
		{"Open an include through a link", "GET", "/api/file?path=inc_link.xml", nil, 400, "outside the folder"},
		{"Open an absolute include", "GET", "/api/file?path=inc_abs.xml", nil, 400, "outside the folder"},
		{"Open an include written with an entity", "GET", "/api/file?path=inc_entity.xml", nil, 400, "outside the folder"},
		{"Open an include with ..", "GET", "/api/file?path=inc_dotdot.xml", nil, 400, "outside the folder"},
		{"Open an include of an include through a link", "GET", "/api/file?path=inc_nested.xml", nil, 400, "outside the folder"},
		{"Open a FIFO", "GET", "/api/file?path=fifo.xml", nil, 400, "not a regular file"},
		{"Open a link that stays inside", "GET", "/api/file?path=inside_link.xml", nil, 200, "Hello"},
		{"Run a link out", "POST", "/api/run", run("link.xml"), 400, "outside the folder"},
		{"Run a link to /etc/passwd", "POST", "/api/run", run("passwd.xml"), 400, "outside the folder"},
		{"Run an include through a link", "POST", "/api/run", run("inc_link.xml"), 400, "outside the folder"},
		{"Run an include of an include", "POST", "/api/run", run("inc_nested.xml"), 400, "outside the folder"},
		{"Run a FIFO", "POST", "/api/run", run("fifo.xml"), 400, "not a regular file"},
		{"Run with a profile out", "POST", "/api/run", map[string]any{"path": "hello.xml", "profile": "robot.yaml", "world": "btrobot:worlds/office"}, 400, "outside the folder"},
		{"Run in a world out", "POST", "/api/run", map[string]any{"path": "hello.xml", "profile": "btrobot:robots/sim.yaml", "world": "linkworld"}, 400, "outside the folder"},
		{"Run in a world whose map image is out", "POST", "/api/run", map[string]any{"path": "hello.xml", "profile": "btrobot:robots/sim.yaml", "world": "mapworld"}, 400, "outside the folder"},
		{"Check against a profile out", "POST", "/api/check", map[string]any{"path": "hello.xml", "doc": emptyDoc, "profile": "robot.yaml"}, 200, "outside the folder"},
		{"Check a link out", "POST", "/api/check", map[string]any{"path": "link.xml", "doc": emptyDoc}, 400, "outside the folder"},
		{"Save over a link out", "POST", "/api/save", map[string]any{"path": "link.xml", "doc": emptyDoc}, 400, "outside the folder"},
		{"Save through a dangling link out", "POST", "/api/save", map[string]any{"path": "dangling.xml", "doc": emptyDoc}, 500, "escapes"},
		{"Save through a linked folder", "POST", "/api/save", map[string]any{"path": "subdir/new.xml", "doc": emptyDoc}, 500, "escapes"},
		{"New through a linked folder", "POST", "/api/new", map[string]any{"path": "subdir/new.xml"}, 400, "escapes"},
		{"New through a dangling link", "POST", "/api/new", map[string]any{"path": "dangling.xml"}, 400, "exists"},
		{"Subtrees of a link out", "POST", "/api/subtrees", map[string]any{"path": "link.xml", "doc": emptyDoc}, 400, "outside the folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := 0, []byte(nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				if tc.method == "GET" {
					resp, err := http.Get("http://" + r.srv.Addr() + tc.path)
					if !assert.NoError(t, err) {
						return
					}
					defer resp.Body.Close()
					code = resp.StatusCode
					body = readAll(resp)
					return
				}
				code, body = postJSON(t, r.srv.Addr(), tc.path, tc.body)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				require.FailNow(t, "no answer within 30 s")
			}
			assert.Equal(t, tc.want, code, string(body))
			assert.Contains(t, string(body), tc.saying)
			assert.NotContains(t, string(body), "SECRET_TREE", "nothing of the file outside shown")
			assert.NotContains(t, string(body), "root:", "nothing of /etc/passwd shown")
			assert.NoFileExists(t, filepath.Join(r.outside, "made_through_a_link.xml"))
			assert.NoFileExists(t, filepath.Join(r.outside, "sub", "new.xml"))
			data, err := os.ReadFile(filepath.Join(r.outside, "secret.xml"))
			require.NoError(t, err)
			assert.Equal(t, secretTree, string(data), "the file outside as it was")
		})
	}
	t.Run("the listing shows nothing from outside", func(t *testing.T) {
		var files struct {
			Files []struct {
				Path  string   `json:"path"`
				Trees []string `json:"trees"`
				Error string   `json:"error"`
			} `json:"files"`
		}
		getJSON(t, r.srv.Addr(), "/api/files", &files)
		seen := map[string]bool{}
		for _, f := range files.Files {
			seen[f.Path] = true
			assert.NotContains(t, f.Trees, "SECRET_TREE", f.Path)
			assert.NotContains(t, f.Error, "SECRET_TREE", f.Path)
			assert.NotContains(t, f.Error, "root:", f.Path)
		}
		assert.True(t, seen["hello.xml"] && seen["inside_link.xml"], "the folder's files listed")
	})
}

// TestTheEditorBoundsPaths: a path the page names is bounded in length
// and depth, and is clean (no .., not absolute, no NUL); a clean unicode
// name is fine. The listing of a folder deeper than it walks ends, and
// says it did not see everything.
func TestTheEditorBoundsPaths(t *testing.T) {
	dir := t.TempDir()
	copyMissionsTo(t, dir)
	deep := filepath.Join(dir, filepath.FromSlash(strings.Repeat("d/", 14)))
	require.NoError(t, os.MkdirAll(deep, 0o755))
	writeIn(t, deep, "deep.xml", secretTree)
	srv := newServer(t, studio.Conf{Dir: dir})
	for _, tc := range []struct {
		name, path string
		want       int
		saying     string
	}{
		{"4,000 characters", strings.Repeat("a/", 2000) + "x.xml", 400, "bytes, more than"},
		{"nine folders deep", strings.Repeat("a/", 9) + "x.xml", 400, "folders deep"},
		{"..", "../x.xml", 400, "without .."},
		{"absolute", "/tmp/x.xml", 400, "without .."},
		{"a NUL", "a\x00b.xml", 400, "control characters"},
		{"a newline", "a\nb.xml", 400, "control characters"},
		{"eight folders deep", strings.Repeat("a/", 8) + "x.xml", 200, "x.xml"},
		{"unicode", "trees/ünïcode ツリー.xml", 200, "ツリー"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := postJSON(t, srv.Addr(), "/api/new", map[string]string{"path": tc.path})
			assert.Equal(t, tc.want, code, string(body))
			assert.Contains(t, string(body), tc.saying)
			if tc.want == 200 {
				var got struct {
					Path string `json:"path"`
				}
				getJSON(t, srv.Addr(), "/api/file?path="+url.QueryEscape(tc.path), &got)
				assert.Equal(t, tc.path, got.Path)
			}
		})
	}
	_, err := os.Stat(filepath.Join(dir, "a", "a", "a", "a", "a", "a", "a", "a", "a"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no folder deeper than a path may go was made")
	var files struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
		Whole bool `json:"whole"`
	}
	getJSON(t, srv.Addr(), "/api/files", &files)
	assert.False(t, files.Whole, "the listing says it stopped short")
	for _, f := range files.Files {
		assert.NotContains(t, f.Path, "deep.xml")
	}
}

func readAll(resp *http.Response) []byte {
	var sb strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			return []byte(sb.String())
		}
	}
}
