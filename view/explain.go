package view

import (
	"io"

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
// Nothing is written for an empty chain.
func Explanation(w io.Writer, chain []runtime.Cause) error {
	_, err := io.WriteString(w, runtime.FormatExplanation(chain))
	return err
}
