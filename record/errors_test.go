package record

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// recordPatrol records ticks of the patrol tree to path and returns the
// file's bytes.
func recordPatrol(t testing.TB, path string, ticks int) []byte {
	t.Helper()
	tree, doc, clock := patrol(t)
	rec, err := New(Conf{Path: path, Tree: tree, Document: doc})
	require.NoError(t, err)
	detach := rec.Attach()
	for i := range ticks {
		start := clock.Now()
		st, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		rec.OnTick(runtime.TickReport{Seq: uint64(i + 1), Start: start, Status: st})
		clock.Advance(10 * time.Millisecond)
	}
	detach()
	require.NoError(t, rec.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// A .btlog that is not one, or is corrupt, gets an error naming the byte;
// one cut short inside its records replays up to the cut and says so.
func TestBTLogErrors(t *testing.T) {
	good := recordPatrol(t, filepath.Join(t.TempDir(), "good.btlog"), 20)
	xmlLen := int(binary.LittleEndian.Uint32(good[19:]))
	records := 23 + xmlLen + 8
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name   string
		data   []byte
		at     int    // the offset the error names
		err    string // the error of Open ("" when it opens)
		damage string // Damage's error
	}{
		{"an empty file", nil, 0, "the file ends inside its magic bytes", ""},
		{"cut inside the magic", good[:6], 6, "the file ends inside its magic bytes", ""},
		{"not a recording", []byte("<root BTCPP_format=\"4\"/>"), 0, "not a recording: a .btlog starts with \"BTCPP4-FileLogger2\"", ""},
		{"an unknown protocol", edit(func(b []byte) []byte { b[18] = 9; return b }), 18, "protocol 9; only FileLogger2's protocol 1 is known", ""},
		{"an XML longer than the file", edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[19:], 1<<30); return b }), 19, "the tree's XML is said to be 1073741824 bytes long", ""},
		{"a negative XML length", edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[19:], 1<<31); return b }), 19, "the tree's XML is said to be -2147483648 bytes long", ""},
		{"cut inside the first timestamp", good[:records-3], records - 3, "the file ends inside the first timestamp (at byte " + itoa(records-8) + ", 8 bytes)", ""},
		{"XML that is not well-formed", edit(func(b []byte) []byte { copy(b[23:], "<a></b>"); return b }), 23 + 7, "the tree's XML: XML syntax error on line 1: element <a> closed by </b>", ""},
		{"a record naming no node", edit(func(b []byte) []byte { b[records+6] = 99; return b }), records + 6, "transition 1 names node 99; the tree has nodes 1 to 12", ""},
		{"a record with no status", edit(func(b []byte) []byte { b[records+8] = 7; return b }), records + 8, "transition 1 gives node 1 status 7", ""},
		{"cut inside a record", good[:len(good)-4], len(good) - 4 - 5, "", "the file is cut short: its last transition has 5 of its 9 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.btlog")
			require.NoError(t, os.WriteFile(path, tc.data, 0o644))
			r, err := Open(path)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), path+": at byte "+itoa(tc.at)+": "+tc.err)
				var fe *FormatError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, int64(tc.at), fe.Offset)
				return
			}
			require.NoError(t, err)
			defer r.Close()
			require.Error(t, r.Damage())
			assert.Contains(t, r.Damage().Error(), path+": at byte "+itoa(tc.at)+": "+tc.damage)
			_, last := r.Span()
			s, err := r.StateAt(last)
			require.NoError(t, err)
			assert.Len(t, s.Statuses, 12)
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A SQLite recording cut short, or not a recording, gets a clear error.
func TestSQLiteErrors(t *testing.T) {
	good := recordPatrol(t, filepath.Join(t.TempDir(), "good.db3"), 20)
	cases := []struct {
		name string
		data []byte
		err  string
	}{
		{"cut inside a page", good[:4096+100], "at byte 4096: the database is cut short: its last page has 100 of its 4096 bytes"},
		{"cut inside its header", good[:50], "at byte 0: the SQLite header (100 bytes) is cut short"},
		{"a page size that is none", func() []byte { b := append([]byte(nil), good[:4096]...); b[16], b[17] = 0, 3; return b }(), "at byte 16: page size 3 is not a power of two"},
		{"a database without BT.CPP's tables", func() []byte { return emptySQLite(t) }(), "not a btrobot recording: it has no table Definitions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.db3")
			require.NoError(t, os.WriteFile(path, tc.data, 0o644))
			_, err := Open(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

func emptySQLite(t *testing.T) []byte {
	path := filepath.Join(t.TempDir(), "empty.db3")
	rec, err := newSQLiteSink(path)
	require.NoError(t, err)
	_, err = rec.db.Exec(`DROP TABLE Definitions`)
	require.NoError(t, err)
	require.NoError(t, rec.close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// Debian's sqlite3 reads a recording: BT.CPP's tables and btrobot's.
func TestSQLiteReadBySqlite3(t *testing.T) {
	requireSQLite3(t)
	path := filepath.Join(t.TempDir(), "run.db3")
	recordPatrol(t, path, 50)
	r, err := Open(path)
	require.NoError(t, err)
	defer r.Close()
	first, last := r.Span()
	trs, err := r.Transitions(first, last.Add(time.Microsecond))
	require.NoError(t, err)
	changes, err := r.Changes(first, last.Add(time.Microsecond))
	require.NoError(t, err)
	end, err := r.StateAt(last)
	require.NoError(t, err)

	cases := []struct {
		name  string
		query string
		want  string
	}{
		{"BT.CPP's transitions", "SELECT count(*) FROM Transitions WHERE session_id = 1;", itoa(len(trs))},
		{"BT.CPP's nodes", "SELECT fullpath FROM Nodes WHERE node_uid = 4;", r.Header().Nodes[3].Path},
		{"BT.CPP's definition", "SELECT substr(xml_tree, 1, 38) FROM Definitions;", `<?xml version="1.0" encoding="UTF-8"?>`},
		{"the blackboard", "SELECT count(*) FROM btrobot_blackboard;", itoa(len(changes))},
		{"the last visits", "SELECT value FROM btrobot_blackboard WHERE key = 'visits' ORDER BY rowid DESC LIMIT 1;", string(end.Blackboard["Patrol"]["visits"].Value)},
		{"the ticks", "SELECT count(*), max(seq) FROM btrobot_ticks;", "50|50"},
		{"the run", "SELECT length(run_id) FROM btrobot_run;", "36"},
		{"the integrity", "PRAGMA integrity_check;", "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command("sqlite3", "-readonly", path, tc.query).CombinedOutput()
			require.NoError(t, err, string(out))
			assert.Equal(t, tc.want, strings.TrimSpace(string(out)))
		})
	}
}
