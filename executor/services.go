package executor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
)

// holdPatience bounds how long ~pause waits for the tree to be held: the
// tick that runs finishes first.
const holdPatience = 3 * time.Second

func (s *Server) openServices() error {
	for _, sc := range []ros.ServiceServerConf{
		{Name: "~list", Srv: &ros.ListMissions{}, Handler: func(any) (any, error) { return s.List(), nil }},
		{Name: "~reload", Srv: &ros.ReloadMissions{}, Handler: func(any) (any, error) { return s.Reload(), nil }},
		{Name: "~pause", Srv: &std_srvs.Trigger{}, Handler: func(any) (any, error) { return trigger(s.Pause()), nil }},
		{Name: "~resume", Srv: &std_srvs.Trigger{}, Handler: func(any) (any, error) { return trigger(s.Resume()), nil }},
	} {
		sc.Conn = s.conn
		sv, err := ros.NewServiceServer(sc)
		if err != nil {
			for _, o := range s.svcs {
				o.Close()
			}
			return err
		}
		s.svcs = append(s.svcs, sv)
	}
	return nil
}

func trigger(msg string, err error) *std_srvs.TriggerRes {
	if err != nil {
		return &std_srvs.TriggerRes{Success: false, Message: err.Error()}
	}
	return &std_srvs.TriggerRes{Success: true, Message: msg}
}

// List is every mission of the catalog, as ~list answers.
func (s *Server) List() *ros.ListMissionsRes {
	s.mu.Lock()
	cat := s.catalog
	s.mu.Unlock()
	return &ros.ListMissionsRes{Missions: cat.Info()}
}

// Reload reads the missions directory again. It is validated first: on
// any problem nothing changes and every problem is returned. The running
// mission keeps its tree; the next goal gets the new one.
func (s *Server) Reload() *ros.ReloadMissionsRes {
	s.mu.Lock()
	old := s.catalog
	s.mu.Unlock()
	cat, err := LoadCatalog(old.Conf)
	if err == nil {
		err = cat.prepare(s.conn)
	}
	if err != nil {
		res := &ros.ReloadMissionsRes{Missions: old.IDs()}
		var le *mission.LoadError
		if errors.As(err, &le) {
			for _, p := range le.Problems {
				res.Errors = append(res.Errors, p.Error())
			}
		} else {
			res.Errors = []string{err.Error()}
		}
		s.logf("reload refused, the missions stay as they were: %d problems:\n%s", len(res.Errors), strings.Join(res.Errors, "\n"))
		s.mu.Lock()
		s.status.LastReloadError = fmt.Sprintf("%d problems: %s", len(res.Errors), strings.Join(res.Errors, "; "))
		s.mu.Unlock()
		s.stateChanged()
		return res
	}
	s.mu.Lock()
	s.catalog = cat
	s.status.Reloads++
	s.status.LastReloadError = ""
	s.mu.Unlock()
	s.stateChanged()
	s.logf("reloaded %d missions from %s", len(cat.IDs()), cat.Conf.Dir)
	return &ros.ReloadMissionsRes{Success: true, Missions: cat.IDs()}
}

// Pause holds the running mission where it is (and the next one before
// its first tick) and the robot still; it returns once the tree is held.
func (s *Server) Pause() (string, error) {
	s.mu.Lock()
	s.paused = true
	s.touchState()
	a := s.cur
	s.mu.Unlock()
	s.stateChanged()
	if a == nil {
		s.pauses.Add(1)
		rep := s.stopRobot()
		return "paused: no mission runs; the next goal starts paused; " + rep.String(), nil
	}
	a.hold.pause()
	s.pauses.Add(1)
	defer s.stateChanged()
	deadline := time.Now().Add(holdPatience)
	for !a.hold.Paused() {
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s was not held within %v: its tick has not ended", a.mission.ID, holdPatience)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return "paused " + a.mission.ID + ": the tree keeps its state, its action goals are suspended and the robot is held still", nil
}

// Pauses counts the pauses the server has taken in since it started: the
// running mission's tree is to be held before its next tick, or, with
// none running, the next goal starts paused. A driver that holds a
// simulated world while it asks for a pause from inside a tick (hil's
// goals:) waits for it before it lets the tick end: the next tick is then
// held on every run.
func (s *Server) Pauses() uint64 { return s.pauses.Load() }

// Resume lets the mission go on from where it was paused; its suspended
// action goals are sent again.
func (s *Server) Resume() (string, error) {
	s.mu.Lock()
	was := s.paused
	s.paused = false
	s.touchState()
	a := s.cur
	s.mu.Unlock()
	s.stateChanged()
	if a == nil {
		if !was {
			return "not paused", nil
		}
		return "resumed: no mission runs", nil
	}
	a.hold.carryOn()
	return "resumed " + a.mission.ID, nil
}

// Catalog returns the missions the server serves now (a reload replaces
// them).
func (s *Server) Catalog() *Catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.catalog
}

// Describe says in one line what the server serves and where: its
// missions, its preemption policy, the master, its action and services.
func (s *Server) Describe() string {
	cat := s.Catalog()
	watching := ""
	if s.conf.Watch {
		watching = " (watched)"
	}
	c := s.conn
	return fmt.Sprintf("%d missions of %s%s (%s), preempt %s, on %s: action %s, services %s",
		len(cat.IDs()), cat.Conf.Dir, watching, strings.Join(cat.IDs(), ", "), s.conf.Preempt, c.MasterURI(), c.Resolve("~execute"),
		strings.Join([]string{c.Resolve("~list"), c.Resolve("~reload"), c.Resolve("~pause"), c.Resolve("~resume")}, ", "))
}
