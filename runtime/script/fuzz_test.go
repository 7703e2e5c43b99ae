package script

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse feeds arbitrary text to Parse and runs whatever parses against a
// MapEnv holding a few variables of every kind. Nothing may panic; every
// error must be an *Error with a sane position. The seed corpus is every
// script of the differential suite plus the cases below; crashers found by
// fuzzing are kept in testdata/fuzz/FuzzParse.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 2m ./runtime/script
func FuzzParse(f *testing.F) {
	seeds := []string{
		"x := x + 1", "a > 3 && b == 'on'", "battery.percentage < 0.2",
		"goal.target.pose.position.x", "s := 'a' .. 1 .. 2.5", "x = y := 3",
		"1 < 2 < 3 ? 'y' : 'n'", "~0 ^ 5 | 3 & 1", "!(-x) || u == 1",
		"RED == color", "e + 1", "n += 1; n -= 2; n *= 3; n /= 4",
		"json.a.b.0", "battery.cell_voltage.1", "@x := 1;; @x", "'it''s'",
		"(((((1)))))", "0x7FFFFFFFFFFFFFFF", "1e308 * 10", "'nan(x)' == 1",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	if file, err := os.Open("testdata/btcpp/cases.txt"); err == nil {
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			cmd, rest, _ := strings.Cut(sc.Text(), " ")
			if cmd == "run" || cmd == "cond" || cmd == "dev" {
				f.Add(rest)
			}
		}
		file.Close()
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse(src)
		if err != nil {
			checkError(t, src, err)
			return
		}
		require.Equal(t, src, p.Source(), "Source() = %q, want %q", p.Source(), src)
		_ = p.Reads()
		_ = p.Writes()
		env := fuzzEnv()
		for i := 0; i < 2; i++ { // twice: the second run sees the first's writes and warm caches
			v, err := p.Eval(env)
			if err != nil {
				checkError(t, src, err)
				continue
			}
			_, _ = Truthy(v)
		}
	})
}

func fuzzEnv() *MapEnv {
	vars := fieldEnv()
	vars["x"] = 1
	vars["y"] = 2.5
	vars["n"] = 10
	vars["s"] = "42"
	vars["a"] = 4
	vars["b"] = "on"
	vars["u"] = uint8(1)
	vars["f"] = float32(0.5)
	vars["flag"] = true
	vars["big"] = uint64(1 << 63)
	vars["e"] = nil
	return &MapEnv{Vars: vars, Enums: map[string]int{"RED": 1, "BLUE": 3}}
}

func checkError(t testing.TB, src string, err error) {
	t.Helper()
	var se *Error
	require.ErrorAs(t, err, &se, "%q: error %T %v is not an *Error", src, err, err)
	require.GreaterOrEqual(t, se.Offset, 0, "%q: bad position %d (%d:%d) in %v", src, se.Offset, se.Line, se.Column, err)
	require.False(t, se.Offset > len(src) && len(src) <= MaxSourceLen, "%q: bad position %d (%d:%d) in %v", src, se.Offset, se.Line, se.Column, err)
	require.GreaterOrEqual(t, se.Line, 1, "%q: bad position %d (%d:%d) in %v", src, se.Offset, se.Line, se.Column, err)
	require.GreaterOrEqual(t, se.Column, 1, "%q: bad position %d (%d:%d) in %v", src, se.Offset, se.Line, se.Column, err)
	require.NotEqual(t, "", err.Error(), "%q: empty error message", src)
}
