package hil

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable writes a campaign as a console table, a row per scenario
// (scenario, seed, result, failing expectations, simulated and wall time),
// then every failed verdict at its scenario line, and a total.
//
//	SCENARIO           SEED  RESULT  FAILED  SIMULATED  WALL
//	patrol happy path  1     pass    0/7     1m26.8s    1.2s
func WriteTable(w io.Writer, cases []Case) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSEED\tRESULT\tFAILED\tSIMULATED\tWALL")
	var details []string
	passed := 0
	for _, c := range cases {
		r := c.Result
		name, seed := c.File, ""
		if r.Scenario != nil {
			name, seed = r.Scenario.Name, strconv.FormatUint(r.Scenario.Seed, 10)
		}
		result := "pass"
		switch {
		case c.Err != nil:
			result = "ERROR"
			details = append(details, fmt.Sprintf("%s: %v", c.File, c.Err))
		case !r.Passed():
			result = "FAIL"
			for _, v := range r.Failed() {
				details = append(details, v.String())
			}
		default:
			passed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%v\t%v\n", name, seed, result, len(r.Failed()), len(r.Verdicts),
			r.SimTime.Round(100*time.Millisecond), r.Wall.Round(100*time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range details {
		fmt.Fprintln(w, d)
	}
	_, err := fmt.Fprintf(w, "%d of %d scenarios passed\n", passed, len(cases))
	return err
}

// The JUnit XML shape every CI reads: a testsuite per scenario, a testcase
// per verdict (expectation × robot), failures with the measured value.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr,omitempty"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
		SystemOut  string          `xml:"system-out,omitempty"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Line      int           `xml:"line,attr,omitempty"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure"`
		Error     *junitProblem `xml:"error"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// WriteJUnit writes a campaign as JUnit XML: a testsuite per scenario, a
// testcase per verdict, named "robot: expectation" and placed at the
// expectation's line; a scenario that could not run is one testcase with
// an error. The simulator's events go to the suite's system-out.
func WriteJUnit(w io.Writer, cases []Case) error {
	all := junitSuites{Name: "btrobot hil"}
	var total time.Duration
	for _, c := range cases {
		r := c.Result
		name := c.File
		if r.Scenario != nil {
			name = r.Scenario.Name
		}
		suite := junitSuite{Name: name, Time: seconds(r.Wall), SystemOut: strings.Join(r.Events, "\n")}
		suite.Properties = append(suite.Properties, junitProperty{"file", c.File})
		if r.Scenario != nil {
			suite.Properties = append(suite.Properties,
				junitProperty{"seed", strconv.FormatUint(r.Scenario.Seed, 10)},
				junitProperty{"simulated_time", seconds(r.SimTime)})
		}
		if c.Err != nil {
			suite.Errors++
			suite.Cases = append(suite.Cases, junitCase{Name: "run", Classname: name, File: c.File, Time: seconds(r.Wall),
				Error: &junitProblem{Message: firstLine(c.Err.Error()), Type: "run", Text: c.Err.Error()}})
		}
		for _, v := range r.Verdicts {
			jc := junitCase{Name: strings.TrimPrefix(v.Robot+": "+v.Expectation.Text, ": "), Classname: name,
				File: v.Expectation.Pos.File, Line: int(v.Expectation.Pos.Line), Time: "0"}
			if !v.Pass {
				suite.Failures++
				jc.Failure = &junitProblem{Message: v.Measured, Type: v.Expectation.Kind, Text: v.String()}
			}
			suite.Cases = append(suite.Cases, jc)
		}
		suite.Tests = len(suite.Cases)
		all.Tests += suite.Tests
		all.Failures += suite.Failures
		all.Errors += suite.Errors
		total += r.Wall
		all.Suites = append(all.Suites, suite)
	}
	all.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// WriteJUnitFile writes the JUnit XML of cases to the file at path.
func WriteJUnitFile(path string, cases []Case) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteJUnit(f, cases); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
