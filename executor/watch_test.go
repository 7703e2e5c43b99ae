package executor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
)

// TestWatchReloads: with Watch, files written into the missions directory
// (added, broken, fixed, removed, an included file changed) are reloaded
// as ~reload would: a broken one changes nothing and its problem is the
// last reload error; a burst of writes faster than the settle time is one
// reload.
func TestWatchReloads(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	tree := func(id string) string {
		return `<root BTCPP_format="4"><BehaviorTree ID="` + id + `"><AlwaysSuccess/></BehaviorTree></root>`
	}
	write("wait.xml", waitTree)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "lib"), 0o755))
	write("lib/models.xml", `<root BTCPP_format="4"><BehaviorTree ID="Inc"><AlwaysSuccess/></BehaviorTree></root>`)
	write("uses.xml", `<root BTCPP_format="4"><include path="lib/models.xml"/><BehaviorTree ID="Uses"><SubTree ID="Inc"/></BehaviorTree></root>`)
	const settle = 2 * time.Second
	s := serve(t, dir, func(c *Conf) { c.Watch, c.WatchEvery, c.WatchSettle = true, 20*time.Millisecond, settle })
	has := func(id string) bool {
		return slices.ContainsFunc(s.srv.List().Missions, func(m ros.Mission) bool { return m.Id == id })
	}
	for _, step := range []struct {
		name      string
		do        func()
		present   []string
		absent    []string
		reloadErr string
	}{
		{name: "a file added", do: func() { write("added.xml", tree("Added")) }, present: []string{"Added", "Wait"}},
		{name: "a file broken: nothing changes", do: func() { write("added.xml", "<root") },
			present: []string{"Added"}, reloadErr: "added.xml:1"},
		{name: "fixed, with another tree", do: func() { write("added.xml", tree("Fixed")) }, present: []string{"Fixed"}, absent: []string{"Added"}},
		{name: "an included file outside the directory's tree files changed", do: func() {
			// Inc renamed: Uses no longer finds it.
			write("lib/models.xml", `<root BTCPP_format="4"><BehaviorTree ID="Inc2"><AlwaysSuccess/></BehaviorTree></root>`)
		}, present: []string{"Uses"}, reloadErr: `"Inc"`},
		{name: "the included file put back", do: func() {
			write("lib/models.xml", `<root BTCPP_format="4"><BehaviorTree ID="Inc"><AlwaysSuccess/></BehaviorTree></root>`)
		}, present: []string{"Uses"}},
		{name: "removed", do: func() { require.NoError(t, os.Remove(filepath.Join(dir, "added.xml"))) }, absent: []string{"Fixed"}},
	} {
		t.Run(step.name, func(t *testing.T) {
			before := s.srv.Status().Reloads
			step.do()
			require.Eventually(t, func() bool {
				st := s.srv.Status()
				if step.reloadErr != "" {
					return strings.Contains(st.LastReloadError, step.reloadErr)
				}
				return st.Reloads > before && st.LastReloadError == ""
			}, 30*time.Second, 10*time.Millisecond, "the watch reloads")
			for _, id := range step.present {
				assert.True(t, has(id), "%s is a mission", id)
			}
			for _, id := range step.absent {
				assert.False(t, has(id), "%s is no mission", id)
			}
		})
	}
	t.Run("a burst of writes is one reload", func(t *testing.T) {
		before := s.srv.Status().Reloads
		// Written back to back, far faster than settle: an editor's
		// save in steps. The first steps alone would not load.
		write("burst.xml", "<root")
		write("burst.xml", `<root BTCPP_format="4">`)
		write("burst.xml", tree("Burst"))
		require.Eventually(t, func() bool { return has("Burst") }, 30*time.Second, 10*time.Millisecond)
		st := s.srv.Status()
		assert.Equal(t, before+1, st.Reloads, "one reload")
		assert.Empty(t, st.LastReloadError, "no half-written file was read")
	})
}

// TestWatchSeesAChangeRightAfterAReload: a file written while a reload
// runs, or just after it, before the watch looks again, is reloaded too:
// a tree file changed (the watch looked at the files after its reload and
// took such a change for read: executor TestWatchReloads missed one in a
// full run) and a tree file added (the watch took the new file's stamp
// from its look after the reload: TestWatchReloads' burst, written right
// after the reload of the step before, was never loaded in a full run).
func TestWatchSeesAChangeRightAfterAReload(t *testing.T) {
	for _, tc := range []struct {
		name, file string
	}{
		{"the tree file changed", "a.xml"},
		{"a tree file added", "b.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, id string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(`<root BTCPP_format="4"><BehaviorTree ID="`+id+`"><AlwaysSuccess/></BehaviorTree></root>`), 0o644))
			}
			write("a.xml", "First")
			var once sync.Once
			s := serve(t, dir, func(c *Conf) {
				c.Watch, c.WatchEvery, c.WatchSettle = true, 20*time.Millisecond, 200*time.Millisecond
				c.watchReloaded = func() { once.Do(func() { write(tc.file, "Third") }) }
			})
			has := func(id string) bool {
				return slices.ContainsFunc(s.srv.List().Missions, func(m ros.Mission) bool { return m.Id == id })
			}
			write("a.xml", "Second") // reloaded; right after that reload, Third is written
			require.Eventually(t, func() bool { return has("Third") }, 30*time.Second, 10*time.Millisecond, "the change written right after the reload is reloaded")
		})
	}
}

// TestWatchSeesAFileWrittenBeforeItBegan: a file written after the
// catalog was read but before the server (and its watch) started is a
// change, reloaded as any (the watch took its first look when its
// goroutine first ran, and took such a file for read: cmd/btrobot
// TestRoslaunchStartsTheMissionServer waited a minute for a reload in a
// full run).
func TestWatchSeesAFileWrittenBeforeItBegan(t *testing.T) {
	dir := t.TempDir()
	tree := func(id string) []byte {
		return []byte(`<root BTCPP_format="4"><BehaviorTree ID="` + id + `"><AlwaysSuccess/></BehaviorTree></root>`)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.xml"), tree("First"), 0o644))
	s := serve(t, dir, func(c *Conf) {
		// Between the catalog's reading and the server's start, as a
		// loaded machine may have it.
		require.NoError(t, os.WriteFile(filepath.Join(dir, "b.xml"), tree("Second"), 0o644))
		c.Watch, c.WatchEvery, c.WatchSettle = true, 20*time.Millisecond, 100*time.Millisecond
	})
	require.Eventually(t, func() bool {
		return slices.ContainsFunc(s.srv.List().Missions, func(m ros.Mission) bool { return m.Id == "Second" })
	}, 30*time.Second, 10*time.Millisecond, "the file written before the watch began is reloaded")
	assert.Equal(t, 1, s.srv.Status().Reloads, "one reload")
}

// TestReadStamps: what a catalog records of the files it read, from a look
// before the reading and one after — a tree file that appeared in between
// (written while the catalog was loading, read or not) is unknown, so that
// the watch reloads it.
func TestReadStamps(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	old, changed := stamp{size: 10, modTime: t0}, stamp{size: 12, modTime: t0.Add(time.Second)}
	for _, tc := range []struct {
		name          string
		before, after files
		want          files
	}{
		{"unchanged", files{"/m/a.xml": old}, files{"/m/a.xml": old}, files{"/m/a.xml": old}},
		{"changed while read: the stamp from before",
			files{"/m/a.xml": old}, files{"/m/a.xml": changed}, files{"/m/a.xml": old}},
		{"a tree file written while read: unknown",
			files{"/m/a.xml": old}, files{"/m/a.xml": old, "/m/b.xml": changed},
			files{"/m/a.xml": old, "/m/b.xml": unknown}},
		{"an included file from elsewhere: the stamp from after",
			files{"/m/a.xml": old}, files{"/m/a.xml": old, "/lib/sub.xml": changed},
			files{"/m/a.xml": old, "/lib/sub.xml": changed}},
		{"a file of the directory that is not a tree file: the stamp from after",
			files{"/m/a.xml": old}, files{"/m/a.xml": old, "/m/profile.yaml": changed},
			files{"/m/a.xml": old, "/m/profile.yaml": changed}},
		{"a file removed while read: gone from what was read",
			files{"/m/a.xml": old, "/m/b.xml": old}, files{"/m/a.xml": old}, files{"/m/a.xml": old}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, readStamps("/m/", tc.before, tc.after))
		})
	}
}
