package runtime

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBlackboardOnChange(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type change struct {
		scope string
		key   string
		typ   string
		value any
		seq   uint64
	}
	cases := []struct {
		name  string
		write func(root, child *Blackboard) error
		want  []change
	}{
		{"Set, Assign and Entry.Store report the value, type and sequence number", func(root, _ *Blackboard) error {
			if err := root.Set("n", 1); err != nil {
				return err
			}
			if err := root.Assign("n", 2.0, false); err != nil {
				return err
			}
			return root.Entry("n").Store(3, at)
		}, []change{{"root", "n", "int", 1, 1}, {"root", "n", "int", 2, 2}, {"root", "n", "int", 3, 3}}},
		{"a failed write reports nothing", func(root, _ *Blackboard) error {
			root.Set("n", 1)
			assert.Error(t, root.Set("n", "x"), "want an error")
			return nil
		}, []change{{"root", "n", "int", 1, 1}}},
		{"Unset reports a removal with no value", func(root, _ *Blackboard) error {
			root.Set("s", "a")
			root.Unset("s")
			root.Unset("never")
			return nil
		}, []change{{"root", "s", "", "a", 1}, {"root", "s", "", nil, 0}}},
		{"a subtree's scope reports its own entries and its remapped ones in the root", func(_, child *Blackboard) error {
			child.Set("_own", true)
			return child.Set("shared", "x")
		}, []change{{"child", "_own", "bool", true, 1}, {"root", "shared", "", "x", 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := NewBlackboard(func() time.Time { return at })
			child := root.NewChild(nil, true)
			names := map[*Blackboard]string{root: "root", child: "child"}
			var got []change
			root.OnChange(func(c Change) {
				typ := ""
				if c.Type != nil {
					typ = TypeName(c.Type)
				}
				got = append(got, change{names[c.Scope], c.Key, typ, c.Value, c.Seq})
				assert.Equal(t, at, c.Stamp)
			})
			require.NoError(t, tc.write(root, child))
			assert.Equal(t, tc.want, got)
			root.OnChange(nil)
			got = nil
			require.NoError(t, root.Set("after", 1))
			assert.Nil(t, got, "no hook after removing it")
		})
	}
}

// Writers on other goroutines call the hook concurrently; for one entry
// the calls come in sequence order.
func TestBlackboardOnChangeConcurrent(t *testing.T) {
	bb := NewBlackboard(nil)
	var mu sync.Mutex
	last := map[string]uint64{}
	bb.OnChange(func(c Change) {
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, last[c.Key]+1, c.Seq, "%s: seq %d after %d", c.Key, c.Seq, last[c.Key])
		last[c.Key] = c.Seq
	})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				bb.Set([]string{"a", "b"}[w%2], i)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, map[string]uint64{"a": 1000, "b": 1000}, last)
}
