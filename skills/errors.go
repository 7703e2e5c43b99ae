package skills

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/runtime"
)

// unavailable is robot data that is not there now (not received yet, or
// stale): the skill fails and the tree may recover, unlike a missing or
// mistyped entry, which is an error in the tree's setup.
type unavailable struct{ msg string }

func (u *unavailable) Error() string { return u.msg }

func unavailablef(format string, args ...any) error {
	return &unavailable{fmt.Sprintf(format, args...)}
}

// failOn is a node's answer to err: FAILURE for data not available now,
// with what is missing as the node's reason (already formatted: free),
// FAILURE and the error otherwise.
func failOn(n *runtime.Leaf, err error) (runtime.Status, error) {
	var u *unavailable
	if errors.As(err, &u) {
		n.SetReason(u.msg)
		return runtime.Failure, nil
	}
	return runtime.Failure, err
}

// isUnavailable reports whether err is data not available now.
func isUnavailable(err error) bool {
	var u *unavailable
	return errors.As(err, &u)
}
