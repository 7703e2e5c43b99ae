//go:build unix

package trees

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnreadableFiles: a tree or an include that is not a regular file of
// bounded size is refused at once, an include at its path attribute.
func TestUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	big := write("big.xml", make([]byte, MaxFileSize+1))
	fifo := filepath.Join(dir, "fifo.xml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(dir, "zero.xml")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	include := func(name, target string) string {
		return write(name, []byte("<root BTCPP_format=\"4\">\n  <include path=\""+target+"\"/>\n</root>\n"))
	}
	const notRegular = ", not a regular file: a tree file is read from a regular file"
	cases := []struct {
		name string
		path string
		want string
	}{
		{"a file too large", big, big + ": file is 33554433 bytes, more than the 33554432 bytes (32 MiB) a tree file may have"},
		{"a directory", dir, dir + ": a directory" + notRegular},
		{"a FIFO", fifo, fifo + ": a named pipe (FIFO)" + notRegular},
		{"a link to /dev/zero", zero, zero + ": a character device" + notRegular},
		{"an included FIFO", include("inc_fifo.xml", "fifo.xml"), dir + "/inc_fifo.xml:2:12: cannot include fifo.xml: a named pipe (FIFO)" + notRegular},
		{"an included /dev/zero", include("inc_zero.xml", "/dev/zero"), dir + "/inc_zero.xml:2:12: cannot include /dev/zero: a character device" + notRegular},
		{"an included file too large", include("inc_big.xml", "big.xml"), dir + "/inc_big.xml:2:12: cannot include big.xml: file is 33554433 bytes, more than the 33554432 bytes (32 MiB) a tree file may have"},
		{"a missing include", include("inc_missing.xml", "missing.xml"), dir + "/inc_missing.xml:2:12: cannot include missing.xml: no such file or directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := Load(c.path)
			assert.Less(t, time.Since(start), 2*time.Second)
			assert.Equal(t, []string{c.want}, errorTexts(t, err))
			var le *LoadError
			require.ErrorAs(t, err, &le)
			assert.True(t, le.Unreadable)
		})
	}
	_, err := Load(filepath.Join(dir, "missing.xml"))
	got := errorTexts(t, err)
	assert.Len(t, got, 1, "Load(missing): got %q", got)
	assert.Contains(t, got[0], "no such file", "Load(missing): got %q", got)
}
