package groot2

import (
	"encoding/json"
	"fmt"

	"github.com/btrobot/btrobot/runtime"
)

// Groot2's hooks live in a runtime.Breakpoints, which the studio's
// breakpoints use too: Groot2's positions are its Before and After, its
// modes its Breakpoint and Replace.

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
		s.bp.Set(runtime.Hook{UID: uint32(j.UID), At: runtime.HookAt(j.Position), Mode: runtime.HookMode(j.Mode),
			Status: desired, Once: j.Once, Enabled: j.Enabled})
	}
	return nil
}

// unlock releases a breakpoint with the status its node should return
// (SKIPPED: tick it as usual).
func (s *Server) unlock(pos int, uid uint16, desired runtime.Status, remove bool) bool {
	if pos != posPre && pos != posPost {
		return false
	}
	return s.bp.Unlock(uint32(uid), runtime.HookAt(pos), desired, remove)
}

func (s *Server) removeHook(pos int, uid uint16) bool {
	if pos != posPre && pos != posPost {
		return false
	}
	return s.bp.Remove(uint32(uid), runtime.HookAt(pos))
}

// hooksDump lists the hooks as JSON, PRE hooks first, each by UID.
func (s *Server) hooksDump() []byte {
	list := []hookJSON{}
	for _, h := range s.bp.List() {
		list = append(list, hookJSON{DesiredStatus: h.Status.String(), Enabled: h.Enabled, Mode: int(h.Mode),
			Once: h.Once, Position: int(h.At), UID: uint16(h.UID)})
	}
	out, _ := json.Marshal(list)
	return out
}
