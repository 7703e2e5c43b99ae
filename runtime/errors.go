package runtime

import (
	"fmt"
	"strings"
)

// BuildError is one problem found while checking or building a tree: where
// it was written, which node, what is wrong and what would be right.
type BuildError struct {
	Pos  Pos
	Path string // node path, when the error belongs to a node
	Msg  string
}

func (e *BuildError) Error() string {
	var sb strings.Builder
	if p := e.Pos.String(); p != "" {
		sb.WriteString(p)
		sb.WriteString(": ")
	}
	if e.Path != "" {
		sb.WriteString(e.Path)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// ErrorList is every problem one pass found, in source order.
type ErrorList []*BuildError

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Err returns l as an error, or nil when empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func (l *ErrorList) add(pos Pos, path, format string, args ...any) {
	*l = append(*l, &BuildError{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)})
}
