package record

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/runtime"
)

// sqliteRecording reads a .db3: btrobot's, or BT.CPP SqliteLogger's (the
// tree and its transitions only). Every query of StateAt is an index seek.
//
// A .db3 is a program as much as data: a view in place of a table runs a
// query of its author's choosing (a recursive one that never ends, one
// that makes a gigabyte blob), a generated column or a default computes
// its value on read. So the schema is checked before anything else is
// read (the tables are tables, with the columns expected, of the types
// expected, plain), every value is bounded (SQLITE_LIMIT_LENGTH), every
// call's queries have a deadline and end with the recording's context,
// and rows are counted.
type sqliteRecording struct {
	path   string
	ctx    context.Context
	lim    limits
	db     *sql.DB
	conn   *sql.Conn // the one connection, with its limits set
	header Header
	own    bool   // btrobot's tables are there
	at     string // the column with a transition's time: at, or BT.CPP's timestamp
	keys   [][2]string
	damage error

	mu                                sync.Mutex // one call's queries at a time
	lastStatus, lastReason, lastValue *sql.Stmt
}

func openSQLite(ctx context.Context, path string, lim limits) (*sqliteRecording, error) {
	r := &sqliteRecording{path: path, ctx: ctx, lim: lim}
	if err := r.checkSize(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+url.PathEscape(path)+"?mode=ro")
	if err != nil {
		return nil, r.bad(err)
	}
	db.SetMaxOpenConns(1)
	r.db = db
	if err := r.open(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// open takes the connection, bounds it, checks the schema and reads the
// header, all within one call's deadline.
func (r *sqliteRecording) open() error {
	ctx, cancel := r.call()
	defer cancel()
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return r.bad(err)
	}
	r.conn = conn
	if _, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, r.lim.value); err != nil {
		return r.bad(err)
	}
	// Functions in the schema run only if SQLite deems them harmless; a
	// page whose cells overlap is corruption, said as such.
	if _, err := conn.ExecContext(ctx, `PRAGMA trusted_schema = OFF; PRAGMA cell_size_check = ON; PRAGMA query_only = ON`); err != nil {
		return r.bad(err)
	}
	if err := r.checkSchema(ctx); err != nil {
		return err
	}
	return r.readHeader(ctx)
}

// call returns the context of one call's queries: the recording's, with
// the deadline of one call.
func (r *sqliteRecording) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.ctx, r.lim.timeout)
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
	if r.ctx.Err() != nil {
		// Ended from outside (SIGTERM): say so, not what the interrupted
		// query said.
		err = context.Cause(r.ctx)
	} else if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w: its queries took more than %v (a recording's take milliseconds)", err, r.lim.timeout)
	}
	return fmt.Errorf("%s: reading the recording: %w", r.path, err)
}

// A column of a recording's table: its name and its type's affinity.
type sqliteColumn struct{ name, affinity string }

// The tables and columns replay reads: BT.CPP's, and btrobot's (with
// Transitions.at) when btrobot_run is there.
var (
	btcppTables = map[string][]sqliteColumn{
		"Definitions": {{"session_id", "INTEGER"}, {"xml_tree", "TEXT"}},
		"Transitions": {{"timestamp", "INTEGER"}, {"node_uid", "INTEGER"}, {"state", "INTEGER"}, {"extra_data", "TEXT"}},
	}
	btrobotTables = map[string][]sqliteColumn{
		"Transitions":        {{"at", "INTEGER"}},
		"btrobot_run":        {{"run_id", "TEXT"}, {"version", "TEXT"}, {"seed", "INTEGER"}, {"start", "INTEGER"}, {"profile", "BLOB"}},
		"btrobot_nodes":      {{"node_uid", "INTEGER"}, {"path", "TEXT"}, {"type", "TEXT"}, {"name", "TEXT"}},
		"btrobot_keys":       {{"scope", "TEXT"}, {"key", "TEXT"}},
		"btrobot_blackboard": {{"timestamp", "INTEGER"}, {"stamp", "INTEGER"}, {"scope", "TEXT"}, {"key", "TEXT"}, {"type", "TEXT"}, {"value", "TEXT"}, {"seq", "INTEGER"}, {"writer", "TEXT"}},
		"btrobot_ticks":      {{"seq", "INTEGER"}, {"start", "INTEGER"}, {"lateness", "INTEGER"}, {"duration", "INTEGER"}, {"early", "INTEGER"}, {"status", "INTEGER"}},
	}
)

// checkSchema checks, from sqlite_master alone, that the tables replay
// reads are ordinary tables with the columns it reads, each of the
// expected type, stored (not generated) and without a computed default.
func (r *sqliteRecording) checkSchema(ctx context.Context) error {
	notRec := func(format string, args ...any) error {
		return &NotRecordingError{Path: r.path, Reason: fmt.Sprintf(format, args...)}
	}
	kinds := map[string]string{} // lower-case name -> "table", "view", "virtual table"...
	rows, err := r.conn.QueryContext(ctx, `SELECT type, name, coalesce(sql, '') FROM sqlite_master WHERE type IN ('table', 'view') LIMIT 10000`)
	if err != nil {
		return r.bad(err)
	}
	for rows.Next() {
		var kind, name, text string
		if err := rows.Scan(&kind, &name, &text); err != nil {
			rows.Close()
			return r.bad(err)
		}
		if kind == "table" && !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(text)), "CREATE TABLE") {
			kind = "virtual table"
		}
		kinds[strings.ToLower(name)] = kind
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return r.bad(err)
	}
	check := func(tables map[string][]sqliteColumn) error {
		names := make([]string, 0, len(tables))
		for name := range tables {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			switch kind := kinds[strings.ToLower(name)]; kind {
			case "table":
			case "":
				return notRec("it has no table %s", name)
			default:
				return notRec("%s is a %s, not a table", name, kind)
			}
			if err := r.checkColumns(ctx, name, tables[name]); err != nil {
				return err
			}
		}
		return nil
	}
	if kinds["definitions"] == "" && kinds["transitions"] == "" {
		return notRec("it has neither BT.CPP's tables (Definitions, Transitions) nor btrobot's")
	}
	if err := check(btcppTables); err != nil {
		return err
	}
	if _, ok := kinds["btrobot_run"]; ok {
		r.own = true
		return check(btrobotTables)
	}
	return nil
}

// checkColumns checks that table has the columns want, as checkSchema
// says.
func (r *sqliteRecording) checkColumns(ctx context.Context, table string, want []sqliteColumn) error {
	type column struct {
		affinity string
		hidden   int
		dflt     sql.NullString
	}
	have := map[string]column{}
	rows, err := r.conn.QueryContext(ctx, `SELECT name, type, hidden, dflt_value FROM pragma_table_xinfo(?) LIMIT 2000`, table)
	if err != nil {
		return r.bad(err)
	}
	for rows.Next() {
		var name, typ string
		var c column
		if err := rows.Scan(&name, &typ, &c.hidden, &c.dflt); err != nil {
			rows.Close()
			return r.bad(err)
		}
		c.affinity = affinity(typ)
		have[strings.ToLower(name)] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return r.bad(err)
	}
	for _, w := range want {
		c, ok := have[strings.ToLower(w.name)]
		switch {
		case !ok:
			return &NotRecordingError{Path: r.path, Reason: fmt.Sprintf("table %s has no column %s", table, w.name)}
		case c.hidden != 0:
			return &NotRecordingError{Path: r.path, Reason: fmt.Sprintf("column %s.%s is generated, not stored", table, w.name)}
		case c.affinity != w.affinity:
			return &NotRecordingError{Path: r.path, Reason: fmt.Sprintf("column %s.%s holds %s, not %s", table, w.name, c.affinity, w.affinity)}
		case c.dflt.Valid && !literal(c.dflt.String):
			return &NotRecordingError{Path: r.path, Reason: fmt.Sprintf("column %s.%s has a computed default (%.40s)", table, w.name, c.dflt.String)}
		}
	}
	return nil
}

// affinity is the type affinity SQLite gives a column's declared type
// (https://sqlite.org/datatype3.html, 3.1).
func affinity(declared string) string {
	t := strings.ToUpper(declared)
	switch {
	case strings.Contains(t, "INT"):
		return "INTEGER"
	case strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"):
		return "TEXT"
	case t == "", strings.Contains(t, "BLOB"):
		return "BLOB"
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return "REAL"
	}
	return "NUMERIC"
}

// literal reports whether a column's default is a constant: NULL, a
// number, a short string.
func literal(s string) bool {
	if strings.EqualFold(s, "NULL") {
		return true
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return true
	}
	return len(s) >= 2 && len(s) <= 256 && s[0] == '\'' && s[len(s)-1] == '\''
}

func (r *sqliteRecording) readHeader(ctx context.Context) error {
	var xml string
	if err := r.conn.QueryRowContext(ctx, `SELECT xml_tree FROM Definitions ORDER BY session_id LIMIT 1`).Scan(&xml); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return &NotRecordingError{Path: r.path, Reason: "no tree definition (BT.CPP's Definitions table is empty)"}
		}
		return r.bad(fmt.Errorf("no tree definition (BT.CPP's Definitions table): %w", err))
	}
	r.header.TreeXML = xml
	r.at = "timestamp"
	if r.own {
		r.at = "at"
		var id string
		var seed, start int64
		if err := r.conn.QueryRowContext(ctx, `SELECT run_id, version, seed, start, profile FROM btrobot_run LIMIT 1`).Scan(&id, &r.header.Version, &seed, &start, &r.header.Profile); err != nil {
			return r.bad(fmt.Errorf("the run's header: %w", err))
		}
		r.header.RunID, _ = uuid.Parse(id)
		r.header.Seed, r.header.Start = uint64(seed), usecTime(start)
		rows, err := r.conn.QueryContext(ctx, `SELECT node_uid, path, type, name FROM btrobot_nodes ORDER BY node_uid LIMIT ?`, r.lim.rows+1)
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
			if len(r.header.Nodes) == r.lim.rows {
				rows.Close()
				return r.bad(fmt.Errorf("btrobot_nodes: more than %d nodes", r.lim.rows))
			}
			r.header.Nodes = append(r.header.Nodes, ni)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return r.bad(err)
		}
		krows, err := r.conn.QueryContext(ctx, `SELECT scope, key FROM btrobot_keys ORDER BY scope, key LIMIT ?`, r.lim.rows+1)
		if err != nil {
			return r.bad(err)
		}
		for krows.Next() {
			var k [2]string
			if err := krows.Scan(&k[0], &k[1]); err != nil {
				krows.Close()
				return r.bad(err)
			}
			if len(r.keys) == r.lim.rows {
				krows.Close()
				return r.bad(fmt.Errorf("btrobot_keys: more than %d keys", r.lim.rows))
			}
			r.keys = append(r.keys, k)
		}
		krows.Close()
		if err := krows.Err(); err != nil {
			return r.bad(err)
		}
	} else {
		// BT.CPP's: the nodes come from the XML, the start from the first
		// transition.
		nodes, xerr := nodesFromXML(xml)
		if xerr != nil {
			return r.bad(fmt.Errorf("the tree's XML, at byte %d: %s", xerr.off, xerr.msg))
		}
		r.header.Nodes = nodes
		var start sql.NullInt64
		if err := r.conn.QueryRowContext(ctx, `SELECT min(timestamp) FROM Transitions`).Scan(&start); err != nil { // the key: fast
			return r.bad(err)
		}
		r.header.Start = usecTime(start.Int64)
	}
	var err error
	if r.lastStatus, err = r.conn.PrepareContext(ctx, `SELECT state FROM Transitions WHERE node_uid = ? AND `+r.at+` <= ? ORDER BY `+r.at+` DESC, timestamp DESC LIMIT 1`); err != nil {
		return r.bad(err)
	}
	if r.lastReason, err = r.conn.PrepareContext(ctx, `SELECT coalesce(extra_data, '') FROM Transitions WHERE node_uid = ? AND `+r.at+` <= ? AND state IN (2, 3) ORDER BY `+r.at+` DESC, timestamp DESC LIMIT 1`); err != nil {
		return r.bad(err)
	}
	if r.own {
		if r.lastValue, err = r.conn.PrepareContext(ctx, `SELECT type, value, seq, stamp, writer FROM btrobot_blackboard WHERE scope = ? AND key = ? AND timestamp <= ? ORDER BY timestamp DESC, rowid DESC LIMIT 1`); err != nil {
			return r.bad(err)
		}
	}
	return nil
}

func (r *sqliteRecording) Format() string { return "sqlite" }
func (r *sqliteRecording) Header() Header { return r.header }
func (r *sqliteRecording) Damage() error  { return r.damage }

func (r *sqliteRecording) Close() error {
	for _, st := range []*sql.Stmt{r.lastStatus, r.lastReason, r.lastValue} {
		if st != nil {
			st.Close()
		}
	}
	if r.conn != nil {
		r.conn.Close()
	}
	return r.db.Close()
}

func (r *sqliteRecording) Span() (time.Time, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := r.call()
	defer cancel()
	last := r.header.Start.UnixMicro()
	var t sql.NullInt64
	qs := []string{`SELECT max(` + r.at + `) FROM Transitions`}
	if r.own {
		qs = append(qs, `SELECT max(timestamp) FROM btrobot_blackboard`, `SELECT max(start) FROM btrobot_ticks`)
	}
	for _, q := range qs {
		if r.conn.QueryRowContext(ctx, q).Scan(&t) == nil && t.Valid {
			last = max(last, t.Int64)
		}
	}
	return r.header.Start, usecTime(last)
}

// nextEvent returns the time of the first event at or after t: a
// transition, a change or the start of a tick (each an index seek).
func (r *sqliteRecording) nextEvent(t time.Time) (time.Time, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := r.call()
	defer cancel()
	qs := []string{`SELECT min(` + r.at + `) FROM Transitions WHERE ` + r.at + ` >= ?`}
	if r.own {
		qs = append(qs, `SELECT min(timestamp) FROM btrobot_blackboard WHERE timestamp >= ?`, `SELECT min(start) FROM btrobot_ticks WHERE start >= ?`)
	}
	var next sql.NullInt64
	for _, q := range qs {
		var v sql.NullInt64
		if err := r.conn.QueryRowContext(ctx, q, t.UnixMicro()).Scan(&v); err != nil {
			return time.Time{}, false, r.bad(err)
		}
		if v.Valid && (!next.Valid || v.Int64 < next.Int64) {
			next = v
		}
	}
	return usecTime(next.Int64), next.Valid, nil
}

func (r *sqliteRecording) StateAt(at time.Time) (*State, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := r.call()
	defer cancel()
	return r.stateAt(ctx, at)
}

func (r *sqliteRecording) stateAt(ctx context.Context, at time.Time) (*State, error) {
	us := at.UnixMicro()
	s := newState(at, len(r.header.Nodes))
	for i := range r.header.Nodes {
		var st int
		switch err := r.lastStatus.QueryRowContext(ctx, i+1, us).Scan(&st); err {
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
		switch err := r.lastReason.QueryRowContext(ctx, i+1, us).Scan(&reason); err {
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
		switch err := r.lastValue.QueryRowContext(ctx, k[0], k[1], us).Scan(&v.Type, &value, &seq, &stamp, &v.Writer); err {
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
	switch err := r.conn.QueryRowContext(ctx, `SELECT seq FROM btrobot_ticks WHERE start <= ? ORDER BY start DESC, seq DESC LIMIT 1`, us).Scan(&tick); err {
	case nil, sql.ErrNoRows:
	default:
		return nil, r.bad(err)
	}
	s.Tick = uint64(tick)
	return s, nil
}

func (r *sqliteRecording) Transitions(from, until time.Time) ([]Transition, error) {
	return r.firstTransitions(from, until, -1)
}

// firstTransitions returns the first n transitions with from <= time <
// until (n < 0: all of them, at most limits.events).
func (r *sqliteRecording) firstTransitions(from, until time.Time, n int) ([]Transition, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := r.call()
	defer cancel()
	s, err := r.stateAt(ctx, from.Add(-time.Microsecond))
	if err != nil {
		return nil, err
	}
	limit := n
	if n < 0 {
		limit = r.lim.events + 1
	}
	rows, err := r.conn.QueryContext(ctx, `SELECT `+r.at+`, node_uid, state, coalesce(extra_data, '') FROM Transitions WHERE `+r.at+` >= ? AND `+r.at+` < ? ORDER BY timestamp LIMIT ?`, from.UnixMicro(), until.UnixMicro(), limit)
	if err != nil {
		return nil, r.bad(err)
	}
	defer rows.Close()
	var out []Transition
	for rows.Next() {
		if n < 0 && len(out) == r.lim.events {
			return nil, &TooManyEventsError{Path: r.path, From: from, Until: until, Max: r.lim.events}
		}
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
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := r.call()
	defer cancel()
	rows, err := r.conn.QueryContext(ctx, `SELECT timestamp, stamp, scope, key, type, value, seq, writer FROM btrobot_blackboard WHERE timestamp >= ? AND timestamp < ? ORDER BY timestamp, rowid LIMIT ?`, from.UnixMicro(), until.UnixMicro(), r.lim.events+1)
	if err != nil {
		return nil, r.bad(err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		if len(out) == r.lim.events {
			return nil, &TooManyEventsError{Path: r.path, From: from, Until: until, Max: r.lim.events}
		}
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
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := r.call()
	defer cancel()
	rows, err := r.conn.QueryContext(ctx, `SELECT seq, start, lateness, duration, early, status FROM btrobot_ticks WHERE start >= ? AND start < ? ORDER BY seq LIMIT ?`, from.UnixMicro(), until.UnixMicro(), r.lim.events+1)
	if err != nil {
		return nil, r.bad(err)
	}
	defer rows.Close()
	var out []Tick
	for rows.Next() {
		if len(out) == r.lim.events {
			return nil, &TooManyEventsError{Path: r.path, From: from, Until: until, Max: r.lim.events}
		}
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
