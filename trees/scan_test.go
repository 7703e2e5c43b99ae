package trees

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecode: references and line ends in values and text.
func TestDecode(t *testing.T) {
	cases := []struct{ raw, want, err string }{
		{"plain", "plain", ""},
		{"a &lt; b &gt; c &amp; &quot;d&quot; &apos;e&apos;", `a < b > c & "d" 'e'`, ""},
		{"&#65;&#x42;&#x263A;", "AB☺", ""},
		{"line\r\nend\rlone", "line\nend\nlone", ""},
		{"keep\ttabs\nand lines", "keep\ttabs\nand lines", ""},
		{"&#0;", "", "&#0; is not a character XML allows"},
		{"&#xD800;", "", "&#xD800; is not a character XML allows"},
		{"&#x110000;", "", "&#x110000; is not a character XML allows"},
		{"&#12a;", "", "&#12a; is not a character XML allows"},
		{"a & b", "", "a bare '&': write &amp;"},
		{"&nbsp;", "", "unknown entity &nbsp; (only &lt; &gt; &amp; &quot; &apos; and character references like &#10; are read)"},
		{"&verylongentityname;", "", "a bare '&': write &amp;"},
	}
	for _, c := range cases {
		got, _, msg := decode(c.raw)
		assert.Equal(t, c.err, msg, "decode(%q) = %q, %q; want %q, %q", c.raw, got, msg, c.want, c.err)
		assert.False(t, c.err == "" && got != c.want, "decode(%q) = %q, %q; want %q, %q", c.raw, got, msg, c.want, c.err)
	}
}

// TestCheckChars: the eight-bytes-at-a-time scan finds a forbidden byte
// wherever it is.
func TestCheckChars(t *testing.T) {
	bad := []struct {
		s    string
		skip int // allowed bytes before the forbidden one
	}{
		{"\x00", 0}, {"\x1f", 0}, {"\x7f\xff", 1}, {"\uFFFE", 0},
	}
	for n := 0; n < 40; n++ {
		for _, b := range bad {
			src := strings.Repeat("a", n) + b.s + strings.Repeat("b", 9)
			err := checkChars(src, 0)
			require.NotNil(t, err, "%q after %d bytes: got %v", b.s, n, err)
			require.Equal(t, n+b.skip, err.off, "%q after %d bytes: got %v", b.s, n, err)
		}
		ok := strings.Repeat("é\t\n\r ~\x7f", n)
		err := checkChars(ok, 0)
		require.Nil(t, err, "%q: %v", ok, err)
	}
}

// TestLineCounter: positions asked for out of order are still right.
func TestLineCounter(t *testing.T) {
	src := "ab\ncdé\n\nxyz"
	lc := newLineCounter(src)
	for _, c := range []struct{ off, line, col int }{
		{0, 1, 1}, {4, 2, 2}, {9, 4, 1}, {1, 1, 2}, {7, 2, 4}, {8, 3, 1}, {11, 4, 3}, {100, 4, 4},
	} {
		line, col := lc.pos(c.off)
		assert.Equal(t, c.line, line, "pos(%d) = %d:%d, want %d:%d", c.off, line, col, c.line, c.col)
		assert.Equal(t, c.col, col, "pos(%d) = %d:%d, want %d:%d", c.off, line, col, c.line, c.col)
	}
}
