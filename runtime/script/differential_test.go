package script

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outcome is what one script did, in the terms of testdata/btcpp/results.txt.
type outcome struct {
	ok    bool
	typ   string
	value string
	vars  map[string]string // key -> TYPE:VALUE
	msg   string
}

func goTypeName(v Value) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}

func goValueText(v Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', 17, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', 17, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	}
	return fmt.Sprint(v)
}

func runGo(env *MapEnv, cmd, src string) outcome {
	var out outcome
	v, err := func() (Value, error) {
		p, err := Parse(src)
		if err != nil {
			return nil, err
		}
		return p.Eval(env)
	}()
	if err == nil && cmd == "cond" {
		var b bool
		b, err = Truthy(v)
		v = b
	}
	if err != nil {
		out.msg = err.Error()
	} else {
		out.ok, out.typ, out.value = true, goTypeName(v), goValueText(v)
		if b, isBool := v.(bool); isBool && cmd == "cond" {
			out.value = strconv.FormatBool(b)
		}
	}
	out.vars = map[string]string{}
	for k, x := range env.Vars {
		out.vars[k] = goTypeName(x) + ":" + goValueText(x)
	}
	return out
}

func parseOutcome(fields []string) outcome {
	o := outcome{ok: fields[0] == "OK", typ: fields[1], value: fields[2], vars: map[string]string{}}
	if !o.ok {
		o.msg = fields[2]
	}
	if len(fields) > 3 && fields[3] != "" {
		for _, kv := range strings.Split(fields[3], "|") {
			k, v, _ := strings.Cut(kv, "=")
			o.vars[k] = v
		}
	}
	return o
}

func parseNum(s string) (float64, bool) {
	switch s {
	case "nan", "-nan":
		return math.NaN(), true
	case "inf":
		return math.Inf(1), true
	case "-inf":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// sameValue compares a Go type and value with BT.CPP's, allowing a Go bool
// where BT.CPP has the real 1 or 0.
func sameValue(goTyp, goVal, cTyp, cVal string) bool {
	if goTyp == "bool" && (cTyp == "float64" || cTyp == "bool") {
		return goVal == cVal || (goVal == "1" && cVal == "true") || (goVal == "0" && cVal == "false")
	}
	if goTyp != cTyp {
		return false
	}
	if goTyp == "float64" || goTyp == "float32" {
		a, okA := parseNum(goVal)
		b, okB := parseNum(cVal)
		return okA && okB && (a == b || math.IsNaN(a) && math.IsNaN(b))
	}
	return goVal == cVal
}

func sameOutcome(got, want outcome) (bool, string) {
	if got.ok != want.ok {
		return false, "result"
	}
	if got.ok && !sameValue(got.typ, got.value, want.typ, want.value) {
		return false, "result"
	}
	if len(got.vars) != len(want.vars) {
		return false, "variables"
	}
	for k, w := range want.vars {
		g, ok := got.vars[k]
		if !ok {
			return false, "variables"
		}
		gt, gv, _ := strings.Cut(g, ":")
		wt, wv, _ := strings.Cut(w, ":")
		if !sameValue(gt, gv, wt, wv) {
			return false, "variables"
		}
	}
	return true, ""
}

func (o outcome) String() string {
	var s string
	if o.ok {
		s = o.typ + " " + strconv.Quote(o.value)
	} else {
		s = "error (" + o.msg + ")"
	}
	keys := make([]string, 0, len(o.vars))
	for k := range o.vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s += " " + k + "=" + o.vars[k]
	}
	return s
}

// TestAgainstBTCPP replays testdata/btcpp/cases.txt and compares each
// script's value and its effect on the variables with what BehaviorTree.CPP
// 4.10 produced (testdata/btcpp/results.txt; see the README there).
//
// BTCPP_CASES and BTCPP_RESULTS name other files to replay, such as
// generated ones.
func TestAgainstBTCPP(t *testing.T) {
	casesFile, resultsFile := "testdata/btcpp/cases.txt", "testdata/btcpp/results.txt"
	if f := os.Getenv("BTCPP_CASES"); f != "" {
		casesFile, resultsFile = f, os.Getenv("BTCPP_RESULTS")
	}
	results := map[int]outcome{}
	rf, err := os.Open(resultsFile)
	require.NoError(t, err)
	defer rf.Close()
	sc := bufio.NewScanner(rf)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		require.GreaterOrEqual(t, len(fields), 4, "malformed results line %q", sc.Text())
		n, err := strconv.Atoi(fields[0])
		require.NoError(t, err, "malformed results line %q", sc.Text())
		results[n] = parseOutcome(fields[1:])
	}

	data, err := os.ReadFile(casesFile)
	require.NoError(t, err)
	env := &MapEnv{Vars: map[string]Value{}, Enums: map[string]int{}}
	compared, deviations := 0, 0
	for i, line := range strings.Split(string(data), "\n") {
		lineno := i + 1
		if line == "" || line[0] == '#' {
			continue
		}
		cmd, rest, _ := strings.Cut(line, " ")
		switch cmd {
		case "reset":
			env = &MapEnv{Vars: map[string]Value{}, Enums: map[string]int{}}
		case "enum":
			var name string
			var v int
			_, err := fmt.Sscan(rest, &name, &v)
			require.NoError(t, err, "line %d", lineno)
			env.Enums[name] = v
		case "set":
			f := strings.SplitN(rest, " ", 3)
			for len(f) < 3 {
				f = append(f, "")
			}
			env.Vars[f[0]] = seedValue(t, f[1], f[2])
		case "run", "cond", "dev":
			want, ok := results[lineno]
			require.True(t, ok, "line %d (%s): no BT.CPP result; regenerate results.txt", lineno, line)
			got := runGo(env, cmd, rest)
			same, what := sameOutcome(got, want)
			switch {
			case cmd == "dev" && same:
				assert.Fail(t, fmt.Sprintf("line %d: %q is marked as a deviation but now matches BT.CPP: %v", lineno, rest, got))
			case cmd != "dev" && !same:
				assert.Fail(t, fmt.Sprintf("line %d: %q: %s differs\n  btrobot: %v\n  BT.CPP:  %v", lineno, rest, what, got, want))
			}
			if cmd == "dev" {
				deviations++
			} else {
				compared++
			}
		default:
			require.Fail(t, fmt.Sprintf("line %d: unknown command %q", lineno, cmd))
		}
	}
	t.Logf("%d scripts compared with BT.CPP, %d documented deviations", compared, deviations)
}

func seedValue(t testing.TB, typ, text string) Value {
	t.Helper()
	must := func(v Value, err error) Value {
		require.NoError(t, err, "seed %s %q", typ, text)
		return v
	}
	switch typ {
	case "int":
		return must(strconv.Atoi(text))
	case "int32":
		n, err := strconv.ParseInt(text, 10, 32)
		return must(int32(n), err)
	case "uint8":
		n, err := strconv.ParseUint(text, 10, 8)
		return must(uint8(n), err)
	case "uint64":
		return must(strconv.ParseUint(text, 10, 64))
	case "double":
		return must(strconv.ParseFloat(text, 64))
	case "float":
		f, err := strconv.ParseFloat(text, 32)
		return must(float32(f), err)
	case "bool":
		return text == "true"
	case "string":
		return text
	case "empty":
		return nil
	}
	require.Fail(t, fmt.Sprintf("unknown seed type %q", typ))
	return nil
}
