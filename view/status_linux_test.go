package view

import (
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal of cols columns: the program's side
// (a terminal, as a user's shell gives it) and the side that reads what it
// wrote.
func openPTY(t *testing.T, cols int) (term, reader *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	require.NoError(t, unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: 24}))
	// raw output: no \n → \r\n translation, so the bytes read are the
	// bytes written
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	require.NoError(t, err)
	tio.Oflag &^= unix.OPOST
	require.NoError(t, unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio))
	return s, m
}

// TestStatusLineOnATerminal: on a terminal the progress is one line
// rewritten in place, cut to the terminal's width; a line of its own goes
// above it and the status is drawn again; Done clears it. CI=true turns it
// into plain lines, as a CI log wants.
func TestStatusLineOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		name string
		ci   string
		want string
	}{
		{"a terminal", "", "\r\x1b[K1/3 runs\r\x1b[K2/3 runs · 40× real tim\r\x1b[Kwarn\n2/3 runs · 40× real tim\r\x1b[Kend\n"},
		{"a terminal under CI=true", "true", "1/3 runs\nwarn\n2/3 runs · 40× real time\nend\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			term, reader := openPTY(t, 24)
			s := NewStatusLine(term, time.Hour)
			s.Update("1/3 runs")
			s.Update("2/3 runs · 40× real time")
			s.Println("warn")
			s.Done("end")
			require.NoError(t, term.Close())
			got := make([]byte, 0, 256)
			buf := make([]byte, 256)
			for len(got) < len(tc.want) {
				n, err := reader.Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF || err != nil {
					break
				}
			}
			assert.Equal(t, tc.want, string(got))
		})
	}
}
