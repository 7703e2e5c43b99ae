package simnode

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

const officeWorld = "../../worlds/office"

// connect joins the graph at uri as a node called name and leaves when the
// test ends.
func connect(t testing.TB, uri, name string) *ros.Conn {
	t.Helper()
	c, err := ros.Connect(ros.Conf{MasterURI: uri, Host: "127.0.0.1", Name: name})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// simSetup says what startSim builds.
type simSetup struct {
	world  string // officeWorld when empty
	seed   uint64
	robots []sim.RobotConf // robot1 at its spawn when empty; a zero Spawn takes the spawn named like the robot
	conf   Conf
}

// startSim runs a simulator node (named sim) against the master at uri,
// closed when the test ends. Its events are kept in the returned log.
func startSim(t testing.TB, uri string, s simSetup) (*Node, *eventLog) {
	t.Helper()
	if s.world == "" {
		s.world = officeWorld
	}
	w, err := sim.LoadWorld(s.world, sim.WorldConf{Seed: s.seed})
	require.NoError(t, err)
	if len(s.robots) == 0 {
		s.robots = []sim.RobotConf{{Name: "robot1"}}
	}
	for _, rc := range s.robots {
		if rc.Spawn == (sim.Pose{}) {
			sp, ok := w.Places().Spawn(rc.Name)
			require.True(t, ok, "no spawn named %s", rc.Name)
			rc.Spawn = sp.Pose
		}
		_, err := w.AddRobot(rc)
		require.NoError(t, err)
	}
	log := &eventLog{}
	conf := s.conf
	conf.World = w
	conf.Conn = connect(t, uri, "sim")
	conf.OnEvent = log.Add
	n, err := Start(conf)
	require.NoError(t, err)
	t.Cleanup(func() { n.Close() })
	return n, log
}

// eventLog keeps a node's events for tests to wait on.
type eventLog struct{ rostest.EventLog }

// timeOf returns the simulated time of the first event containing substr.
func (l *eventLog) timeOf(substr string) (time.Duration, bool) { return l.TimeOf(substr) }

// wait waits for an event containing substr and returns it.
func (l *eventLog) wait(t testing.TB, substr string, timeout time.Duration) string {
	t.Helper()
	line, _, ok := l.Await(timeout, substr)
	if !ok {
		require.Fail(t, fmt.Sprintf("no event containing %q within %v; events: %q", substr, timeout, l.Lines()))
	}
	return line
}

// robotState reads a robot's state inside the node.
func robotState[T any](n *Node, name string, read func(r *sim.Robot) T) T {
	var v T
	n.Do(func(w *sim.World) error {
		r, _ := w.Robot(name)
		v = read(r)
		return nil
	})
	return v
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// clear forgets the events so far.
func (l *eventLog) clear() { l.Clear() }
