package record

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// Wired as the lead will wire it: a recorder attached to a tree that a
// runtime.Loop ticks on the wall clock, the loop's tick reports given to
// it, an input written from another goroutine meanwhile (a ROS callback).
// Every tick and every write of the input is in the recording.
func TestRecordingALoop(t *testing.T) {
	for _, file := range []string{"loop.db3", "loop.btlog"} {
		t.Run(file, func(t *testing.T) {
			doc, err := trees.Parse("patrol.xml", []byte(patrolXML))
			require.NoError(t, err)
			tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{})
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), file)
			rec, err := New(Conf{Path: path, Tree: tree, Document: doc, FlushEvery: 50 * time.Millisecond})
			require.NoError(t, err)
			detach := rec.Attach()
			loop, err := runtime.NewLoop(runtime.LoopConf{Tree: tree, Rate: 200, Observe: rec.OnTick})
			require.NoError(t, err)

			ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
			defer cancel()
			var wg sync.WaitGroup
			wg.Add(1)
			writes := 0
			go func() { // a ROS callback
				defer wg.Done()
				for ctx.Err() == nil {
					writes++
					tree.Blackboard().Set("odom", float64(writes))
					time.Sleep(3 * time.Millisecond)
				}
			}()
			_, err = loop.Run(ctx)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			wg.Wait()
			detach()
			require.NoError(t, rec.Close())

			r, err := Open(path)
			require.NoError(t, err)
			defer r.Close()
			first, last := r.Span()
			trs, err := r.Transitions(first, last.Add(time.Microsecond))
			require.NoError(t, err)
			require.NotEmpty(t, trs)
			end, err := r.StateAt(last)
			require.NoError(t, err)
			for i, st := range end.Statuses {
				assert.Equal(t, runtime.Idle, st, "node %d: the loop halted the tree at its end", i+1)
			}
			if r.Format() != "sqlite" {
				return
			}
			ticks, err := r.Ticks(first, last.Add(time.Microsecond))
			require.NoError(t, err)
			assert.Equal(t, int(loop.Stats().Ticks), len(ticks))
			changes, err := r.Changes(first, last.Add(time.Microsecond))
			require.NoError(t, err)
			odom := 0
			for _, c := range changes {
				if c.Key == "odom" {
					odom++
				}
			}
			assert.Equal(t, writes, odom)
		})
	}
}
