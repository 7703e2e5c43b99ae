package record

import (
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// checkpointEvery is how many records lie between two status snapshots of
// a .btlog: a seek replays at most that many.
const checkpointEvery = 4096

// btlogRecording is a .btlog held in memory: 9 bytes per transition, plus
// a snapshot of every node's status each checkpointEvery records.
type btlogRecording struct {
	path    string
	header  Header
	t0      int64  // µs since the epoch
	records []byte // whole records only, offsets made monotonic
	damage  error
	checks  [][]runtime.Status // checks[k]: statuses before record k*checkpointEvery
	closed  bool
}

// parseBTLog reads a .btlog whole and checks every record.
func parseBTLog(path string, data []byte) (*btlogRecording, error) {
	bad := func(off int, format string, args ...any) error {
		return &FormatError{Path: path, Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
	}
	const xmlAt = len(btlogMagic) + 1 + 4
	if len(data) < xmlAt {
		return nil, bad(len(data), "the file ends inside its header (%d bytes; the magic, the protocol and the XML's length take %d)", len(data), xmlAt)
	}
	if string(data[:len(btlogMagic)]) != btlogMagic {
		return nil, bad(0, "not a .btlog: it must start with %q", btlogMagic)
	}
	if p := data[len(btlogMagic)]; p != btlogProtocol {
		return nil, bad(len(btlogMagic), "protocol %d; only FileLogger2's protocol %d is known", p, btlogProtocol)
	}
	n := int64(int32(binary.LittleEndian.Uint32(data[len(btlogMagic)+1:])))
	if n < 0 || n > int64(len(data)-xmlAt) {
		return nil, bad(len(btlogMagic)+1, "the tree's XML is said to be %d bytes long, but %d bytes follow", n, len(data)-xmlAt)
	}
	xmlEnd := xmlAt + int(n)
	if len(data) < xmlEnd+8 {
		return nil, bad(len(data), "the file ends inside the first timestamp (at byte %d, 8 bytes)", xmlEnd)
	}
	r := &btlogRecording{path: path, t0: int64(binary.LittleEndian.Uint64(data[xmlEnd:]))}
	if r.t0 < 0 || r.t0 > 1<<53 {
		return nil, bad(xmlEnd, "first timestamp %d µs is not a time", r.t0)
	}
	xmlText := string(data[xmlAt:xmlEnd])
	nodes, err := nodesFromXML(xmlText)
	if err != nil {
		return nil, bad(xmlAt+int(err.off), "the tree's XML: %s", err.msg)
	}
	r.header = Header{Start: usecTime(r.t0), TreeXML: xmlText, Nodes: nodes}
	body := data[xmlEnd+8:]
	whole := len(body) / btlogRecord * btlogRecord
	if whole != len(body) {
		r.damage = bad(xmlEnd+8+whole, "the file is cut short: its last transition has %d of its %d bytes", len(body)-whole, btlogRecord)
	}
	r.records = body[:whole]
	statuses := make([]runtime.Status, len(nodes))
	var last int64
	for i := 0; i < len(r.records); i += btlogRecord {
		if i%(checkpointEvery*btlogRecord) == 0 {
			r.checks = append(r.checks, append([]runtime.Status(nil), statuses...))
		}
		rec := r.records[i : i+btlogRecord]
		uid := int(binary.LittleEndian.Uint16(rec[6:]))
		if uid < 1 || uid > len(nodes) {
			return nil, bad(xmlEnd+8+i+6, "transition %d names node %d; the tree has nodes 1 to %d", i/btlogRecord+1, uid, len(nodes))
		}
		st := runtime.Status(rec[8])
		if st > runtime.Skipped {
			return nil, bad(xmlEnd+8+i+8, "transition %d gives node %d status %d; statuses go from 0 (IDLE) to 4 (SKIPPED)", i/btlogRecord+1, uid, st)
		}
		statuses[uid-1] = st
		// A clock that stepped back would break the seek: keep time
		// moving forward.
		if off := uint48(rec); off < last {
			putUint48(rec, uint64(last))
		} else {
			last = off
		}
	}
	return r, nil
}

func (r *btlogRecording) Format() string { return "btlog" }
func (r *btlogRecording) Header() Header { return r.header }
func (r *btlogRecording) Damage() error  { return r.damage }
func (r *btlogRecording) Close() error   { r.closed = true; return nil }

func (r *btlogRecording) count() int { return len(r.records) / btlogRecord }

func (r *btlogRecording) at(i int) (off int64, uid int, st runtime.Status) {
	rec := r.records[i*btlogRecord : (i+1)*btlogRecord]
	return uint48(rec), int(binary.LittleEndian.Uint16(rec[6:])), runtime.Status(rec[8])
}

func (r *btlogRecording) Span() (time.Time, time.Time) {
	last := r.t0
	if n := r.count(); n > 0 {
		off, _, _ := r.at(n - 1)
		last += off
	}
	return usecTime(r.t0), usecTime(last)
}

// index returns how many records happened before instant at (µs offset).
func (r *btlogRecording) index(off int64) int {
	return sort.Search(r.count(), func(i int) bool {
		o, _, _ := r.at(i)
		return o >= off
	})
}

func (r *btlogRecording) StateAt(at time.Time) (*State, error) {
	if r.closed {
		return nil, errClosed
	}
	s := newState(at, len(r.header.Nodes))
	end := r.index(at.UnixMicro() - r.t0 + 1) // records at or before at
	k := end / checkpointEvery
	if k < len(r.checks) {
		copy(s.Statuses, r.checks[k])
	} else if len(r.checks) > 0 {
		k = len(r.checks) - 1
		copy(s.Statuses, r.checks[k])
	}
	for i := k * checkpointEvery; i < end; i++ {
		_, uid, st := r.at(i)
		s.Statuses[uid-1] = st
	}
	return s, nil
}

func (r *btlogRecording) Transitions(from, until time.Time) ([]Transition, error) {
	s, err := r.StateAt(from.Add(-time.Microsecond))
	if err != nil {
		return nil, err
	}
	lo, hi := r.index(from.UnixMicro()-r.t0), r.index(until.UnixMicro()-r.t0)
	out := make([]Transition, 0, max(0, hi-lo))
	for i := lo; i < hi; i++ {
		off, uid, st := r.at(i)
		out = append(out, Transition{At: usecTime(r.t0 + off), UID: uint32(uid), From: s.Statuses[uid-1], To: st})
		s.Statuses[uid-1] = st
	}
	return out, nil
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
