package groot2

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

const dockXML = `<root BTCPP_format="4" main_tree_to_execute="Dock">
  <BehaviorTree ID="Dock">
    <Sequence name="dock">
      <Sleep name="approach" msec="20"/>
      <Script name="docked" code="docked := true"/>
    </Sequence>
  </BehaviorTree>
</root>`

// dock builds a second tree, another mission's.
func dock(t *testing.T, clock runtime.Clock) (*runtime.Tree, *runtime.Document) {
	t.Helper()
	doc, err := trees.Parse("dock.xml", []byte(dockXML))
	require.NoError(t, err)
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: clock})
	require.NoError(t, err)
	return tree, doc
}

// TestSetTreeServesTheNextTree: a mission server's next goal builds
// another tree; once it is set, Groot2's requests (through libzmq) get
// the new tree's UUID — so Groot2 sees it changed and reloads, as with
// BT.CPP's publisher when a new tree is attached — its XML, statuses and
// blackboards, and the old tree's hooks are gone (a tick one held goes on).
func TestSetTreeServesTheNextTree(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, s *served, next *runtime.Tree, old uuid.UUID)
	}{
		{"the tree: the new UUID and XML", func(t *testing.T, s *served, next *runtime.Tree, old uuid.UUID) {
			r := s.client.request('T', 1)
			require.Len(t, r, 2)
			id := s.server.TreeID()
			assert.NotEqual(t, old, id, "a new tree UUID")
			assert.Equal(t, replyHeader('T', 1, id), r[0])
			assert.Contains(t, string(r[1]), `<BehaviorTree ID="Dock" _fullpath="">`)
			assert.NotContains(t, string(r[1]), `Patrol`)
		}},
		{"statuses: the new tree's nodes, as it ticks", func(t *testing.T, s *served, next *runtime.Tree, _ uuid.UUID) {
			_, err := next.TickExactlyOnce()
			require.NoError(t, err)
			r := s.client.request('S', 2)
			require.Len(t, r, 2)
			want := []byte{}
			for uid, st := range []byte{1, 1, 0} { // dock and approach RUNNING, docked IDLE
				want = binary.LittleEndian.AppendUint16(want, uint16(uid+1))
				want = append(want, st)
			}
			assert.Equal(t, want, r[1])
		}},
		{"blackboards: the new tree's", func(t *testing.T, s *served, next *runtime.Tree, _ uuid.UUID) {
			next.Blackboard().Set("docked", false)
			r := s.client.request('B', 3, "Dock;Patrol")
			require.Len(t, r, 2)
			assert.True(t, bytes.Contains(r[1], []byte("docked")))
			assert.False(t, bytes.Contains(r[1], []byte("visits")), "the old tree's blackboard is not served")
		}},
		{"the old tree's hooks are removed", func(t *testing.T, s *served, _ *runtime.Tree, _ uuid.UUID) {
			r := s.client.request('D', 4)
			require.Len(t, r, 2)
			assert.Equal(t, "[]", string(r[1]))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, 0)
			old := s.server.TreeID()
			// A breakpoint on the patrol, to be dropped with its tree.
			r := s.client.request('I', 9, `{"uid": 6, "mode": 0, "once": false, "desired_status": "SKIPPED", "position": 0, "enabled": true}`)
			require.Len(t, r, 1)
			next, doc := dock(t, s.clock)
			require.NoError(t, s.server.SetTree(next, doc, nil))
			detach := s.server.Attach()
			defer detach()
			tc.run(t, s, next, old)
		})
	}
}

// TestSetTreeRefusesATreeGroot2CannotNumber: the old tree stays served.
func TestSetTreeRefusesATreeGroot2CannotNumber(t *testing.T) {
	s := serve(t, 0)
	old := s.server.TreeID()
	spec := &runtime.TreeSpec{ID: "Big", Root: runtime.N("Sequence", nil)}
	for range 70000 {
		spec.Root.Children = append(spec.Root.Children, runtime.N("AlwaysSuccess", nil))
	}
	big, err := runtime.Build(runtime.NewRegistry(), &runtime.Document{Trees: []*runtime.TreeSpec{spec}}, runtime.BuildConf{Clock: s.clock})
	require.NoError(t, err)
	require.Error(t, s.server.SetTree(big, nil, nil))
	assert.Equal(t, old, s.server.TreeID())
	r := s.client.request('T', 1)
	require.Len(t, r, 2)
	assert.Contains(t, string(r[1]), `<BehaviorTree ID="Patrol"`)
}
