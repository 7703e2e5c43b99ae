package sim

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// FileError is an error in a map, image or places file. Its message reads
// "file:line: field: problem", leaving out the line when the problem is not
// on one (a missing field, a short image) and the field when there is none.
type FileError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FileError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

func fileErr(file string, line int, field, format string, args ...any) *FileError {
	return &FileError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntaxErr turns a yaml.v3 error about data into a FileError. yaml.v3
// reports the line where the enclosing construct starts, counted from 0 or
// from 1 depending on the kind of error, so the line is found here instead:
// the line after the longest prefix of the document that still parses.
func yamlSyntaxErr(file string, data []byte, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		err = errors.New(te.Errors[0])
	}
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	line := 0
	if len(lines) <= 5000 {
		var n yaml.Node
		good, end := 0, 0
		for k, l := range lines {
			end += len(l)
			if yaml.Unmarshal(data[:end], &n) == nil {
				good = k + 1
			}
		}
		if good < len(lines) {
			line = good + 1
		}
	}
	return fileErr(file, line, "", "%s", msg)
}

// yamlMapping returns the top-level mapping of a YAML document, or a
// FileError if the document is empty or not a mapping.
func yamlMapping(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlSyntaxErr(file, data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, fileErr(file, 0, "", "empty document")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fileErr(file, root.Line, "", "want a mapping of keys to values, got %s", nodeKind(root))
	}
	return root, nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

// yamlNumber decodes a scalar node as a finite float.
func yamlNumber(file, field string, n *yaml.Node) (float64, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil && !isNaNOrInf(v) {
			return v, nil
		}
	}
	return 0, fileErr(file, n.Line, field, "want a number, got %s", nodeKind(n))
}

// yamlPose decodes [x, y] or [x, y, yaw] (when allow2 is set) or [x, y, yaw].
func yamlPose(file, field string, n *yaml.Node, allow2 bool) (Pose, error) {
	want := "[x, y, yaw]"
	if allow2 {
		want = "[x, y] or [x, y, yaw]"
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) > 3 || len(n.Content) < 2 || (!allow2 && len(n.Content) != 3) {
		got := nodeKind(n)
		if n.Kind == yaml.SequenceNode {
			got = fmt.Sprintf("%d numbers", len(n.Content))
		}
		return Pose{}, fileErr(file, n.Line, field, "want %s, got %s", want, got)
	}
	var v [3]float64
	for k, c := range n.Content {
		f, err := yamlNumber(file, fmt.Sprintf("%s[%d]", field, k), c)
		if err != nil {
			return Pose{}, err
		}
		v[k] = f
	}
	return Pose{X: v[0], Y: v[1], Yaw: v[2]}, nil
}

func isNaNOrInf(v float64) bool { return v != v || v > 1e308 || v < -1e308 }

// suggestKey returns the known key closest to an unknown one when it looks
// like a typo of it (edit distance at most 2), or "".
func suggestKey(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
