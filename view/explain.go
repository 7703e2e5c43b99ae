package view

import (
	"io"
	"strings"

	"github.com/btrobot/btrobot/runtime"
)

// Explanation writes why a tree ended as it did, one line a node of the
// chain (runtime.Tree.Explain) from the root to the leaf whose result
// decided it, indented by depth, each with its type, its status and the
// reason it stated:
//
//	MainTree (Sequence) FAILURE
//	  MainTree/Patrol (Fallback) FAILURE
//	    MainTree/Patrol/NavigateTo#2 (NavigateTo) FAILURE: move_base aborted: no path to kitchen
//
// Nothing is written for an empty chain.
func Explanation(w io.Writer, chain []runtime.Cause) error {
	var b strings.Builder
	for i, c := range chain {
		b.WriteString(strings.Repeat("  ", i))
		b.WriteString(CauseLine(c))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CauseLine is one link of an explanation, without indentation: the
// node's path, its type, its status and its reason.
func CauseLine(c runtime.Cause) string {
	line := c.Path
	if c.Type != "" {
		line += " (" + c.Type + ")"
	}
	line += " " + c.Status.String()
	if c.Reason != "" {
		line += ": " + c.Reason
	}
	return line
}
