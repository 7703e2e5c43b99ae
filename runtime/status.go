package runtime

import "fmt"

// Status is the result of ticking a node.
//
// A node is IDLE only before it has run (and again after it is halted or its
// parent resets it); after a tick it is RUNNING, SUCCESS, FAILURE or SKIPPED.
// SKIPPED is reported to the parent but never stored: a skipped node stays
// IDLE, as in BehaviorTree.CPP.
type Status uint8

// The statuses, in BehaviorTree.CPP's order.
const (
	Idle Status = iota
	Running
	Success
	Failure
	Skipped
)

var statusNames = [...]string{"IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED"}

// String returns the status in capitals, as BehaviorTree.CPP and Groot2 print it.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Completed reports whether s is SUCCESS or FAILURE.
func (s Status) Completed() bool { return s == Success || s == Failure }

// Active reports whether s is neither IDLE nor SKIPPED.
func (s Status) Active() bool { return s != Idle && s != Skipped }

// ParseStatus reads a status name as String writes it (case-sensitive).
func ParseStatus(name string) (Status, error) {
	for i, n := range statusNames {
		if n == name {
			return Status(i), nil
		}
	}
	return Idle, fmt.Errorf("unknown status %q (want one of IDLE, RUNNING, SUCCESS, FAILURE, SKIPPED)", name)
}

// MarshalText writes the status name, so statuses read well in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status name.
func (s *Status) UnmarshalText(b []byte) error {
	v, err := ParseStatus(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
