//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadInputsAreRefusedQuickly: every input that once hung btrobot or
// grew it without end (issue 9, points 5 and 6) is refused by the built
// binary within 2 s of CPU time (and 10 s of wall time) and 200 MB, with a
// message naming the file and the problem, and the exit code of bad input.
func TestBadInputsAreRefusedQuickly(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, syscall.Mkfifo(p, 0o644))
		return p
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.Symlink(target, p))
		return p
	}
	tree := filepath.Join(repoMissions, "hello.xml")
	const notRegular = ", not a regular file: "
	fifoTree := fifo("fifo.xml")
	includer := write("includes_fifo.xml", "<root BTCPP_format=\"4\">\n  <include path=\"fifo_inc.xml\"/>\n</root>\n")
	fifo("fifo_inc.xml")
	zeroLink := link("link.yaml", "/dev/zero")
	fifoPlaces := fifo("fifoworld/places.yaml")
	write("fifoworld/fifoworld.yaml", "image: x.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n")
	write("bigmap/bigmap.yaml", "image: bigmap.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n")
	write("bigmap/bigmap.pgm", "P5 1000000 1000000 255\n")
	write("lyingmap/lyingmap.yaml", "image: lyingmap.pgm\nresolution: 0.05\norigin: [0, 0, 0]\n")
	write("lyingmap/lyingmap.pgm", "P5 8000 8000 255\n\x00")
	doubling := write("doubling.xml", `<root BTCPP_format="4"><BehaviorTree ID="Main">
  <Repeat num_cycles="-1"><Script code="s = s .. s"/></Repeat>
</BehaviorTree></root>`)

	cases := []struct {
		name string
		args []string
		code int
		want string // in stdout or stderr
	}{
		{"run --robot /dev/zero", []string{"run", "--tree", tree, "--robot", "/dev/zero"}, exitUsage,
			"/dev/zero: a character device" + notRegular + "a robot profile is read from a regular file"},
		{"run --places /dev/zero", []string{"run", "--tree", tree, "--places", "/dev/zero"}, exitUsage,
			"/dev/zero: a character device" + notRegular + "a places file is read from a regular file"},
		{"run --tree FIFO", []string{"run", "--tree", fifoTree}, exitUsage,
			fifoTree + ": a named pipe (FIFO)" + notRegular + "a tree file"},
		{"sim --world /dev/zero", []string{"sim", "--world", "/dev/zero"}, exitUsage,
			"/dev/zero: a character device" + notRegular + "a map file is read from a regular file"},
		{"sim --world with a FIFO as places.yaml", []string{"sim", "--world", filepath.Dir(fifoPlaces)}, exitUsage,
			fifoPlaces + ": a named pipe (FIFO)" + notRegular + "a places file"},
		{"sim --world with a PGM claiming 10^6 x 10^6", []string{"sim", "--world", filepath.Join(dir, "bigmap", "bigmap.yaml")}, exitUsage,
			"bigmap.pgm:1:4: width: 1000000 is too large (at most 32768)"},
		{"sim --world with a PGM header larger than its raster", []string{"sim", "--world", filepath.Join(dir, "lyingmap", "lyingmap.yaml")}, exitUsage,
			"lyingmap.pgm: raster: has 1 bytes, want 64000000 (8000x8000, 1 byte(s) per pixel)"},
		{"check link.yaml -> /dev/zero", []string{"check", zeroLink}, exitUsage,
			zeroLink + ": a character device" + notRegular + "a robot profile"},
		{"check a FIFO as a tree", []string{"check", fifoTree}, exitUsage,
			fifoTree + ": a named pipe (FIFO)" + notRegular + "a tree file"},
		{"check a FIFO as an include", []string{"check", includer}, exitUsage,
			includer + ":2:12: cannot include fifo_inc.xml: a named pipe (FIFO)" + notRegular + "a tree file"},
		{"rate: 1e-10", []string{"run", "--tree", tree, "--robot", write("rate.yaml", "rate: 1e-10\n")}, exitUsage,
			"rate.yaml:1:7: rate: rate 1e-10 Hz is out of range: want 0.1 to 1000 Hz"},
		{"watchdog: 200000000000", []string{"run", "--tree", tree, "--robot", write("wd.yaml", "rate: 20\nsafety: {velocity_topic: cmd_vel, watchdog: 200000000000}\n")}, exitUsage,
			"safety.watchdog: watchdog 200000000000 periods is out of range: want 0 (off) to 1000 tick periods"},
		{"a watchdog past int64", []string{"run", "--tree", tree, "--robot", write("wd2.yaml", "rate: 20\nsafety: {velocity_topic: cmd_vel, watchdog: 99999999999999999999999}\n")}, exitUsage,
			"wd2.yaml:2:45: safety.watchdog: watchdog 99999999999999999999999 periods is out of range: want 0 (off) to 1000 tick periods"},
		{"s = s .. s in a Repeat", []string{"tick", doubling, "--ticks", "100", "--set", "s=x"}, exitFailed,
			"Main/Repeat/Script (Script): code: 1:7: the joined string would be 2097152 bytes, more than the 1048576 (1 MiB) a script may make"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			// Linux counts a process's peak resident memory from the
			// process it was forked from: started from this test (a large
			// process), btrobot would inherit the test's peak. GNU time is
			// small, and reports its child's own.
			rss := filepath.Join(t.TempDir(), "rss")
			// It reports the child's CPU time too: the bound on the time
			// taken is on the CPU used, which a loaded machine does not
			// stretch as it does the wall clock (a hang is the 10 s above).
			cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-f", "%M %U %S", "-o", rss, bin}, c.args...)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			require.NoError(t, ctx.Err(), "still running after 10 s:\n%s", out.String())
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", out.String())
			assert.Equal(t, c.code, exit.ExitCode(), "%s", out.String())
			assert.Contains(t, out.String(), c.want)
			b, err := os.ReadFile(rss)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n") // "Command exited with non-zero status 2", then the figures
			var kb int64
			var user, sys float64
			_, err = fmt.Sscanf(lines[len(lines)-1], "%d %g %g", &kb, &user, &sys)
			require.NoError(t, err, "GNU time wrote %q", b)
			assert.Less(t, kb, int64(200<<10), "peak resident memory %d KB", kb)
			assert.Less(t, user+sys, 2.0, "CPU time %.2f s (user %.2f, system %.2f)", user+sys, user, sys)
		})
	}
}
