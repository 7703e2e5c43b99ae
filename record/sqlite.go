package record

// The SQLite format (.db3): BT.CPP 4.10's SqliteLogger tables, so tools
// written for it read btrobot's recordings, plus btrobot's own tables for
// what BT.CPP does not record. One recording is one session (session_id
// 1). Times are µs since the epoch on the tree's clock.
//
//	Definitions   (session_id, date, xml_tree)                     BT.CPP
//	Nodes         (session_id, fullpath, node_uid)                 BT.CPP
//	Transitions   (timestamp, session_id, node_uid, duration,      BT.CPP's, plus at;
//	               state, extra_data, at)                          extra_data holds the reason
//	btrobot_run   (session_id, run_id, version, seed, start, profile)
//	btrobot_nodes (node_uid, path, type, name)
//	btrobot_keys  (scope, key)                                     every key ever written
//	btrobot_blackboard (timestamp, stamp, scope, key, type, value, seq, writer)
//	                                                               value is JSON; NULL: removed
//	btrobot_ticks (seq, start, lateness, duration, early, status)  lateness and duration in µs
//	btrobot_reasons (view: the transitions that carry a reason)
//
// As in BT.CPP, Transitions.timestamp is the table's key, so two
// transitions in the same µs are one µs apart there; the column at, added
// after BT.CPP's, keeps the true time, and replay reads it (in the order of
// timestamp). The database runs in WAL
// mode and each flush is one transaction: a killed process loses at most
// the last flush.

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

const sqliteSchema = `
PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
PRAGMA temp_store=MEMORY;
PRAGMA cache_size=-16384;
CREATE TABLE IF NOT EXISTS Transitions (
  timestamp  INTEGER PRIMARY KEY NOT NULL,
  session_id INTEGER NOT NULL,
  node_uid   INTEGER NOT NULL,
  duration   INTEGER,
  state      INTEGER NOT NULL,
  extra_data VARCHAR,
  at         INTEGER NOT NULL );
CREATE TABLE IF NOT EXISTS Nodes (
  session_id INTEGER NOT NULL,
  fullpath   VARCHAR,
  node_uid   INTEGER NOT NULL );
CREATE TABLE IF NOT EXISTS Definitions (
  session_id INTEGER PRIMARY KEY AUTOINCREMENT,
  date       TEXT NOT NULL,
  xml_tree   TEXT NOT NULL);
CREATE INDEX btrobot_transitions_by_node ON Transitions (node_uid, at);
CREATE INDEX btrobot_transitions_by_time ON Transitions (at);
CREATE TABLE btrobot_run (
  session_id INTEGER NOT NULL,
  run_id     TEXT NOT NULL,
  version    TEXT NOT NULL,
  seed       INTEGER NOT NULL,
  start      INTEGER NOT NULL,
  profile    BLOB );
CREATE TABLE btrobot_nodes (
  node_uid INTEGER PRIMARY KEY,
  path     TEXT NOT NULL,
  type     TEXT NOT NULL,
  name     TEXT NOT NULL );
CREATE TABLE btrobot_keys (
  scope TEXT NOT NULL,
  key   TEXT NOT NULL,
  PRIMARY KEY (scope, key) );
CREATE TABLE btrobot_blackboard (
  timestamp INTEGER NOT NULL,
  stamp     INTEGER NOT NULL,
  scope     TEXT NOT NULL,
  key       TEXT NOT NULL,
  type      TEXT NOT NULL,
  value     TEXT,
  seq       INTEGER NOT NULL,
  writer    TEXT NOT NULL );
CREATE INDEX btrobot_blackboard_by_key ON btrobot_blackboard (scope, key, timestamp);
CREATE INDEX btrobot_blackboard_by_time ON btrobot_blackboard (timestamp);
CREATE TABLE btrobot_ticks (
  seq      INTEGER PRIMARY KEY,
  start    INTEGER NOT NULL,
  lateness INTEGER NOT NULL,
  duration INTEGER NOT NULL,
  early    INTEGER NOT NULL,
  status   INTEGER NOT NULL );
CREATE INDEX btrobot_ticks_by_start ON btrobot_ticks (start);
CREATE VIEW btrobot_reasons AS
  SELECT timestamp, node_uid, state, extra_data AS reason FROM Transitions WHERE extra_data <> '';
`

type sqliteSink struct {
	path    string
	db      *sql.DB
	last    int64            // the last Transitions.timestamp: each is unique
	started map[uint32]int64 // when each RUNNING node started, for duration
	keys    map[[2]string]bool
	args    []any // the rows of one table for one write, reused

	transitions, changes, ticks bulkInsert
}

// bulkInsert inserts the rows of a write into one table bulkRows at a
// time, with a statement prepared once: one statement per row costs the
// writer several times more (database/sql and the driver work per call).
type bulkInsert struct {
	head, row string // "INSERT INTO T VALUES ", "(?, ?)"
	cols      int
	full      *sql.Stmt // bulkRows rows, prepared with the sink (not in a
	// transaction: it holds the one connection)
}

// bulkRows is how many rows one INSERT holds (SQLite takes up to 32,766
// parameters).
const bulkRows = 128

func (b *bulkInsert) sql(rows int) string {
	var sb strings.Builder
	sb.WriteString(b.head)
	for i := range rows {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(b.row)
	}
	return sb.String()
}

// insert writes args (whole rows) within tx.
func (s *sqliteSink) insert(tx *sql.Tx, b *bulkInsert, args []any) error {
	per := bulkRows * b.cols
	if len(args) >= per {
		st := tx.Stmt(b.full)
		for len(args) >= per {
			if _, err := st.Exec(args[:per]...); err != nil {
				return err
			}
			args = args[per:]
		}
		st.Close()
	}
	if len(args) > 0 {
		if _, err := tx.Exec(b.sql(len(args)/b.cols), args...); err != nil {
			return err
		}
	}
	return nil
}

func newSQLiteSink(path string) (*sqliteSink, error) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("record: %w", err)
		}
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("record %s: creating the tables: %w", path, err)
	}
	s := &sqliteSink{path: path, db: db, started: map[uint32]int64{}, keys: map[[2]string]bool{},
		transitions: bulkInsert{head: "INSERT INTO Transitions VALUES ", row: "(?,1,?,?,?,?,?)", cols: 6},
		changes:     bulkInsert{head: "INSERT INTO btrobot_blackboard VALUES ", row: "(?,?,?,?,?,?,?,?)", cols: 8},
		ticks:       bulkInsert{head: "INSERT OR REPLACE INTO btrobot_ticks VALUES ", row: "(?,?,?,?,?,?)", cols: 6},
	}
	for _, b := range []*bulkInsert{&s.transitions, &s.changes, &s.ticks} {
		if b.full, err = db.Prepare(b.sql(bulkRows)); err != nil {
			s.close()
			return nil, fmt.Errorf("record %s: %w", path, err)
		}
	}
	return s, nil
}

func (s *sqliteSink) begin(h *Header) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO Definitions (session_id, date, xml_tree) VALUES (1, ?, ?)`, h.Start.Local().Format("2006-01-02 15:04:05"), h.TreeXML); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO btrobot_run VALUES (1, ?, ?, ?, ?, ?)`, h.RunID.String(), h.Version, int64(h.Seed), h.Start.UnixMicro(), h.Profile); err != nil {
		return err
	}
	for _, n := range h.Nodes {
		if _, err := tx.Exec(`INSERT INTO Nodes VALUES (1, ?, ?)`, n.Path, n.UID); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO btrobot_nodes VALUES (?, ?, ?, ?)`, n.UID, n.Path, n.Type, n.Name); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// write writes a batch in one transaction, each table's rows in bulk.
func (s *sqliteSink) write(b *batch) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if len(b.transitions) > 0 {
		args := s.args[:0]
		for i := range b.transitions {
			t := &b.transitions[i]
			at := t.at / 1000
			ts := max(at, s.last+1)
			s.last = ts
			var dur int64
			switch {
			case t.from == 0 && t.to == 1: // IDLE -> RUNNING
				s.started[t.uid] = ts
			case t.from == 1 && t.to != 1:
				if start, ok := s.started[t.uid]; ok {
					dur = ts - start
				}
			}
			reason := ""
			if t.reason >= 0 {
				reason = b.reasons[t.reason]
			}
			args = append(args, ts, int64(t.uid), dur, int64(t.to), reason, at)
		}
		s.args = args
		if err := s.insert(tx, &s.transitions, args); err != nil {
			return err
		}
	}
	if len(b.changes) > 0 {
		args := s.args[:0]
		for i := range b.changes {
			c := &b.changes[i]
			var value any
			if c.Value != nil {
				value = string(c.Value)
			}
			args = append(args, c.At.UnixMicro(), c.Stamp.UnixMicro(), c.Scope, c.Key, c.Type, value, int64(c.Seq), c.Writer)
			if k := [2]string{c.Scope, c.Key}; !s.keys[k] {
				s.keys[k] = true
				if _, err := tx.Exec(`INSERT OR IGNORE INTO btrobot_keys VALUES (?, ?)`, c.Scope, c.Key); err != nil {
					return err
				}
			}
		}
		s.args = args
		if err := s.insert(tx, &s.changes, args); err != nil {
			return err
		}
	}
	if len(b.ticks) > 0 {
		args := s.args[:0]
		for i := range b.ticks {
			t := &b.ticks[i]
			args = append(args, int64(t.seq), t.start/1000, t.lateness/1000, t.duration/1000, t.early, int64(t.status))
		}
		s.args = args
		if err := s.insert(tx, &s.ticks, args); err != nil {
			return err
		}
	}
	clear(s.args) // drop references to strings
	return tx.Commit()
}

func (s *sqliteSink) close() error {
	for _, b := range []*bulkInsert{&s.transitions, &s.changes, &s.ticks} {
		if b.full != nil {
			b.full.Close()
		}
	}
	_, err := s.db.Exec(`PRAGMA optimize; PRAGMA wal_checkpoint(TRUNCATE);`)
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	return err
}
