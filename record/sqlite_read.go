package record

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/runtime"
)

// sqliteRecording reads a .db3: btrobot's, or BT.CPP SqliteLogger's (the
// tree and its transitions only). Every query of StateAt is an index seek.
type sqliteRecording struct {
	path   string
	db     *sql.DB
	header Header
	own    bool   // btrobot's tables are there
	at     string // the column with a transition's time: at, or BT.CPP's timestamp
	keys   [][2]string
	damage error

	lastStatus, lastReason, lastValue *sql.Stmt
}

func openSQLite(path string) (*sqliteRecording, error) {
	r := &sqliteRecording{path: path}
	if err := r.checkSize(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+url.PathEscape(path)+"?mode=ro")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	r.db = db
	if err := r.readHeader(); err != nil {
		db.Close()
		return nil, err
	}
	return r, nil
}

// checkSize catches a database cut short: SQLite's own error would not
// say where.
func (r *sqliteRecording) checkSize() error {
	f, err := os.Open(r.path)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [100]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return &FormatError{Path: r.path, Offset: 0, Msg: "the SQLite header (100 bytes) is cut short"}
	}
	page := int64(binary.BigEndian.Uint16(hdr[16:]))
	if page == 1 {
		page = 65536
	}
	if page < 512 || page&(page-1) != 0 {
		return &FormatError{Path: r.path, Offset: 16, Msg: fmt.Sprintf("page size %d is not a power of two from 512 to 65536", page)}
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size()%page != 0 {
		return &FormatError{Path: r.path, Offset: fi.Size() / page * page, Msg: fmt.Sprintf("the database is cut short: its last page has %d of its %d bytes", fi.Size()%page, page)}
	}
	return nil
}

func (r *sqliteRecording) bad(err error) error {
	return fmt.Errorf("%s: reading the recording: %w", r.path, err)
}

func (r *sqliteRecording) readHeader() error {
	var xml string
	if err := r.db.QueryRow(`SELECT xml_tree FROM Definitions ORDER BY session_id LIMIT 1`).Scan(&xml); err != nil {
		return r.bad(fmt.Errorf("no tree definition (BT.CPP's Definitions table): %w", err))
	}
	r.header.TreeXML = xml
	var n int
	r.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'btrobot_run'`).Scan(&n)
	r.own = n == 1
	r.at = "timestamp"
	if r.own {
		r.at = "at"
	}
	if r.own {
		var id string
		var seed, start int64
		if err := r.db.QueryRow(`SELECT run_id, version, seed, start, profile FROM btrobot_run LIMIT 1`).Scan(&id, &r.header.Version, &seed, &start, &r.header.Profile); err != nil {
			return r.bad(fmt.Errorf("the run's header: %w", err))
		}
		r.header.RunID, _ = uuid.Parse(id)
		r.header.Seed, r.header.Start = uint64(seed), usecTime(start)
		rows, err := r.db.Query(`SELECT node_uid, path, type, name FROM btrobot_nodes ORDER BY node_uid`)
		if err != nil {
			return r.bad(err)
		}
		for rows.Next() {
			var ni NodeInfo
			if err := rows.Scan(&ni.UID, &ni.Path, &ni.Type, &ni.Name); err != nil {
				rows.Close()
				return r.bad(err)
			}
			if ni.UID != uint32(len(r.header.Nodes)+1) {
				rows.Close()
				return r.bad(fmt.Errorf("btrobot_nodes: node %d follows node %d; UIDs count from 1 without gaps", ni.UID, len(r.header.Nodes)))
			}
			r.header.Nodes = append(r.header.Nodes, ni)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return r.bad(err)
		}
		krows, err := r.db.Query(`SELECT scope, key FROM btrobot_keys ORDER BY scope, key`)
		if err != nil {
			return r.bad(err)
		}
		for krows.Next() {
			var k [2]string
			if err := krows.Scan(&k[0], &k[1]); err != nil {
				krows.Close()
				return r.bad(err)
			}
			r.keys = append(r.keys, k)
		}
		krows.Close()
	} else {
		// BT.CPP's: the nodes come from the XML, the start from the first
		// transition.
		nodes, xerr := nodesFromXML(xml)
		if xerr != nil {
			return r.bad(fmt.Errorf("the tree's XML, at byte %d: %s", xerr.off, xerr.msg))
		}
		r.header.Nodes = nodes
		var start sql.NullInt64
		r.db.QueryRow(`SELECT min(timestamp) FROM Transitions`).Scan(&start) // the key: fast
		r.header.Start = usecTime(start.Int64)
	}
	var err error
	if r.lastStatus, err = r.db.Prepare(`SELECT state FROM Transitions WHERE node_uid = ? AND ` + r.at + ` <= ? ORDER BY ` + r.at + ` DESC, timestamp DESC LIMIT 1`); err != nil {
		return r.bad(err)
	}
	if r.lastReason, err = r.db.Prepare(`SELECT coalesce(extra_data, '') FROM Transitions WHERE node_uid = ? AND ` + r.at + ` <= ? AND state IN (2, 3) ORDER BY ` + r.at + ` DESC, timestamp DESC LIMIT 1`); err != nil {
		return r.bad(err)
	}
	if r.own {
		if r.lastValue, err = r.db.Prepare(`SELECT type, value, seq, stamp, writer FROM btrobot_blackboard WHERE scope = ? AND key = ? AND timestamp <= ? ORDER BY timestamp DESC, rowid DESC LIMIT 1`); err != nil {
			return r.bad(err)
		}
	}
	return nil
}

func (r *sqliteRecording) Format() string { return "sqlite" }
func (r *sqliteRecording) Header() Header { return r.header }
func (r *sqliteRecording) Damage() error  { return r.damage }

func (r *sqliteRecording) Close() error { return r.db.Close() }

func (r *sqliteRecording) Span() (time.Time, time.Time) {
	last := r.header.Start.UnixMicro()
	var t sql.NullInt64
	qs := []string{`SELECT max(` + r.at + `) FROM Transitions`}
	if r.own {
		qs = append(qs, `SELECT max(timestamp) FROM btrobot_blackboard`, `SELECT max(start) FROM btrobot_ticks`)
	}
	for _, q := range qs {
		if r.db.QueryRow(q).Scan(&t) == nil && t.Valid {
			last = max(last, t.Int64)
		}
	}
	return r.header.Start, usecTime(last)
}

func (r *sqliteRecording) StateAt(at time.Time) (*State, error) {
	us := at.UnixMicro()
	s := newState(at, len(r.header.Nodes))
	for i := range r.header.Nodes {
		var st int
		switch err := r.lastStatus.QueryRow(i+1, us).Scan(&st); err {
		case nil:
			if st < 0 || st > int(runtime.Skipped) {
				return nil, r.bad(fmt.Errorf("node %d has status %d; statuses go from 0 (IDLE) to 4 (SKIPPED)", i+1, st))
			}
			s.Statuses[i] = runtime.Status(st)
		case sql.ErrNoRows:
			continue
		default:
			return nil, r.bad(err)
		}
		var reason string
		switch err := r.lastReason.QueryRow(i+1, us).Scan(&reason); err {
		case nil, sql.ErrNoRows:
			s.Reasons[i] = reason
		default:
			return nil, r.bad(err)
		}
	}
	if !r.own {
		return s, nil
	}
	s.Blackboard = map[string]map[string]Value{}
	for _, k := range r.keys {
		var v Value
		var value sql.NullString
		var seq, stamp int64
		switch err := r.lastValue.QueryRow(k[0], k[1], us).Scan(&v.Type, &value, &seq, &stamp, &v.Writer); err {
		case nil:
		case sql.ErrNoRows:
			continue
		default:
			return nil, r.bad(err)
		}
		if !value.Valid {
			continue // removed
		}
		v.Value, v.Seq, v.Stamp = []byte(value.String), uint64(seq), usecTime(stamp)
		if s.Blackboard[k[0]] == nil {
			s.Blackboard[k[0]] = map[string]Value{}
		}
		s.Blackboard[k[0]][k[1]] = v
	}
	var tick int64
	switch err := r.db.QueryRow(`SELECT seq FROM btrobot_ticks WHERE start <= ? ORDER BY start DESC, seq DESC LIMIT 1`, us).Scan(&tick); err {
	case nil, sql.ErrNoRows:
	default:
		return nil, r.bad(err)
	}
	s.Tick = uint64(tick)
	return s, nil
}

func (r *sqliteRecording) Transitions(from, until time.Time) ([]Transition, error) {
	s, err := r.StateAt(from.Add(-time.Microsecond))
	if err != nil {
		return nil, err
	}
	rows, err := r.db.Query(`SELECT `+r.at+`, node_uid, state, coalesce(extra_data, '') FROM Transitions WHERE `+r.at+` >= ? AND `+r.at+` < ? ORDER BY timestamp`, from.UnixMicro(), until.UnixMicro())
	if err != nil {
		return nil, r.bad(err)
	}
	defer rows.Close()
	var out []Transition
	for rows.Next() {
		var ts int64
		var uid, st int
		var reason string
		if err := rows.Scan(&ts, &uid, &st, &reason); err != nil {
			return nil, r.bad(err)
		}
		if uid < 1 || uid > len(s.Statuses) || st < 0 || st > int(runtime.Skipped) {
			return nil, r.bad(fmt.Errorf("transition at %d µs: node %d, status %d: the tree has nodes 1 to %d, statuses 0 to 4", ts, uid, st, len(s.Statuses)))
		}
		out = append(out, Transition{At: usecTime(ts), UID: uint32(uid), From: s.Statuses[uid-1], To: runtime.Status(st), Reason: reason})
		s.Statuses[uid-1] = runtime.Status(st)
	}
	if err := rows.Err(); err != nil {
		return nil, r.bad(err)
	}
	return out, nil
}

func (r *sqliteRecording) Changes(from, until time.Time) ([]Change, error) {
	if !r.own {
		return nil, nil
	}
	rows, err := r.db.Query(`SELECT timestamp, stamp, scope, key, type, value, seq, writer FROM btrobot_blackboard WHERE timestamp >= ? AND timestamp < ? ORDER BY timestamp, rowid`, from.UnixMicro(), until.UnixMicro())
	if err != nil {
		return nil, r.bad(err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var ts, stamp, seq int64
		var value sql.NullString
		if err := rows.Scan(&ts, &stamp, &c.Scope, &c.Key, &c.Type, &value, &seq, &c.Writer); err != nil {
			return nil, r.bad(err)
		}
		c.At, c.Stamp, c.Seq = usecTime(ts), usecTime(stamp), uint64(seq)
		if value.Valid {
			c.Value = []byte(value.String)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, r.bad(err)
	}
	return out, nil
}

func (r *sqliteRecording) Ticks(from, until time.Time) ([]Tick, error) {
	if !r.own {
		return nil, nil
	}
	rows, err := r.db.Query(`SELECT seq, start, lateness, duration, early, status FROM btrobot_ticks WHERE start >= ? AND start < ? ORDER BY seq`, from.UnixMicro(), until.UnixMicro())
	if err != nil {
		return nil, r.bad(err)
	}
	defer rows.Close()
	var out []Tick
	for rows.Next() {
		var t Tick
		var seq, start, late, dur int64
		var st int
		if err := rows.Scan(&seq, &start, &late, &dur, &t.Early, &st); err != nil {
			return nil, r.bad(err)
		}
		t.Seq, t.Start, t.Lateness, t.Duration, t.Status = uint64(seq), usecTime(start), time.Duration(late)*time.Microsecond, time.Duration(dur)*time.Microsecond, runtime.Status(st)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, r.bad(err)
	}
	return out, nil
}
