package input

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/runtime"
)

// YAML parses data, a YAML document read from file, and returns its root
// node, or nil when the document is empty (blank, or only comments).
//
// A document that does not parse is a *runtime.BuildError reading
// "file:line:col: not valid YAML: ...". The line is the one yaml.v3 names,
// counted from 1 whichever part of yaml.v3 found the problem: mostly the
// line of the construct the problem was found in (an unclosed '[' is
// reported on the line that opens it), the last line for a problem found at
// the end. A tab that indents, an unknown anchor and bytes that are not
// UTF-8 are placed at line and column. The cost is one parse and one pass
// over data, whatever its size (no parsing of prefixes).
func YAML(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, data, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// Pos returns where n was written in file.
func Pos(file string, n *yaml.Node) runtime.Pos {
	return runtime.PosAt(file, n.Line, n.Column)
}

// yamlError places a yaml.v3 error about data; yaml.v3 puts "line N: " in
// its text when it knows the line.
func yamlError(file string, data []byte, err error) *runtime.BuildError {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		err = errors.New(te.Errors[0])
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := runtime.Pos{File: file, Line: 1, Col: 1}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ":"); ok {
			if line, err := strconv.Atoi(n); err == nil && line >= 1 {
				msg = strings.TrimSpace(after)
				// yaml.v3 counts lines from 0 in the errors of its parser
				// and from 1 in those of its scanner.
				if parserProblems[msg] {
					line++
				}
				pos.Line = int32(min(line, max(lines(data), 1)))
				// A quoted string left open: yaml.v3 names the line it
				// opens on, but the end of the document when that is the
				// first line.
				if msg == "found unexpected end of stream" && line == breaks(data)+1 {
					first, _, _ := bytes.Cut(data, []byte("\n"))
					if q := bytes.IndexAny(first, `"'`); q >= 0 {
						pos = offsetPos(file, data, q)
					}
				}
			}
		}
		// yaml.v3 names the line of the scalar before a tab that indents;
		// the tab itself is easy to find and is what must change.
		if strings.HasPrefix(msg, "found a tab character") {
			if at := indentingTab(data, int(pos.Line)); at >= 0 {
				pos = offsetPos(file, data, at)
			}
		}
		return &runtime.BuildError{Pos: pos, Msg: "not valid YAML: " + msg}
	}
	switch {
	case strings.HasPrefix(msg, "unknown anchor '"):
		name, _, _ := strings.Cut(strings.TrimPrefix(msg, "unknown anchor '"), "'")
		if at := bytes.Index(data, []byte("*"+name)); at >= 0 {
			pos = offsetPos(file, data, at)
		}
	default:
		// Errors without a line (bad encoding) point at the first byte
		// that is not UTF-8, else at the start.
		if bad := firstInvalidUTF8(data); bad >= 0 {
			pos = offsetPos(file, data, bad)
		}
	}
	return &runtime.BuildError{Pos: pos, Msg: "not valid YAML: " + msg}
}

// parserProblems are the problems yaml.v3's parser reports (its scanner
// reports the others), whose lines it counts from 0.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// breaks counts the line breaks of data as YAML does (\n, \r\n or a
// lone \r).
func breaks(data []byte) int {
	n := 0
	for i, b := range data {
		if b == '\n' || b == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			n++
		}
	}
	return n
}

// lines counts the lines of data that hold something, as YAML breaks them
// (\n, \r\n or a lone \r): a problem found at the end of the document is
// placed on its last line.
func lines(data []byte) int {
	n := breaks(data)
	if len(data) > 0 && data[len(data)-1] != '\n' && data[len(data)-1] != '\r' {
		n++
	}
	return n
}

// indentingTab returns the offset of the first tab in the indentation of
// a line from line on (1-based), or -1.
func indentingTab(data []byte, line int) int {
	start := 0
	for l := 1; l < line && start < len(data); l++ {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			return -1
		}
		start += i + 1
	}
	for start < len(data) {
		for i := start; i < len(data) && (data[i] == ' ' || data[i] == '\t'); i++ {
			if data[i] == '\t' {
				return i
			}
		}
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			break
		}
		start += i + 1
	}
	return -1
}

// offsetPos returns the line and column (in characters) of byte off.
func offsetPos(file string, data []byte, off int) runtime.Pos {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return runtime.PosAt(file, 1+bytes.Count(data[:off], []byte("\n")), 1+utf8.RuneCount(data[start:off]))
}

// firstInvalidUTF8 returns the offset of the first byte of data that is not
// valid UTF-8, or -1.
func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// Number decodes a scalar node as a finite float; field names it in the
// error, placed in file.
func Number(file, field string, n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v, nil
		}
	}
	return 0, &runtime.BuildError{Pos: Pos(file, n), Path: field, Msg: "want a number, got " + Describe(n)}
}

// Describe names what a node holds, for errors: "a list", "a mapping", or
// the value quoted.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "nothing"
}
