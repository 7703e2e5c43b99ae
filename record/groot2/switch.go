package groot2

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/record"
	"github.com/btrobot/btrobot/runtime"
)

// shown is the tree a Server serves, as Groot2 sees it.
type shown struct {
	tree     *runtime.Tree
	treeID   [16]byte
	xml      string
	nodes    []*runtime.Base // by UID-1
	scopes   map[string]*runtime.Blackboard
	order    []uint16 // the status buffer's node order, BT.CPP's
	statuses []byte   // by UID-1, BT.CPP's encoding (IDLE after X: 10+X)
}

// show prepares tree for Groot2: its XML with UIDs, its nodes, its
// blackboards by scope name and its status buffer's order.
func show(tree *runtime.Tree, doc *runtime.Document, palette *runtime.Registry, id uuid.UUID) (*shown, error) {
	if tree == nil {
		return nil, fmt.Errorf("groot2: no tree")
	}
	xml, err := record.TreeXML(tree, doc, palette)
	if err != nil {
		return nil, fmt.Errorf("groot2: %w", err)
	}
	sh := &shown{tree: tree, treeID: id, xml: xml, scopes: map[string]*runtime.Blackboard{}}
	for _, n := range tree.Nodes() {
		sh.nodes = append(sh.nodes, runtime.NodeOf(n))
	}
	sh.statuses = make([]byte, len(sh.nodes))
	for bb, name := range record.ScopeNames(tree) {
		sh.scopes[name] = bb
	}
	sh.order = statusOrder(tree)
	return sh, nil
}

// SetTree serves another tree from now on, as BT.CPP's publisher does
// when a new tree is attached (a mission server's next goal): every reply
// carries the new tree's UUID, so Groot2 sees it changed and asks for the
// tree again, and gets the new one's XML, statuses and blackboards. The
// hooks set on the old tree are removed (a tick one of them held goes
// on), and a recording of transitions starts afresh. Detach the old tree
// before, and Attach the new one after, between ticks. A tree Groot2
// cannot number (more than 65,535 nodes) is refused and the old one stays.
func (s *Server) SetTree(tree *runtime.Tree, doc *runtime.Document, palette *runtime.Registry) error {
	sh, err := show(tree, doc, palette, uuid.New())
	if err != nil {
		return err
	}
	s.amu.Lock()
	s.smu.Lock()
	s.shown = sh
	s.recorded, s.recordedAt = s.recorded[:0], 0
	s.recordStart = tree.Clock().Now()
	s.smu.Unlock()
	s.amu.Unlock()
	s.bp.RemoveAll()
	return nil
}

// TreeID returns the UUID of the tree served now.
func (s *Server) TreeID() uuid.UUID {
	s.smu.Lock()
	defer s.smu.Unlock()
	return uuid.UUID(s.treeID)
}
