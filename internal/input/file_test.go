package input

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("a", size)), 0o644))
		return p
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(dir, "zero.yaml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	small := Kind{What: "robot profile", MaxSize: 1024}
	cases := []struct {
		name     string
		path     string
		want     int    // bytes read, when no error
		wantErr  string // the whole message
		notExist bool
	}{
		{name: "a regular file", path: write("ok.yaml", 1024), want: 1024},
		{name: "an empty file", path: write("empty.yaml", 0), want: 0},
		{name: "one byte too many", path: write("big.yaml", 1025), wantErr: dir + "/big.yaml: file is 1025 bytes, more than the 1024 bytes (1 KiB) a robot profile may have"},
		{name: "a FIFO is refused without waiting for a writer", path: fifo, wantErr: fifo + ": a named pipe (FIFO), not a regular file: a robot profile is read from a regular file"},
		{name: "a link to /dev/zero", path: zero, wantErr: zero + ": a character device, not a regular file: a robot profile is read from a regular file"},
		{name: "/dev/zero", path: "/dev/zero", wantErr: "/dev/zero: a character device, not a regular file: a robot profile is read from a regular file"},
		{name: "a directory", path: dir, wantErr: dir + ": a directory, not a regular file: a robot profile is read from a regular file"},
		{name: "a missing file", path: filepath.Join(dir, "nope.yaml"), notExist: true},
	}
	// ReadFile and ReadFileString read the same way.
	reads := []struct {
		name string
		read func(string, Kind) (string, error)
	}{
		{"ReadFile", func(p string, k Kind) (string, error) { b, err := ReadFile(p, k); return string(b), err }},
		{"ReadFileString", ReadFileString},
	}
	for _, r := range reads {
		for _, c := range cases {
			t.Run(r.name+"/"+c.name, func(t *testing.T) {
				start := time.Now()
				data, err := r.read(c.path, small)
				assert.Less(t, time.Since(start), time.Second)
				switch {
				case c.notExist:
					require.Error(t, err)
					assert.ErrorIs(t, err, fs.ErrNotExist)
				case c.wantErr != "":
					require.EqualError(t, err, c.wantErr)
					var be *runtime.BuildError
					require.True(t, errors.As(err, &be))
					assert.Equal(t, c.path, be.Pos.File)
				default:
					require.NoError(t, err)
					assert.Equal(t, strings.Repeat("a", c.want), data)
				}
			})
		}
	}
}

// TestReadFileStringAllocatesTheFileOnce: the string is sized from the
// file, not grown as it is read and then copied.
func TestReadFileStringAllocatesTheFileOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tree.xml")
	const size = 1 << 20
	require.NoError(t, os.WriteFile(p, []byte(strings.Repeat("a", size)), 0o644))
	var s string
	var err error
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	s, err = ReadFileString(p, Tree)
	goruntime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, s, size)
	// The string (size+1 rounded to a page) and io.Copy's 32 KiB buffer.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(size+size/8), "bytes allocated to read a 1 MiB file")
}

func TestCheckSize(t *testing.T) {
	k := Kind{What: "places file", MaxSize: 4}
	assert.NoError(t, k.CheckSize("p.yaml", []byte("1234")))
	assert.EqualError(t, k.CheckSize("p.yaml", []byte("12345")), "p.yaml: file is 5 bytes, more than the 4 bytes (4 bytes) a places file may have")
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 20: "1 MiB", 64 << 20: "64 MiB", 512 << 10: "512 KiB", 1000: "1000 bytes"} {
		assert.Equal(t, want, Size(n))
	}
}
