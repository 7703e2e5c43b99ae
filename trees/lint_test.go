package trees

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// xmllintRejects runs xmllint on path and returns its complaint, or "" when
// it finds the file well-formed.
func xmllintRejects(t *testing.T, lint, path string) string {
	t.Helper()
	return complaint(xmllintEach(t, lint, []string{"--noout"}, []string{path})[path])
}

// complaint is what xmllint said of a file when it found an error in it,
// else "". Namespace errors do not change xmllint's exit status but are
// errors all the same (browsers refuse such files).
func complaint(said string) string {
	if strings.Contains(said, "error") {
		return said
	}
	return ""
}

// xmllintEach runs xmllint once on many files (starting a process for
// each cost more than its work) and returns what it said of each: the
// lines that name the file and those that follow them (the source line
// and the caret under the error) up to the next file's.
func xmllintEach(t *testing.T, lint string, args []string, files []string) map[string]string {
	t.Helper()
	known := map[string]bool{}
	for _, f := range files {
		known[f] = true
	}
	// Its exit status is the worst file's: what each file got is in the
	// text.
	out, err := exec.Command(lint, append(args, files...)...).CombinedOutput()
	var exit *exec.ExitError
	require.True(t, err == nil || errors.As(err, &exit), "xmllint did not run: %v\n%s", err, out)
	said := map[string]*strings.Builder{}
	current := ""
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" {
			continue // after the last newline; a well-formed file gets no line at all
		}
		if name, _, ok := strings.Cut(line, ":"); ok && known[name] {
			current = name
		} else if name, _, ok := strings.Cut(line, " "); ok && known[name] {
			current = name // "F validates", "F fails to validate"
		}
		require.NotEmpty(t, current, "xmllint's output begins with a line naming no file given: %q", line)
		if said[current] == nil {
			said[current] = &strings.Builder{}
		}
		said[current].WriteString(line)
	}
	each := map[string]string{}
	for f, b := range said {
		each[f] = strings.TrimSpace(b.String())
	}
	return each
}

// TestXmllintEach: what xmllint says of many files goes to each file,
// and a well-formed file gets nothing.
func TestXmllintEach(t *testing.T) {
	xl := xmllint(t)
	const good, bad1, bad2 = "missions/delivery.xml", "testdata/broken/entity_bomb.xml", "testdata/broken/malformed.xml"
	for _, tc := range []struct {
		files  []string
		errors []string // the files said to have an error
	}{
		{[]string{good}, nil},
		{[]string{bad1, good, bad2}, []string{bad1, bad2}},
		{[]string{bad2, bad1}, []string{bad1, bad2}},
	} {
		said := xmllintEach(t, xl, []string{"--noout"}, tc.files)
		var errs []string
		for f, text := range said {
			require.Contains(t, tc.files, f)
			assert.Contains(t, text, "error")
			for _, other := range tc.files {
				if other != f {
					assert.NotContains(t, text, other, "what xmllint said of %s", f)
				}
			}
			errs = append(errs, f)
		}
		assert.ElementsMatch(t, tc.errors, errs, "%v", tc.files)
	}
}

// TestLint: each place that the loader reads but XML does not allow gets a
// warning at its line and column, xmllint agrees that it is not XML, and
// well-formed neighbours get none.
func TestLint(t *testing.T) {
	xl := xmllint(t)
	const head = `<root BTCPP_format="4"><BehaviorTree ID="M">`
	const tail = `</BehaviorTree></root>`
	model := func(desc string) string {
		return `<root BTCPP_format="4"><TreeNodesModel><Action ID="A"><input_port name="x">` + desc + `</input_port></Action></TreeNodesModel></root>`
	}
	cases := []struct {
		name string
		xml  string
		want []string // warnings; none: xmllint must accept the file
	}{
		{"a command line in a comment",
			"<?xml version=\"1.0\"?>\n<!-- run it:\n     btrobot run --tree t.xml -->\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:3:18: warning: "--" inside a comment: XML forbids it, and xmllint, browsers and most XML tools reject the file (write "-" or "—"; a command's --flag as -flag)`}},
		{"a comment ending in --->", head + `<!-- x ---><AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:52: warning: a comment ending in "--->": XML forbids "--" inside a comment; put a space before -->`}},
		{"one warning per comment, after the root too", head + `<!-- a -- b -- c --><AlwaysSuccess/>` + tail + "\n<!-- -- -->",
			[]string{
				`t.xml:1:52: warning: "--" inside a comment: XML forbids it, and xmllint, browsers and most XML tools reject the file (write "-" or "—"; a command's --flag as -flag)`,
				`t.xml:2:6: warning: "--" inside a comment: XML forbids it, and xmllint, browsers and most XML tools reject the file (write "-" or "—"; a command's --flag as -flag)`,
			}},
		{"an XML declaration without a version", "<?xml encoding=\"UTF-8\"?>\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:1: warning: the XML declaration must start with its version; write <?xml version="1.0" encoding="UTF-8"?>`}},
		{"an empty XML declaration", "<?xml?>\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:1: warning: the XML declaration must start with its version; write <?xml version="1.0" encoding="UTF-8"?>`}},
		{"XML version 2.0", "<?xml version=\"2.0\"?>\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:7: warning: XML version "2.0": XML 1.x is read; write <?xml version="1.0" encoding="UTF-8"?>`}},
		{"no space between pseudo-attributes", "<?xml version=\"1.0\"encoding=\"UTF-8\"?>\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:20: warning: the XML declaration needs white space before 'e'; write <?xml version="1.0" encoding="UTF-8"?>`}},
		{"an unknown pseudo-attribute", "<?xml version=\"1.0\" mode=\"strict\"?>\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:21: warning: "mode" in the XML declaration: it holds version, encoding and standalone, in that order; write <?xml version="1.0" encoding="UTF-8"?>`}},
		{"encoding after standalone", "<?xml version=\"1.0\" standalone=\"yes\" encoding=\"UTF-8\"?>\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:38: warning: "encoding" in the XML declaration: it holds version, encoding and standalone, in that order; write <?xml version="1.0" encoding="UTF-8"?>`}},
		{"standalone maybe", "<?xml version=\"1.0\" standalone=\"maybe\"?>\n" + head + `<AlwaysSuccess/>` + tail,
			[]string{`t.xml:1:21: warning: standalone="maybe": it is "yes" or "no" (or left out)`}},
		{"]]> in a port's description", model(`x ]]> y`),
			[]string{`t.xml:1:78: warning: "]]>" in text: XML allows it only as the end of a CDATA section; write ]]&gt;`}},
		{"a character XML does not allow in a name", head + "<AlwaysSuccess _x\u00d7y=\"1\"/>" + tail,
			[]string{`t.xml:1:62: warning: attribute name "_x×y": XML does not allow '×' in a name`}},
		{"an undeclared namespace prefix", head + `<AlwaysSuccess _ed:x="1"/>` + tail,
			[]string{`t.xml:1:60: warning: attribute name "_ed:x": namespace prefix "_ed" is not declared (xmlns:_ed="…"), and browsers and namespace-aware XML tools reject the file`}},
		{"a prefix is declared for the element that declares it", `<root BTCPP_format="4"><BehaviorTree ID="M" xmlns:ed="urn:e" ed:x="1"><AlwaysSuccess ed:y="2"/></BehaviorTree>` + "\n" + `<BehaviorTree ID="N" ed:z="1"><AlwaysSuccess/></BehaviorTree></root>`,
			[]string{`t.xml:2:22: warning: attribute name "ed:z": namespace prefix "ed" is not declared (xmlns:ed="…"), and browsers and namespace-aware XML tools reject the file`}},

		// Well-formed neighbours: no warning, and xmllint agrees.
		{"a comment with single hyphens", "<!-- a - b -->\n" + head + `<!-- run -tree x.xml --><AlwaysSuccess/>` + tail, nil},
		{"a full XML declaration", "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n" + head + `<AlwaysSuccess/>` + tail, nil},
		{"a declaration with spaces around =", "<?xml version = '1.1' ?>\n" + head + `<AlwaysSuccess/>` + tail, nil},
		{"]]> in an attribute and in CDATA", model(`<![CDATA[ a ]] b ]]>`) + "\n<!-- ]]> -->", nil},
		{"]]&gt; in text", model(`a ]]&gt; b`), nil},
		{"names XML allows beyond ASCII", head + "<AlwaysSuccess _été=\"1\" _x\u00b7y=\"2\"/>" + tail, nil},
		{"declared prefixes", `<root BTCPP_format="4" xmlns:ed="urn:e"><BehaviorTree ID="M" xml:lang="en"><AlwaysSuccess ed:y="2"/></BehaviorTree></root>`, nil},
		{"other processing instructions", head + `<?editor --hint?><AlwaysSuccess/>` + tail, nil},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.xml", []byte(tc.xml))
			require.NoError(t, err, "the loader must read the file")
			var got []string
			for _, w := range lint("t.xml", tc.xml) {
				got = append(got, w.String())
			}
			assert.Equal(t, tc.want, got)

			path := filepath.Join(dir, "t.xml")
			require.NoError(t, os.WriteFile(path, []byte(tc.xml), 0o644))
			if complaint := xmllintRejects(t, xl, path); tc.want == nil {
				assert.Empty(t, complaint, "xmllint rejects a file Lint finds well-formed")
			} else {
				assert.NotEmpty(t, complaint, "xmllint accepts a file Lint warns about")
			}
		})
	}
}

// TestLintStopsWhereTheLoaderDoes: files the loader refuses get no
// warnings beyond what comes before the problem, and no hang or panic.
func TestLintStopsWhereTheLoaderDoes(t *testing.T) {
	for _, src := range []string{
		``, `<`, `<!--`, `<!-- -- `, `<?xml`, `<?xml version=`, `<?xml version="1.0`, `<root a`, `<root a=`, `<root a="`,
		`<root></`, `<![CDATA[`, `<!DOCTYPE x>`, `<a:b`, "<root>]]>", `<root><x y="1"/ ></root>`,
	} {
		assert.NotPanics(t, func() { _ = lint("t.xml", src) }, "%q", src)
	}
}

func TestLintBoundsItsWarnings(t *testing.T) {
	src := `<root BTCPP_format="4">` + strings.Repeat("<!-- -- -->", 2*MaxWarnings) + `</root>`
	require.Len(t, lint("t.xml", src), MaxWarnings)
}

// TestTreeFilesAreWellFormed: every shipped mission and every tree file of
// the tests that the loader reads is XML that xmllint accepts, and Lint
// agrees with xmllint on all of them: where xmllint rejects a file, the
// loader refuses it or Lint warns.
func TestTreeFilesAreWellFormed(t *testing.T) {
	xl := xmllint(t)
	missions, err := filepath.Glob("missions/*.xml")
	require.NoError(t, err)
	require.NotEmpty(t, missions)
	files := treeFiles(t)
	said := xmllintEach(t, xl, []string{"--noout"}, files)
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			rejected := complaint(said[path])
			warnings := Lint(path)
			_, loadErr := Load(path)
			broken := strings.HasPrefix(path, filepath.Join("testdata", "broken")+string(filepath.Separator))
			switch {
			case rejected == "":
				assert.Empty(t, warnings, "Lint warns about a file xmllint accepts")
			case !broken:
				assert.Fail(t, fmt.Sprintf("not well-formed XML (only testdata/broken may hold such files):\n%s", rejected))
			case len(warnings) == 0 && loadErr == nil:
				assert.Fail(t, fmt.Sprintf("xmllint rejects it, but the loader reads it and Lint finds nothing:\n%s", rejected))
			}
		})
	}
}

// FuzzLint: no input makes Lint panic, and every warning has a position
// inside the file.
//
//	go test ./trees/ -run XXX -fuzz FuzzLint -fuzztime 1m
func FuzzLint(f *testing.F) {
	for _, seed := range []string{
		``, `<root><!-- -- --></root>`, "<?xml version='1.0' standalone='x'?><root/>",
		`<root xmlns:a="u"><a:b c:d="1">]]></a:b></root>`, "<r\u00d7/>",
	} {
		f.Add([]byte(seed))
	}
	files, _ := filepath.Glob("missions/*.xml")
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := string(data)
		warns := lint("f.xml", src)
		require.LessOrEqual(t, len(warns), MaxWarnings, "%d warnings", len(warns))
		lines := strings.Count(src, "\n") + 1
		for _, w := range warns {
			require.Equal(t, "f.xml", w.Pos.File, "bad warning %#v", w)
			require.GreaterOrEqual(t, int(w.Pos.Line), 1, "bad warning %#v", w)
			require.LessOrEqual(t, int(w.Pos.Line), lines, "bad warning %#v", w)
			require.GreaterOrEqual(t, int(w.Pos.Col), 1, "bad warning %#v", w)
			require.NotEmpty(t, w.Msg, "bad warning %#v", w)
		}
	})
}
