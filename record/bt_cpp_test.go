package record

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

type step struct {
	UID uint32
	To  runtime.Status
}

func steps(t *testing.T, r Recording) []step {
	t.Helper()
	first, last := r.Span()
	trs, err := r.Transitions(first, last.Add(time.Microsecond))
	require.NoError(t, err)
	var out []step
	for _, tr := range trs {
		out = append(out, step{tr.UID, tr.To})
	}
	return out
}

// BT.CPP 4.10's own recordings of testdata/bt.cpp/counter.xml (see the
// README there) open, and btrobot, running the same tree for the same five
// ticks, records the same (UID, status) sequence with the same tree
// structure in its .btlog and .db3.
func TestSameTransitionsAsBTCPP(t *testing.T) {
	src, err := os.ReadFile("testdata/bt.cpp/counter.xml")
	require.NoError(t, err)
	doc, err := trees.Parse("counter.xml", src)
	require.NoError(t, err)

	ref, err := Open("testdata/bt.cpp/counter.btlog")
	require.NoError(t, err)
	defer ref.Close()
	want := steps(t, ref)
	require.Len(t, want, 83)

	refDB, err := Open("testdata/bt.cpp/counter.db3")
	require.NoError(t, err)
	defer refDB.Close()
	assert.Equal(t, "sqlite", refDB.Format())
	assert.Equal(t, want, steps(t, refDB), "BT.CPP's two loggers agree")
	for i, n := range refDB.Header().Nodes {
		assert.Equal(t, ref.Header().Nodes[i].Type, n.Type)
	}

	for _, file := range []string{"counter.btlog", "counter.db3"} {
		t.Run(file, func(t *testing.T) {
			clock := runtime.NewManualClock(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
			tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: clock})
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), file)
			rec, err := New(Conf{Path: path, Tree: tree, Document: doc})
			require.NoError(t, err)
			detach := rec.Attach()
			for i := range 5 {
				st, err := tree.TickOnce()
				require.NoError(t, err)
				if i < 4 {
					require.Equal(t, runtime.Running, st)
				} else {
					require.Equal(t, runtime.Failure, st)
				}
				clock.Advance(2 * time.Millisecond)
			}
			detach()
			require.NoError(t, rec.Close())
			r, err := Open(path)
			require.NoError(t, err)
			defer r.Close()
			assert.Equal(t, want, steps(t, r))
			for i, n := range r.Header().Nodes {
				w := ref.Header().Nodes[i]
				assert.Equal(t, w.Type, n.Type, "node %d", i+1)
				assert.Equal(t, w.Name, n.Name, "node %d", i+1)
			}
		})
	}
}
