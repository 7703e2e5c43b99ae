package hil

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// ReplayCommand is the command line that runs s again exactly: its file,
// and, for a run of a matrix or of --seeds, --only with its parameters.
func ReplayCommand(s *Scenario) string {
	cmd := "btrobot hil " + shellQuote(s.File)
	if len(s.Params) > 0 {
		cmd += " --only " + shellQuote(Selector(s.Params).String())
	}
	return cmd
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maxTimelineChanges bounds the node transitions a report lists; the
// recording has them all.
const maxTimelineChanges = 2000

// timelineRow is one line of a report's timeline.
type timelineRow struct {
	At    time.Duration
	Kind  string // fault, node, verdict
	Robot string
	Text  string
	Class string
}

type htmlRun struct {
	Case       Case
	Name       string
	Passed     bool
	Err        string
	Seed       uint64
	Replay     string
	Picture    template.HTML
	Verdicts   []Verdict
	Failed     int
	Why        []robotWhy
	Timeline   []timelineRow
	Omitted    int
	Strip      template.HTML
	Recordings []link
	Events     []string
	Sim, Wall  time.Duration
	Generated  string
}

type robotWhy struct {
	Robot, Summary string
	// Explained is the chain of causes as the run's report prints it:
	// one node a line, each failed alternative indented under the node
	// that tried it.
	Explained string
}

type link struct{ Href, Text string }

// WriteHTML writes the report of one run as a page that needs nothing
// else to be read (styles and pictures inline, no script, no network): the
// verdicts, the trajectories with the faults marked where they struck, a
// timeline of faults, node transitions and verdicts, why each mission
// ended as it did (mission.Report's explanation), the command that runs it
// again, and links to its recordings, relative to dir (the directory the
// page is written to).
func WriteHTML(w io.Writer, c Case, dir string) error {
	r := c.Result
	h := htmlRun{Case: c, Name: c.File, Passed: c.Passed(), Sim: r.SimTime.Round(time.Millisecond), Wall: r.Wall.Round(time.Millisecond),
		Verdicts: r.Verdicts, Failed: len(r.Failed()), Events: r.Events}
	if c.Err != nil {
		h.Err = c.Err.Error()
	}
	if s := r.Scenario; s != nil {
		h.Name, h.Seed, h.Replay = s.Name, s.Seed, ReplayCommand(s)
	}
	h.Picture = template.HTML(r.Picture) // our own renderer's SVG, its texts escaped
	for i, rep := range r.Reports {
		name := rep.Robot
		if r.Scenario != nil && i < len(r.Scenario.Robots) {
			name = r.Scenario.Robots[i].Name
		}
		h.Why = append(h.Why, robotWhy{Robot: name, Summary: rep.Summary(), Explained: runtime.FormatExplanation(rep.Explanation)})
	}
	for i, st := range r.Strikes {
		h.Timeline = append(h.Timeline, timelineRow{At: st.At, Kind: "fault", Text: fmt.Sprintf("F%d %s", i+1, st.Text), Class: "fault"})
	}
	for i, ch := range r.Changes {
		if i >= maxTimelineChanges {
			h.Omitted = len(r.Changes) - i
			break
		}
		h.Timeline = append(h.Timeline, timelineRow{At: ch.At, Kind: "node", Robot: ch.Robot,
			Text: fmt.Sprintf("%s %s → %s", ch.Path, ch.From, ch.To), Class: strings.ToLower(ch.To.String())})
	}
	for _, v := range r.Verdicts {
		word, class := "held", "pass"
		if !v.Pass {
			word, class = "FAILED", "fail"
		}
		h.Timeline = append(h.Timeline, timelineRow{At: r.SimTime, Kind: "verdict", Robot: v.Robot,
			Text: fmt.Sprintf("%s %s: %s (line %d)", v.Expectation.Text, word, v.Measured, v.Expectation.Pos.Line), Class: class})
	}
	sortTimeline(h.Timeline)
	h.Strip = strip(r)
	for _, p := range r.Recordings {
		href := p
		if rel, err := filepath.Rel(dir, p); err == nil {
			href = filepath.ToSlash(rel)
		}
		h.Recordings = append(h.Recordings, link{Href: href, Text: filepath.Base(p)})
	}
	return page.Execute(w, h)
}

func sortTimeline(rows []timelineRow) {
	order := map[string]int{"fault": 0, "node": 1, "verdict": 2}
	// Stable insertion by time, faults before the transitions they cause.
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0; j-- {
			a, b := rows[j-1], rows[j]
			if a.At < b.At || a.At == b.At && order[a.Kind] <= order[b.Kind] {
				break
			}
			rows[j-1], rows[j] = b, a
		}
	}
}

// strip is the run's time line as a picture: the simulated time across,
// each fault a red tick with its number, the end marked with the verdict.
func strip(r Result) template.HTML {
	const width, height, left, right = 900.0, 56.0, 20.0, 20.0
	total := r.SimTime
	if total <= 0 {
		return ""
	}
	x := func(t time.Duration) float64 { return left + (width-left-right)*float64(t)/float64(total) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="strip" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="11">`, width, height, width, height)
	fmt.Fprintf(&b, `<line x1="%g" y1="30" x2="%g" y2="30" stroke="#555" stroke-width="2"/>`, left, width-right)
	for i := 0; i <= 4; i++ {
		t := total * time.Duration(i) / 4
		fmt.Fprintf(&b, `<line x1="%.1f" y1="26" x2="%.1f" y2="34" stroke="#555"/><text x="%.1f" y="50" text-anchor="middle">%s</text>`,
			x(t), x(t), x(t), template.HTMLEscapeString(t.Round(100*time.Millisecond).String()))
	}
	for i, st := range r.Strikes {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="14" x2="%.1f" y2="30" stroke="#d20000" stroke-width="3"><title>%s</title></line><text x="%.1f" y="11" text-anchor="middle" fill="#d20000">F%d</text>`,
			x(st.At), x(st.At), template.HTMLEscapeString(st.Text), x(st.At), i+1)
	}
	col := "#1a7f37"
	if !r.Passed() {
		col = "#d20000"
	}
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="30" r="6" fill="%s"/></svg>`, x(total), col)
	return template.HTML(b.String())
}

// WriteReports writes each case's page to dir (made when missing), named
// RunFile(scenario, "", ".html"), and an index.html that links them all;
// it returns the index's path.
func WriteReports(dir string, cases []Case) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	type entry struct {
		Href, Name string
		Passed     bool
		Failed     int
		Verdicts   int
		Seed       uint64
		Err        string
	}
	var entries []entry
	var errs []error
	used := map[string]int{}
	for _, c := range cases {
		name := filepath.Base(c.File)
		e := entry{Passed: c.Passed(), Failed: len(c.Result.Failed()), Verdicts: len(c.Result.Verdicts)}
		if s := c.Result.Scenario; s != nil {
			name, e.Seed = RunFile(s, "", ""), s.Seed
			e.Name = s.Name
		} else {
			e.Name = c.File
		}
		if c.Err != nil {
			e.Err = firstLine(c.Err.Error())
		}
		if used[name]++; used[name] > 1 {
			name = fmt.Sprintf("%s_%d", name, used[name])
		}
		e.Href = name + ".html"
		f, err := os.Create(filepath.Join(dir, e.Href))
		if err == nil {
			err = WriteHTML(f, c, dir)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
		entries = append(entries, e)
	}
	index := filepath.Join(dir, "index.html")
	f, err := os.Create(index)
	if err != nil {
		return "", errors.Join(append(errs, err)...)
	}
	err = indexPage.Execute(f, entries)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return index, errors.Join(append(errs, err)...)
}

const style = `body{font-family:system-ui,sans-serif;margin:24px;color:#1b1b1f;max-width:1100px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd}
.badge{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff;font-weight:600}
.pass .badge,.badge.pass{background:#1a7f37} .fail .badge,.badge.fail{background:#d20000}
table{border-collapse:collapse;font-size:13px} td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
tr.fail td{background:#fde8e8} tr.fault td{background:#fff1e0} td.t{font-variant-numeric:tabular-nums;white-space:nowrap;text-align:right}
code,pre{background:#f3f3f5;padding:2px 6px;border-radius:3px;font-size:13px} pre{padding:8px;overflow:auto}
.map svg{max-width:100%;height:auto;border:1px solid #ccc} .muted{color:#777}
tr.success td:last-child{color:#1a7f37} tr.failure td:last-child{color:#d20000} tr.running td:last-child{color:#0b5cad}`

var page = template.Must(template.New("run").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Name}} — btrobot hil</title><style>` + style + `</style></head>
<body class="{{if .Passed}}pass{{else}}fail{{end}}">
<h1 id="title">{{.Name}}</h1>
<p><span class="badge" id="verdict">{{if .Err}}ERROR{{else if .Passed}}PASS{{else}}FAIL{{end}}</span>
 {{if not .Err}}{{.Failed}} of {{len .Verdicts}} expectations failed{{end}} · seed {{.Seed}} · simulated {{.Sim}} · wall {{.Wall}} · <span class="muted">{{.Case.File}}</span></p>
{{if .Err}}<pre id="error">{{.Err}}</pre>{{end}}
<h2>Run it again</h2>
<pre id="replay">{{.Replay}}</pre>
<h2>Expectations</h2>
<table id="verdicts"><tr><th></th><th>robot</th><th>expectation</th><th>measured</th><th>line</th></tr>
{{range .Verdicts}}<tr class="{{if .Pass}}pass{{else}}fail{{end}}"><td>{{if .Pass}}✔{{else}}✘{{end}}</td><td>{{.Robot}}</td><td><code>{{.Expectation.Text}}</code></td><td>{{.Measured}}</td><td>{{.Expectation.Pos}}</td></tr>
{{end}}</table>
<h2>Why the missions ended</h2>
{{range .Why}}<p><b>{{.Robot}}</b>: {{.Summary}}</p>{{if .Explained}}<pre class="why">{{.Explained}}</pre>{{end}}{{end}}
{{if .Picture}}<h2>Trajectories</h2><p class="muted">The robots' trails; a red cross F<i>n</i> where fault <i>n</i> struck.</p><div class="map" id="map">{{.Picture}}</div>{{end}}
<h2>Timeline</h2>
{{.Strip}}
<table id="timeline"><tr><th>time</th><th>what</th><th>robot</th><th></th></tr>
{{range .Timeline}}<tr class="{{.Class}}"><td class="t">{{.At}}</td><td>{{.Kind}}</td><td>{{.Robot}}</td><td>{{.Text}}</td></tr>
{{end}}</table>
{{if .Omitted}}<p class="muted">{{.Omitted}} later node transitions are left out here; the recording has them all.</p>{{end}}
{{if .Recordings}}<h2>Recordings</h2><ul id="recordings">{{range .Recordings}}<li><a href="{{.Href}}">{{.Text}}</a> — <code>btrobot replay {{.Href}}</code></li>{{end}}</ul>{{end}}
{{if .Events}}<details><summary>Simulator events ({{len .Events}})</summary><pre>{{range .Events}}{{.}}
{{end}}</pre></details>{{end}}
</body></html>
`))

var indexPage = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>btrobot hil</title><style>` + style + `</style></head><body>
<h1>btrobot hil</h1>
<table id="runs"><tr><th></th><th>run</th><th>seed</th><th>failed</th></tr>
{{range .}}<tr class="{{if .Passed}}pass{{else}}fail{{end}}"><td><span class="badge {{if .Passed}}pass{{else}}fail{{end}}">{{if .Err}}ERROR{{else if .Passed}}PASS{{else}}FAIL{{end}}</span></td><td><a href="{{.Href}}">{{.Name}}</a></td><td>{{.Seed}}</td><td>{{if .Err}}{{.Err}}{{else}}{{.Failed}}/{{.Verdicts}}{{end}}</td></tr>
{{end}}</table></body></html>
`))
