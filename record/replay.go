package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// Recording is a recording opened for replay: its header, the state of the
// tree at any instant, and its events between two instants.
type Recording interface {
	// Format is "btlog" or "sqlite".
	Format() string
	Header() Header
	// Span returns the times of the recording's first instant and of its
	// last event.
	Span() (first, last time.Time)
	// StateAt returns the tree's state at instant at: each node's status,
	// its last reason and, where the format holds it, the blackboard. It is
	// fast anywhere in the recording (an index or checkpoints, no replay
	// from the start).
	StateAt(at time.Time) (*State, error)
	// Transitions, Changes and Ticks return the events with from <= time
	// < until, in the order they happened. A .btlog holds no blackboard
	// changes and no ticks: those return nothing.
	Transitions(from, until time.Time) ([]Transition, error)
	Changes(from, until time.Time) ([]Change, error)
	Ticks(from, until time.Time) ([]Tick, error)
	// Damage says what was lost at the end of a file cut short (a killed
	// process, a full disk): nil for a whole file. The events before the
	// damage replay normally.
	Damage() error
	Close() error
}

// State is a recorded tree at one instant.
type State struct {
	At time.Time
	// Statuses[i] is the status of the node with UID i+1; Reasons[i] the
	// reason it gave when it last completed (empty when none was
	// recorded).
	Statuses []runtime.Status
	Reasons  []string
	// Blackboard holds the written entries of every scope (see
	// Change.Scope) by key; nil for a format that does not record it.
	Blackboard map[string]map[string]Value
	// Tick is the sequence number of the last tick started at or before
	// At; 0 when none was recorded.
	Tick uint64
}

// Value is a blackboard entry's value in a State.
type Value struct {
	Type   string
	Value  json.RawMessage
	Seq    uint64
	Stamp  time.Time
	Writer string
}

// FormatError is a recording that cannot be read: what is wrong and at
// which byte of the file.
type FormatError struct {
	Path   string
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: at byte %d: %s", e.Path, e.Offset, e.Msg)
}

// Open opens a recording of either format, telling them apart by their
// first bytes. A file that is not a recording, or whose header or
// records are corrupt, gets a *FormatError with the offset.
func Open(path string) (Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, max(len(btlogMagic), len(sqliteMagic)))
	n, _ := io.ReadFull(f, head)
	f.Close()
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte(btlogMagic)):
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return parseBTLog(path, data)
	case bytes.HasPrefix(head, []byte(sqliteMagic)):
		return openSQLite(path)
	case bytes.HasPrefix([]byte(btlogMagic), head) || bytes.HasPrefix([]byte(sqliteMagic), head):
		return nil, &FormatError{Path: path, Offset: int64(n), Msg: "the file ends inside its magic bytes"}
	default:
		return nil, &FormatError{Path: path, Offset: 0, Msg: fmt.Sprintf("not a recording: a .btlog starts with %q, a SQLite database with %q", btlogMagic, sqliteMagic[:15])}
	}
}

const sqliteMagic = "SQLite format 3\x00"

// errClosed is returned by a closed recording.
var errClosed = errors.New("record: recording is closed")

func newState(at time.Time, nodes int) *State {
	return &State{At: at, Statuses: make([]runtime.Status, nodes), Reasons: make([]string, nodes)}
}
