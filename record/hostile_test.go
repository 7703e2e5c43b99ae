package record

import (
	"context"

	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// craft copies the recording good to a new file and runs stmts on it
// (Debian's sqlite3, writable schema allowed), returning its path.
func craft(t *testing.T, good []byte, stmts ...string) string {
	t.Helper()
	requireSQLite3(t)
	path := filepath.Join(t.TempDir(), "hostile.db3")
	require.NoError(t, os.WriteFile(path, good, 0o644))
	// Debian's sqlite3 writes the hostile part: native, it builds in
	// milliseconds what the pure-Go driver takes seconds for under -race.
	script := "PRAGMA journal_mode=DELETE;\n"
	for _, s := range stmts {
		script += s + ";\n"
	}
	cmd := exec.Command("sqlite3", "-bail", path)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", script, out)
	return path
}

// A .db3 is a program as much as data. Each of these files is refused
// (or read) within a bound, with an error that names the file, never a
// hang or a process that grows: the schema is checked before anything is
// read, values and rows are bounded, queries have a deadline.
func TestHostileSQLite(t *testing.T) {
	good := recordPatrol(t, filepath.Join(t.TempDir(), "good.db3"), 20)
	cases := []struct {
		name string
		path func(t *testing.T) string
		lim  limits // zero: defaultLimits
		err  string // "" when the file opens and replays
	}{
		{"Transitions is a recursive view", func(t *testing.T) string {
			return craft(t, good, `DROP TABLE Transitions`,
				`CREATE VIEW Transitions AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
				 SELECT x AS timestamp, 1 AS session_id, 1 AS node_uid, 0 AS duration, 1 AS state, '' AS extra_data, x AS at FROM c`)
		}, limits{}, "not a btrobot recording: Transitions is a view, not a table"},
		{"Definitions is a view of a gigabyte blob", func(t *testing.T) string {
			return craft(t, good, `DROP TABLE Definitions`,
				`CREATE VIEW Definitions AS SELECT 1 AS session_id, '' AS date, zeroblob(1000000000) AS xml_tree`)
		}, limits{}, "not a btrobot recording: Definitions is a view, not a table"},
		{"btrobot_blackboard is a view of huge values", func(t *testing.T) string {
			return craft(t, good, `DROP TABLE btrobot_blackboard`,
				`CREATE VIEW btrobot_blackboard AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
				 SELECT x AS timestamp, x AS stamp, 'Patrol' AS scope, 'visits' AS key, 'int' AS type, zeroblob(100000000) AS value, x AS seq, '' AS writer FROM c`)
		}, limits{}, "not a btrobot recording: btrobot_blackboard is a view, not a table"},
		{"Transitions is a virtual table", func(t *testing.T) string {
			return craft(t, good, `DROP TABLE Transitions`,
				`CREATE VIRTUAL TABLE Transitions USING fts5(timestamp, session_id, node_uid, duration, state, extra_data, at)`)
		}, limits{}, "not a btrobot recording: Transitions is a virtual table, not a table"},
		{"a table without a column replay reads", func(t *testing.T) string {
			return craft(t, good, `DROP INDEX btrobot_transitions_by_node`, `DROP INDEX btrobot_transitions_by_time`, `ALTER TABLE Transitions DROP COLUMN at`)
		}, limits{}, "not a btrobot recording: table Transitions has no column at"},
		{"a column of the wrong type", func(t *testing.T) string {
			return craft(t, good, `DROP TABLE btrobot_nodes`, `CREATE TABLE btrobot_nodes (node_uid BLOB, path TEXT, type TEXT, name TEXT)`)
		}, limits{}, "not a btrobot recording: column btrobot_nodes.node_uid holds BLOB, not INTEGER"},
		{"a generated column", func(t *testing.T) string {
			return craft(t, good, `DROP TABLE btrobot_ticks`,
				`CREATE TABLE btrobot_ticks (seq INTEGER PRIMARY KEY, start INTEGER, lateness INTEGER, duration INTEGER, early INTEGER,
				 status INTEGER GENERATED ALWAYS AS (length(zeroblob(100000000))) VIRTUAL)`)
		}, limits{}, "not a btrobot recording: column btrobot_ticks.status is generated, not stored"},
		{"a computed default that old rows read", func(t *testing.T) string {
			return craft(t, good, `PRAGMA writable_schema = ON`,
				`UPDATE sqlite_master SET sql = replace(sql, 'writer    TEXT NOT NULL', 'writer TEXT NOT NULL, extra BLOB DEFAULT (zeroblob(1))')
				 WHERE name = 'btrobot_blackboard'`,
				`UPDATE sqlite_master SET sql = replace(sql, 'extra_data VARCHAR', 'extra_data VARCHAR DEFAULT (zeroblob(100000000))')
				 WHERE name = 'Transitions'`)
		}, limits{}, "not a btrobot recording: column Transitions.extra_data has a computed default (zeroblob(100000000))"},
		{"a value larger than values may be", func(t *testing.T) string {
			return craft(t, good, `UPDATE Definitions SET xml_tree = xml_tree || printf('%.*c', 5000, ' ')`)
		}, limits{value: 4096}, "string or blob too big"},
		{"more nodes than rows may be", func(t *testing.T) string { return craft(t, good) }, limits{rows: 5}, "btrobot_nodes: more than 5 nodes"},
		{"a query slower than its deadline", func(t *testing.T) string {
			return craft(t, good, `CREATE TABLE big AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000) SELECT x, randomblob(50) AS b FROM c`,
				`DROP TABLE btrobot_keys`,
				`CREATE TABLE btrobot_keys (scope TEXT, key TEXT)`,
				`INSERT INTO btrobot_keys SELECT 'Patrol', hex(b) FROM big`)
		}, limits{timeout: time.Millisecond}, "its queries took more than 1ms"},
		{"triggers, which a reader never fires", func(t *testing.T) string {
			return craft(t, good, `CREATE TRIGGER spin AFTER INSERT ON Transitions BEGIN SELECT zeroblob(1000000000); END`)
		}, limits{}, ""},
		{"a table of another name is a view", func(t *testing.T) string {
			return craft(t, good, `CREATE VIEW other AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c`)
		}, limits{}, ""},
		{"a database of other tables", func(t *testing.T) string {
			return craft(t, good, `DROP TABLE Transitions`, `DROP TABLE Definitions`)
		}, limits{}, "not a btrobot recording: it has neither BT.CPP's tables"},
		{"an empty Definitions", func(t *testing.T) string {
			return craft(t, good, `DELETE FROM Definitions`)
		}, limits{}, "not a btrobot recording: no tree definition"},
		{"cut at a page boundary", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "cut.db3")
			require.NoError(t, os.WriteFile(path, good[:len(good)/4096/2*4096], 0o644))
			return path
		}, limits{}, "database disk image is malformed"},
		{"a header with a huge page count", func(t *testing.T) string {
			b := append([]byte(nil), good...)
			binary.BigEndian.PutUint32(b[28:], 0x7fffffff)
			copy(b[92:96], b[24:28]) // the count is valid: SQLite believes it
			path := filepath.Join(t.TempDir(), "pages.db3")
			require.NoError(t, os.WriteFile(path, b, 0o644))
			return path
		}, limits{}, "database disk image is malformed"},
		{"not SQLite but named .db3", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "text.db3")
			require.NoError(t, os.WriteFile(path, []byte("SQLite format 2 and more text than a header"), 0o644))
			return path
		}, limits{}, "not a recording"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t)
			lim := defaultLimits
			if tc.lim.value != 0 {
				lim.value = tc.lim.value
			}
			if tc.lim.rows != 0 {
				lim.rows = tc.lim.rows
			}
			if tc.lim.timeout != 0 {
				lim.timeout = tc.lim.timeout
			}
			done := make(chan error, 1)
			go func() {
				r, err := openWith(context.Background(), path, lim)
				if err == nil {
					// What opens replays anywhere.
					first, last := r.Span()
					_, err = r.StateAt(first.Add(last.Sub(first) / 2))
					if err == nil {
						_, err = r.Transitions(first, last.Add(time.Microsecond))
					}
					r.Close()
				}
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				require.FailNow(t, "reading the file did not end within 60 s")
			}
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), path+": ", "the error names the file")
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// One call returns a bounded number of events: more gets an error that
// says to read a shorter span, and FirstTransitions reads the start of a
// long span (the studio's timeline) without the rest.
func TestEventsPerCallAreBounded(t *testing.T) {
	for _, file := range []string{"long.btlog", "long.db3"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), file)
			recordPatrol(t, path, 200)
			lim := defaultLimits
			lim.events = 50
			r, err := openWith(context.Background(), path, lim)
			require.NoError(t, err)
			defer r.Close()
			first, last := r.Span()
			end := last.Add(time.Microsecond)
			_, err = r.Transitions(first, end)
			var many *TooManyEventsError
			require.ErrorAs(t, err, &many)
			assert.Contains(t, err.Error(), path+": more than 50 events")
			head, err := FirstTransitions(r, first, end, 120)
			require.NoError(t, err)
			require.Len(t, head, 120)
			whole, err := FirstTransitions(Recording(struct{ Recording }{r}), first, end, 120) // through Transitions: refused
			require.ErrorAs(t, err, &many)
			assert.Empty(t, whole)
			// The first transitions are those a short window reads.
			short, err := r.Transitions(first, head[49].At)
			require.NoError(t, err)
			assert.Equal(t, head[:len(short)], short)
		})
	}
}

// A recording whose events lie years apart (a clock set wrong, a crafted
// file) plays as fast as asked: the stretch without events is skipped at
// once, not walked a second at a time.
func TestPlaySkipsYearsWithoutEvents(t *testing.T) {
	const years = int64(1) << 47 // µs: 4.5 years
	cases := []struct {
		name string
		path func(t *testing.T) string
	}{
		{"btlog", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "years.btlog")
			data := recordPatrol(t, path, 5)
			body := 23 + int(binary.LittleEndian.Uint32(data[19:])) + 8
			last := data[len(data)-btlogRecord:]
			putUint48(last, uint64(years))
			require.NoError(t, os.WriteFile(path, data, 0o644))
			require.Greater(t, len(data), body+btlogRecord)
			return path
		}},
		{"db3", func(t *testing.T) string {
			good := recordPatrol(t, filepath.Join(t.TempDir(), "good.db3"), 5)
			return craft(t, good, `UPDATE Transitions SET at = at + `+itoa(int(years))+` WHERE timestamp = (SELECT max(timestamp) FROM Transitions)`)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(tc.path(t))
			require.NoError(t, err)
			defer r.Close()
			first, last := r.Span()
			require.Greater(t, last.Sub(first), time.Duration(years/2)*time.Microsecond)
			tree, _, _ := patrol(t)
			var got []runtime.Transition
			p, err := NewPlayer(r, PlayConf{Tree: tree, Speed: -1, Observer: runtime.ObserverFunc(func(tr runtime.Transition) { got = append(got, tr) })})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			require.NoError(t, p.Play(ctx), "the play ends within 30 s")
			require.NotEmpty(t, got)
			assert.Equal(t, last, got[len(got)-1].Time, "the last event, years later, is played")
		})
	}
}
