package view

import (
	"io"
	"strings"

	"github.com/btrobot/btrobot/runtime"
)

// Explanation writes why a tree ended as it did, one line a node of the
// chain (runtime.Tree.Explain) from the root to the leaf whose result
// decided it, indented by depth, each with its type, its status and the
// reason it stated (runtime.FormatExplanation):
//
//	MainTree (Sequence) FAILURE
//	  MainTree/Patrol (Fallback) FAILURE
//	    MainTree/Patrol/NavigateTo#2 (NavigateTo) FAILURE: move_base aborted: no path to kitchen
//
// Every line starts with indent (which may be empty). Nothing is written
// for an empty chain.
func Explanation(w io.Writer, chain []runtime.Cause, indent string) error {
	text := runtime.FormatExplanation(chain)
	if indent != "" && text != "" {
		text = indent + strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n"+indent) + "\n"
	}
	_, err := io.WriteString(w, text)
	return err
}
