// Command testreport reads `go test -json` on its standard input and prints
// what a person running the suite wants to see: one line per package as it
// ends, the output of every test that failed (and of a package that did not
// build), then the slowest ten tests, and one summary line
// "N passed, N failed, N skipped" with the wall time. It exits 1 when
// anything failed, so that scripts/test fails with it.
//
// It is the suite's own reporter rather than gotestsum because the summary
// line and the slowest-tests list are the suite's contract (issue 25) and
// take a hundred lines, not a dependency.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// event is one line of test2json's output.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type key struct{ pkg, test string }

type report struct {
	out            io.Writer
	output         map[key]*strings.Builder
	passed, failed int
	skipped        int
	failedPkgs     []string
	slow           []timed
	start          time.Time
	failedTests    map[string]bool // packages with a failed test, whose output is printed
	parents        map[key]bool    // tests that had subtests
}

type timed struct {
	key
	elapsed time.Duration
}

func main() {
	r := &report{out: os.Stdout, output: map[key]*strings.Builder{}, start: time.Now(), parents: map[key]bool{}, failedTests: map[string]bool{}}
	// -start UNIX_SECONDS: the wall time counts from then (scripts/test's
	// start, installs included) rather than from this program's.
	if len(os.Args) == 3 && os.Args[1] == "-start" {
		if s, err := strconv.ParseInt(os.Args[2], 10, 64); err == nil {
			r.start = time.Unix(s, 0)
		}
	}
	if !r.read(os.Stdin) {
		os.Exit(1)
	}
}

// read consumes the events and prints the report; it reports whether the
// suite passed.
func (r *report) read(in io.Reader) bool {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintln(r.out, string(line)) // build errors and other plain text
			continue
		}
		r.event(e)
	}
	return r.summary()
}

func (r *report) event(e event) {
	top, _, _ := strings.Cut(e.Test, "/")
	k := key{e.Package, top} // a test's output and its subtests' together
	switch e.Action {
	case "output":
		b := r.output[k]
		if b == nil {
			b = &strings.Builder{}
			r.output[k] = b
		}
		if b.Len() < 1<<20 { // a runaway test's output is cut, not kept whole
			b.WriteString(e.Output)
		}
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.packageEnded(e)
			return
		}
		if i := strings.LastIndex(e.Test, "/"); i >= 0 {
			r.parents[key{e.Package, e.Test[:i]}] = true
		}
		counted := !r.parents[key{e.Package, e.Test}] // a table counts its cases, not itself too
		delete(r.parents, key{e.Package, e.Test})
		switch {
		case !counted:
		case e.Action == "pass":
			r.passed++
		case e.Action == "fail":
			r.failed++
			r.failedTests[e.Package] = true
		case e.Action == "skip":
			r.skipped++
		}
		if e.Test != top {
			return // a subtest: its output stays with its test's
		}
		if b := r.output[k]; b != nil && e.Action == "fail" {
			fmt.Fprintf(r.out, "--- FAIL: %s %s (%.1fs)\n%s", e.Package, e.Test, e.Elapsed, b.String())
		}
		r.slow = append(r.slow, timed{k, time.Duration(e.Elapsed * float64(time.Second))})
		delete(r.output, k)
	}
}

func (r *report) packageEnded(e event) {
	k := key{e.Package, ""}
	switch e.Action {
	case "pass":
		fmt.Fprintf(r.out, "ok   %-45s %6.1fs\n", e.Package, e.Elapsed)
	case "skip":
		fmt.Fprintf(r.out, "--   %-45s (no tests)\n", e.Package)
	case "fail":
		r.failedPkgs = append(r.failedPkgs, e.Package)
		fmt.Fprintf(r.out, "FAIL %-45s %6.1fs\n", e.Package, e.Elapsed)
		// A build failure, a panic or a timeout outside a test, a TestMain
		// that failed after the tests (a leaked goroutine): nothing was
		// printed for it yet.
		if b := r.output[k]; b != nil && (!r.failedTests[e.Package] || strings.Contains(b.String(), "panic:")) {
			fmt.Fprint(r.out, b.String())
		}
	}
	delete(r.output, k)
}

func (r *report) summary() bool {
	sort.Slice(r.slow, func(i, j int) bool { return r.slow[i].elapsed > r.slow[j].elapsed })
	fmt.Fprintln(r.out, "\nslowest tests:")
	for _, s := range r.slow[:min(10, len(r.slow))] {
		fmt.Fprintf(r.out, "  %6.1fs  %s %s\n", s.elapsed.Seconds(), strings.TrimPrefix(s.pkg, "github.com/btrobot/btrobot/"), s.test)
	}
	failed := r.failed
	if failed == 0 && len(r.failedPkgs) > 0 {
		failed = len(r.failedPkgs) // a package that failed outside its tests
	}
	fmt.Fprintf(r.out, "\n%d passed, %d failed, %d skipped in %s\n", r.passed, failed, r.skipped, time.Since(r.start).Round(time.Second))
	return failed == 0 && len(r.failedPkgs) == 0
}
