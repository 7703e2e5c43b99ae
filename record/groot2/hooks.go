package groot2

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/btrobot/btrobot/runtime"
)

// insertHooks adds or updates the hooks of a HOOK_INSERT: one hook or an
// array of them. A hook on a node the tree does not have is ignored, as
// BT.CPP does.
func (s *Server) insertHooks(arg []byte) error {
	var list []hookJSON
	if len(arg) > 0 && arg[0] == '[' {
		if err := json.Unmarshal(arg, &list); err != nil {
			return err
		}
	} else {
		var one hookJSON
		if err := json.Unmarshal(arg, &one); err != nil {
			return err
		}
		list = append(list, one)
	}
	for _, j := range list {
		if j.Position != posPre && j.Position != posPost {
			return fmt.Errorf("hook position %d: want 0 (PRE) or 1 (POST)", j.Position)
		}
		if j.Mode != modeBreakpoint && j.Mode != modeReplace {
			return fmt.Errorf("hook mode %d: want 0 (BREAKPOINT) or 1 (REPLACE)", j.Mode)
		}
		desired, err := statusText(j.DesiredStatus)
		if err != nil {
			return err
		}
		if j.UID == 0 || int(j.UID) > len(s.nodes) {
			continue
		}
		s.hmu.Lock()
		if h := s.hooks[j.Position][j.UID]; h != nil {
			wasBreakpoint := h.Mode == modeBreakpoint
			h.hookJSON, h.desired = j, desired
			if wasBreakpoint && h.Mode == modeReplace {
				h.ready = true
				s.hcond.Broadcast()
			}
		} else {
			s.hooks[j.Position][j.UID] = &hook{hookJSON: j, desired: desired}
			s.nHooks.Add(1)
		}
		s.hmu.Unlock()
	}
	return nil
}

// unlock releases a breakpoint with the status its node should return
// (SKIPPED: tick it as usual).
func (s *Server) unlock(pos int, uid uint16, desired runtime.Status, remove bool) bool {
	if pos != posPre && pos != posPost {
		return false
	}
	s.hmu.Lock()
	defer s.hmu.Unlock()
	h := s.hooks[pos][uid]
	if h == nil {
		return false
	}
	h.desired = desired
	h.Once = h.Once || remove
	if h.Mode == modeBreakpoint {
		h.ready = true
		s.hcond.Broadcast()
	}
	return true
}

func (s *Server) removeHook(pos int, uid uint16) bool {
	if pos != posPre && pos != posPost {
		return false
	}
	s.hmu.Lock()
	defer s.hmu.Unlock()
	h := s.hooks[pos][uid]
	if h == nil {
		return false
	}
	h.Enabled = false
	delete(s.hooks[pos], uid)
	s.nHooks.Add(-1)
	s.hcond.Broadcast()
	return true
}

func (s *Server) removeAllHooks() {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	for pos := range s.hooks {
		for uid, h := range s.hooks[pos] {
			h.Enabled = false
			delete(s.hooks[pos], uid)
			s.nHooks.Add(-1)
		}
	}
	s.hcond.Broadcast()
}

func (s *Server) enableAllHooks(enable bool) {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	for pos := range s.hooks {
		for _, h := range s.hooks[pos] {
			h.Enabled = enable
		}
	}
	s.hcond.Broadcast()
}

// hooksDump lists the hooks as JSON, PRE hooks first, each by UID.
func (s *Server) hooksDump() []byte {
	s.hmu.Lock()
	list := []hookJSON{}
	for pos := range s.hooks {
		uids := make([]int, 0, len(s.hooks[pos]))
		for uid := range s.hooks[pos] {
			uids = append(uids, int(uid))
		}
		sort.Ints(uids)
		for _, uid := range uids {
			h := s.hooks[pos][uint16(uid)]
			j := h.hookJSON
			j.DesiredStatus = h.desired.String()
			list = append(list, j)
		}
	}
	s.hmu.Unlock()
	out, _ := json.Marshal(list)
	return out
}
