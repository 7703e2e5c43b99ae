package record

import (
	"bytes"
	"context"
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
// records are corrupt, gets a *FormatError with the offset; a SQLite
// database that is not one of btrobot's or BT.CPP's recordings (other
// tables, views in their place, other columns) a *NotRecordingError.
//
// Reading a recording takes bounded memory whatever its size (a .btlog's
// records stay on disk, a .db3 is queried) and bounded time: each call's
// SQLite queries are given MaxQueryTime, any one value MaxValueBytes.
func Open(path string) (Recording, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open with a context that bounds the recording's life:
// once ctx ends, opening and every read end soon with its error, even in
// the middle of a query (SIGTERM ends a replay stuck in a hostile file).
func OpenContext(ctx context.Context, path string) (Recording, error) {
	return openWith(ctx, path, defaultLimits)
}

func openWith(ctx context.Context, path string, lim limits) (Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRecordingError{Path: path, Reason: "not a regular file"}
	}
	head := make([]byte, max(len(btlogMagic), len(sqliteMagic)))
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte(btlogMagic)):
		r, err := parseBTLog(ctx, path, f, fi.Size(), lim)
		if err != nil {
			f.Close()
			return nil, err
		}
		r.file = f
		return r, nil
	case bytes.HasPrefix(head, []byte(sqliteMagic)):
		f.Close()
		return openSQLite(ctx, path, lim)
	case bytes.HasPrefix([]byte(btlogMagic), head) || bytes.HasPrefix([]byte(sqliteMagic), head):
		f.Close()
		return nil, &FormatError{Path: path, Offset: int64(n), Msg: "the file ends inside its magic bytes"}
	default:
		f.Close()
		return nil, &FormatError{Path: path, Offset: 0, Msg: fmt.Sprintf("not a recording: a .btlog starts with %q, a SQLite database with %q", btlogMagic, sqliteMagic[:15])}
	}
}

// What reading one recording may cost, whatever the file holds.
const (
	// MaxQueryTime bounds the SQLite queries of one call (Open, StateAt,
	// Transitions...): a recording's are index seeks and short ranges,
	// done in milliseconds.
	MaxQueryTime = 20 * time.Second
	// MaxValueBytes bounds any one value read from a .db3 (the tree's
	// XML, a reason, a blackboard value) and a .btlog's tree XML.
	MaxValueBytes = 64 << 20
	// MaxEvents bounds the events one call of Transitions, Changes or
	// Ticks returns (the Player reads a second of recorded time at once).
	MaxEvents = 1 << 18
)

// limits bound the reading of one recording; Open uses defaultLimits,
// tests tighter ones.
type limits struct {
	treeXML int64         // bytes of a .btlog's tree XML
	value   int           // bytes of any one SQLite value (SQLITE_LIMIT_LENGTH)
	events  int           // events one call returns
	checks  int64         // bytes of a .btlog's checkpoints
	rows    int           // rows of btrobot_nodes and btrobot_keys
	timeout time.Duration // the queries of one call
}

var defaultLimits = limits{treeXML: MaxValueBytes, value: MaxValueBytes, events: MaxEvents, checks: 16 << 20, rows: 1 << 20, timeout: MaxQueryTime}

// NotRecordingError is a file that opens (a SQLite database) but is not a
// recording btrobot can read: what is missing or out of place.
type NotRecordingError struct {
	Path   string
	Reason string
}

func (e *NotRecordingError) Error() string {
	return fmt.Sprintf("%s: not a btrobot recording: %s", e.Path, e.Reason)
}

// TooManyEventsError is a call that asked for more events than MaxEvents
// at once: a shorter span, or FirstTransitions, reads them.
type TooManyEventsError struct {
	Path        string
	From, Until time.Time
	Max         int
}

func (e *TooManyEventsError) Error() string {
	return fmt.Sprintf("%s: more than %d events from %s to %s: read a shorter span", e.Path, e.Max, e.From.Format(time.RFC3339Nano), e.Until.Format(time.RFC3339Nano))
}

// FirstTransitions returns the first n transitions of rec with from <=
// time < until: a timeline of a long recording, read without holding all
// of it.
func FirstTransitions(rec Recording, from, until time.Time, n int) ([]Transition, error) {
	type firstN interface {
		firstTransitions(from, until time.Time, n int) ([]Transition, error)
	}
	if f, ok := rec.(firstN); ok {
		return f.firstTransitions(from, until, max(n, 0))
	}
	ts, err := rec.Transitions(from, until)
	if len(ts) > n {
		ts = ts[:n]
	}
	return ts, err
}

const sqliteMagic = "SQLite format 3\x00"

// errClosed is returned by a closed recording.
var errClosed = errors.New("record: recording is closed")

func newState(at time.Time, nodes int) *State {
	return &State{At: at, Statuses: make([]runtime.Status, nodes), Reasons: make([]string, nodes)}
}
