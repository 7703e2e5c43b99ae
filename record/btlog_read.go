package record

import (
	"context"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// A .btlog is read in place: its header (the tree's XML) is held in
// memory, its records stay on disk and are read when asked for. Opening
// reads the records once, in chunks, to check them and to keep a snapshot
// of every node's status every so many records (a checkpoint), so that a
// seek reads one stretch of records between two checkpoints. The
// checkpoints are bounded in bytes (limits.checks): in a longer recording
// they lie further apart, so that memory does not grow with the file.

const (
	// checkpointEvery is how many records lie between two checkpoints at
	// first; the distance doubles whenever the checkpoints would take more
	// than their budget.
	checkpointEvery = 4096
	// chunkRecords is how many records are read from the file at once.
	chunkRecords = 8192
)

// btlogRecording is a .btlog opened for replay.
type btlogRecording struct {
	path   string
	src    io.ReaderAt
	file   *os.File // src, when it is a file (nil in tests that read bytes)
	ctx    context.Context
	lim    limits
	header Header
	t0     int64 // µs since the epoch
	body   int64 // where the first record starts
	n      int   // whole records
	damage error
	every  int          // records between two checkpoints
	checks []btlogCheck // checks[k]: before record k*every
	last   int64        // the last record's offset, made monotonic
	closed atomic.Bool
}

// btlogCheck is the state before one record: every node's status, and the
// offsets there. Offsets are made monotonic as they are read (a clock that
// stepped back would break the seek): a record's offset counts as the
// largest one so far.
type btlogCheck struct {
	floor    int64 // the largest offset of the records before
	first    int64 // the record's own offset, made monotonic
	statuses []runtime.Status
}

// parseBTLog reads the header of a .btlog of size bytes from src and
// checks every record, in bounded memory.
func parseBTLog(ctx context.Context, path string, src io.ReaderAt, size int64, lim limits) (*btlogRecording, error) {
	bad := func(off int64, format string, args ...any) error {
		return &FormatError{Path: path, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	const xmlAt = int64(len(btlogMagic) + 1 + 4)
	if size < xmlAt {
		return nil, bad(size, "the file ends inside its header (%d bytes; the magic, the protocol and the XML's length take %d)", size, xmlAt)
	}
	var head [xmlAt]byte
	if _, err := src.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if string(head[:len(btlogMagic)]) != btlogMagic {
		return nil, bad(0, "not a .btlog: it must start with %q", btlogMagic)
	}
	if p := head[len(btlogMagic)]; p != btlogProtocol {
		return nil, bad(int64(len(btlogMagic)), "protocol %d; only FileLogger2's protocol %d is known", p, btlogProtocol)
	}
	n := int64(int32(binary.LittleEndian.Uint32(head[len(btlogMagic)+1:])))
	if n < 0 || n > size-xmlAt {
		return nil, bad(int64(len(btlogMagic)+1), "the tree's XML is said to be %d bytes long, but %d bytes follow", n, size-xmlAt)
	}
	if n > lim.treeXML {
		return nil, bad(int64(len(btlogMagic)+1), "the tree's XML is said to be %d bytes long; btrobot reads up to %d", n, lim.treeXML)
	}
	xmlEnd := xmlAt + n
	if size < xmlEnd+8 {
		return nil, bad(size, "the file ends inside the first timestamp (at byte %d, 8 bytes)", xmlEnd)
	}
	buf := make([]byte, n+8)
	if _, err := src.ReadAt(buf, xmlAt); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &btlogRecording{path: path, src: src, ctx: ctx, lim: lim, t0: int64(binary.LittleEndian.Uint64(buf[n:])), body: xmlEnd + 8, every: checkpointEvery}
	if r.t0 < 0 || r.t0 > 1<<53 {
		return nil, bad(xmlEnd, "first timestamp %d µs is not a time", r.t0)
	}
	xmlText := string(buf[:n])
	nodes, err := nodesFromXML(xmlText)
	if err != nil {
		return nil, bad(xmlAt+err.off, "the tree's XML: %s", err.msg)
	}
	r.header = Header{Start: usecTime(r.t0), TreeXML: xmlText, Nodes: nodes}
	body := size - r.body
	whole := body / btlogRecord * btlogRecord
	if whole != body {
		r.damage = bad(r.body+whole, "the file is cut short: its last transition has %d of its %d bytes", body-whole, btlogRecord)
	}
	r.n = int(whole / btlogRecord)
	if r.n == 0 {
		return r, nil
	}
	// One pass over the records: check each, keep the checkpoints.
	statuses := make([]runtime.Status, len(nodes))
	checkSize := int64(len(nodes)) + 64
	var floor int64
	err2 := r.walk(0, r.n, 0, func(i int, off int64, uid int, st runtime.Status) {
		if i%r.every == 0 {
			r.checks = append(r.checks, btlogCheck{floor: floor, first: off, statuses: append([]runtime.Status(nil), statuses...)})
			if int64(len(r.checks))*checkSize > lim.checks && len(r.checks) > 2 {
				// Keep every other checkpoint: they are twice as far apart.
				kept := r.checks[:0]
				for k := 0; k < len(r.checks); k += 2 {
					kept = append(kept, r.checks[k])
				}
				clear(r.checks[len(kept):])
				r.checks, r.every = kept, r.every*2
			}
		}
		statuses[uid-1] = st
		floor = off
	})
	if err2 != nil {
		return nil, err2
	}
	r.last = floor
	return r, nil
}

// walk reads records [from, to) in chunks and calls fn with each, its
// offset made monotonic from floor (the largest offset before from). It
// checks every record, so that a file changed since it was opened cannot
// name a node the tree does not have.
func (r *btlogRecording) walk(from, to int, floor int64, fn func(i int, off int64, uid int, st runtime.Status)) error {
	if from >= to {
		return nil
	}
	buf := make([]byte, min(to-from, chunkRecords)*btlogRecord)
	nodes := len(r.header.Nodes)
	for i := from; i < to; {
		if r.closed.Load() {
			return errClosed
		}
		if r.ctx.Err() != nil {
			return fmt.Errorf("%s: %w", r.path, context.Cause(r.ctx))
		}
		m := min(to-i, chunkRecords)
		chunk := buf[:m*btlogRecord]
		at := r.body + int64(i)*btlogRecord
		if _, err := r.src.ReadAt(chunk, at); err != nil {
			if r.closed.Load() {
				return errClosed
			}
			if errors.Is(err, io.EOF) {
				return &FormatError{Path: r.path, Offset: at, Msg: "the file is shorter than when it was opened"}
			}
			return fmt.Errorf("%s: %w", r.path, err)
		}
		for j := range m {
			rec := chunk[j*btlogRecord : (j+1)*btlogRecord]
			uid := int(binary.LittleEndian.Uint16(rec[6:]))
			if uid < 1 || uid > nodes {
				return &FormatError{Path: r.path, Offset: at + int64(j*btlogRecord) + 6, Msg: fmt.Sprintf("transition %d names node %d; the tree has nodes 1 to %d", i+j+1, uid, nodes)}
			}
			st := runtime.Status(rec[8])
			if st > runtime.Skipped {
				return &FormatError{Path: r.path, Offset: at + int64(j*btlogRecord) + 8, Msg: fmt.Sprintf("transition %d gives node %d status %d; statuses go from 0 (IDLE) to 4 (SKIPPED)", i+j+1, uid, st)}
			}
			floor = max(floor, uint48(rec))
			fn(i+j, floor, uid, st)
		}
		i += m
	}
	return nil
}

func (r *btlogRecording) Format() string { return "btlog" }
func (r *btlogRecording) Header() Header { return r.header }
func (r *btlogRecording) Damage() error  { return r.damage }

func (r *btlogRecording) Close() error {
	if r.closed.Swap(true) || r.file == nil {
		return nil
	}
	return r.file.Close()
}

func (r *btlogRecording) Span() (time.Time, time.Time) {
	return usecTime(r.t0), usecTime(r.t0 + r.last)
}

// block returns the checkpoint at or before record i.
func (r *btlogRecording) block(i int) int {
	return min(i/r.every, len(r.checks)-1)
}

// index returns how many records lie before offset off (µs since T0).
func (r *btlogRecording) index(off int64) (int, error) {
	// The first checkpoint at or after off: the answer lies in the stretch
	// before it.
	k := sort.Search(len(r.checks), func(k int) bool { return r.checks[k].first >= off })
	if k == 0 {
		return 0, nil
	}
	from, to := (k-1)*r.every, min(k*r.every, r.n)
	n := from
	err := r.walk(from, to, r.checks[k-1].floor, func(_ int, o int64, _ int, _ runtime.Status) {
		if o < off {
			n++
		}
	})
	return n, err
}

// replay returns the statuses before record lo and calls fn with records
// [lo, hi) as the statuses before each; it reads from the checkpoint
// before lo.
func (r *btlogRecording) replay(lo, hi int, fn func(off int64, uid int, from, to runtime.Status)) ([]runtime.Status, error) {
	s := make([]runtime.Status, len(r.header.Nodes))
	if r.n == 0 || hi == 0 {
		return s, nil
	}
	k := r.block(lo)
	copy(s, r.checks[k].statuses)
	err := r.walk(k*r.every, hi, r.checks[k].floor, func(i int, off int64, uid int, st runtime.Status) {
		if i >= lo && fn != nil {
			fn(off, uid, s[uid-1], st)
		}
		s[uid-1] = st
	})
	return s, err
}

func (r *btlogRecording) StateAt(at time.Time) (*State, error) {
	if r.closed.Load() {
		return nil, errClosed
	}
	end, err := r.index(at.UnixMicro() - r.t0 + 1) // records at or before at
	if err != nil {
		return nil, err
	}
	statuses, err := r.replay(end, end, nil)
	if err != nil {
		return nil, err
	}
	s := newState(at, len(r.header.Nodes))
	s.Statuses = statuses
	return s, nil
}

func (r *btlogRecording) Transitions(from, until time.Time) ([]Transition, error) {
	return r.firstTransitions(from, until, -1)
}

// firstTransitions returns the first n transitions with from <= time <
// until (n < 0: all of them, at most limits.events).
func (r *btlogRecording) firstTransitions(from, until time.Time, n int) ([]Transition, error) {
	if r.closed.Load() {
		return nil, errClosed
	}
	lo, err := r.index(from.UnixMicro() - r.t0)
	if err != nil {
		return nil, err
	}
	hi, err := r.index(until.UnixMicro() - r.t0)
	if err != nil {
		return nil, err
	}
	hi = max(hi, lo)
	if n >= 0 {
		hi = min(hi, lo+n)
	} else if hi-lo > r.lim.events {
		return nil, &TooManyEventsError{Path: r.path, From: from, Until: until, Max: r.lim.events}
	}
	out := make([]Transition, 0, hi-lo)
	_, err = r.replay(lo, hi, func(off int64, uid int, was, st runtime.Status) {
		out = append(out, Transition{At: usecTime(r.t0 + off), UID: uint32(uid), From: was, To: st})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// nextEvent returns the time of the first transition at or after t.
func (r *btlogRecording) nextEvent(t time.Time) (time.Time, bool, error) {
	ts, err := r.firstTransitions(t, usecTime(r.t0+r.last+1), 1)
	if err != nil || len(ts) == 0 {
		return time.Time{}, false, err
	}
	return ts[0].At, true, nil
}

func (r *btlogRecording) Changes(from, until time.Time) ([]Change, error) { return nil, nil }
func (r *btlogRecording) Ticks(from, until time.Time) ([]Tick, error)     { return nil, nil }

// xmlError is a problem in a recording's tree XML, at a byte of the XML.
type xmlError struct {
	off int64
	msg string
}

// nodesFromXML lists the nodes of a tree XML as TreeXML (and BT.CPP's
// WriteTreeToXML) writes it: every element with a _uid, named after the
// paths the builder gives (the tree, then names, #k for a repeated name
// among siblings; a SubTree's own _fullpath).
func nodesFromXML(text string) ([]NodeInfo, *xmlError) {
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = true
	type open struct {
		path  string // path of this element's node ("" for non-nodes)
		names map[string]int
		base  string // for a BehaviorTree: the path its root hangs from
	}
	var stack []open
	var nodes []NodeInfo
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &xmlError{off: d.InputOffset(), msg: err.Error()}
		}
		if len(stack) > 1024 {
			return nil, &xmlError{off: off, msg: "nested deeper than 1024 elements"}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			attr := func(name string) (string, bool) {
				for _, a := range t.Attr {
					if a.Name.Local == name {
						return a.Value, true
					}
				}
				return "", false
			}
			el := open{}
			if t.Name.Local == "BehaviorTree" {
				id, _ := attr("ID")
				el.base, _ = attr("_fullpath")
				if el.base == "" {
					el.base = id
				}
			}
			uidText, isNode := attr("_uid")
			if isNode && len(stack) > 0 {
				uid, err := strconv.ParseUint(uidText, 10, 16)
				if err != nil || uid == 0 {
					return nil, &xmlError{off: off, msg: fmt.Sprintf("<%s> has _uid %q; a node's UID is a number from 1 to %d", t.Name.Local, uidText, MaxNodes)}
				}
				parent := &stack[len(stack)-1]
				name, ok := attr("name")
				if !ok || name == "" {
					name, _ = attr("ID")
				}
				if name == "" {
					name = t.Name.Local
				}
				var path string
				if parent.base != "" {
					path = parent.base + "/" + name
				} else {
					if parent.names == nil {
						parent.names = map[string]int{}
					}
					parent.names[name]++
					path = parent.path + "/" + name
					if k := parent.names[name]; k > 1 {
						path += "#" + strconv.Itoa(k)
					}
				}
				if fp, ok := attr("_fullpath"); ok && fp != "" {
					path = fp
				}
				el.path = path
				for len(nodes) < int(uid) {
					nodes = append(nodes, NodeInfo{UID: uint32(len(nodes) + 1)})
				}
				nodes[uid-1] = NodeInfo{UID: uint32(uid), Path: path, Type: t.Name.Local, Name: name}
			}
			stack = append(stack, el)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.Directive:
			return nil, &xmlError{off: off, msg: "a DTD or other directive; a tree's XML has none"}
		}
	}
	return nodes, nil
}
