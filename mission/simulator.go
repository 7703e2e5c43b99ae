package mission

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/inproc"
	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/sim/simnode"
	"github.com/btrobot/btrobot/skills"
)

// SimConf configures StartSim.
type SimConf struct {
	// WorldDir is the world to load (a directory with its map and
	// places.yaml), its random draws seeded with Seed; or World, loaded.
	WorldDir string
	Seed     uint64
	// World is the world to simulate, when WorldDir is empty. The
	// simulator owns it once started: read it through Node.Do.
	World *sim.World
	// Robots are added to the world before it starts (a World may have
	// some already).
	Robots []SimRobot
	// Speed is how many simulated seconds pass per wall second; 0 runs as
	// fast as the machine and the missions in lockstep allow.
	Speed float64
	// OnEvent, when set, receives the simulator's events (a goal's end, a
	// fault) with their simulated time, from a goroutine of the simulator.
	OnEvent func(at time.Duration, line string)
	// MasterLog, when set, receives what the ROS master's operator should
	// hear about (a shutdown call, a request refused), from any goroutine.
	MasterLog func(line string)
	// Peers is how many lockstep peers must join before time starts [one
	// per robot]: hil's served scenarios add the peer that holds the
	// world between goals.
	Peers int
	// Transport is how the simulator and the missions talk: "ros" (the
	// default) over TCPROS on a ROS master of their own, which ROS tools
	// can join (URI); "inproc" through an in-process graph (package
	// ros/inproc): no sockets, the same semantics, no tools.
	Transport string
}

// The transports of SimConf.Transport.
const (
	TransportROS    = "ros"
	TransportInproc = "inproc"
)

// SimRobot is a robot StartSim adds to the world.
type SimRobot struct {
	// Name names the robot, and its namespace (/robot1).
	Name string
	// Spawn is the spawn place of the world's places.yaml it starts at
	// [the one named as the robot]; Pose, when set, is its pose instead.
	Spawn string
	Pose  *sim.Pose
	// Battery is its charge at the start, a fraction in (0, 1] [the
	// simulator's default, full].
	Battery float64
}

// Simulator is btrobot's simulator serving a world on a ROS master of its
// own, on a free port of the loopback interface: it never meets another
// ROS graph and needs no host name to resolve. Missions join it in
// lockstep (RunConf), so a run repeats whatever the machine's load. The
// demo, the HIL harness and the studio's Run start it so.
type Simulator struct {
	// Master is the ROS master the simulator and the missions are on,
	// under the "ros" transport; Graph is their in-process graph under
	// "inproc". The other is nil.
	Master *master.Master
	Graph  *inproc.Graph
	// Node is the simulator's ROS node.
	Node *simnode.Node

	conn    *ros.Conn
	origins map[string]skills.Pose // each robot's odom frame in the map frame
}

// simPeerTimeout is how long the simulator waits on a quiet mission before
// asking the master whether it is still there: a mission's tick may take
// long on a loaded machine, and a wrong "gone" would let time run on.
const simPeerTimeout = 10 * time.Second

// StartSim starts the master and the simulator on it. Time starts when
// every robot's mission has joined the lockstep (one peer per robot of the
// world). Close stops both.
func StartSim(c SimConf) (*Simulator, error) {
	w := c.World
	if w == nil && c.WorldDir != "" {
		var err error
		if w, err = sim.LoadWorld(c.WorldDir, sim.WorldConf{Seed: c.Seed}); err != nil {
			return nil, err
		}
	}
	if w == nil {
		return nil, errors.New("the simulator: no world")
	}
	if err := addRobots(w, c.Robots); err != nil {
		return nil, err
	}
	c.World = w
	robots := c.World.Robots()
	s := &Simulator{origins: map[string]skills.Pose{}}
	for _, r := range robots {
		s.origins[r.Name()] = skills.Pose(r.OdomOrigin())
	}
	if err := s.startGraph(c); err != nil {
		return nil, err
	}
	var err error
	s.conn, err = ros.Connect(s.nodeConf("/", "sim"))
	if err != nil {
		return nil, errors.Join(err, s.closeGraph())
	}
	s.Node, err = simnode.Start(simnode.Conf{
		World: c.World, Conn: s.conn, Speed: c.Speed, Peers: cmp.Or(c.Peers, len(robots)), PeerTimeout: simPeerTimeout,
		OnEvent: c.OnEvent,
	})
	if err != nil {
		return nil, errors.Join(err, s.conn.Close(), s.closeGraph())
	}
	return s, nil
}

// startGraph starts the master or the in-process graph of c.Transport.
func (s *Simulator) startGraph(c SimConf) error {
	switch c.Transport {
	case TransportInproc:
		s.Graph = inproc.NewGraph()
		return nil
	case "", TransportROS:
		mst, err := master.New(master.Conf{Host: "127.0.0.1", Port: 0, OnLog: c.MasterLog})
		if err == nil {
			err = mst.Start()
		}
		if err != nil {
			return fmt.Errorf("start the ROS master: %w", err)
		}
		s.Master = mst
		return nil
	}
	return fmt.Errorf("the simulator: transport %q: want %q or %q", c.Transport, TransportROS, TransportInproc)
}

func (s *Simulator) closeGraph() error {
	if s.Master != nil {
		return s.Master.Close()
	}
	return nil
}

// nodeConf is how a node called name in namespace ns joins the simulator's
// graph.
func (s *Simulator) nodeConf(ns, name string) ros.Conf {
	if s.Graph != nil {
		return ros.Conf{Graph: s.Graph, Namespace: ns, Name: name}
	}
	return ros.Conf{MasterURI: s.Master.URI(), Host: "127.0.0.1", Namespace: ns, Name: name}
}

// ShutdownNode has the master shut the node registered as name down (a
// global name, such as /robot1/btrobot), as rosnode kill does; it does not
// wait for the node.
func (s *Simulator) ShutdownNode(name, reason string) error {
	if s.Graph != nil {
		return s.Graph.ShutdownNode(name, reason)
	}
	return s.Master.ShutdownNode(name, reason)
}

// addRobots adds robots to w, each at its spawn place or pose, its battery
// charged as asked.
func addRobots(w *sim.World, robots []SimRobot) error {
	for _, r := range robots {
		conf := sim.RobotConf{Name: r.Name}
		switch {
		case r.Pose != nil:
			conf.Spawn = *r.Pose
		default:
			name := cmp.Or(r.Spawn, r.Name)
			sp, ok := w.Places().Spawn(name)
			if !ok {
				var known []string
				for _, s := range w.Places().Spawns {
					known = append(known, s.Name)
				}
				return fmt.Errorf("robot %s: the world has no spawn place named %s (it has %s): add spawns: [{name: %s, pose: [x, y, yaw]}] to its places.yaml",
					r.Name, name, cmp.Or(strings.Join(known, ", "), "none"), name)
			}
			conf.Spawn = sp.Pose
		}
		if r.Battery != 0 {
			if !(r.Battery > 0 && r.Battery <= 1) {
				return fmt.Errorf("robot %s: battery %v: want a charge in (0, 1]", r.Name, r.Battery)
			}
			conf.Battery.Initial = r.Battery
		}
		if _, err := w.AddRobot(conf); err != nil {
			return err
		}
	}
	return nil
}

// Succeeded is how many of robot's goals on an action server of the
// simulator (move_base, dock, undock) have succeeded so far.
func (s *Simulator) Succeeded(robot, server string) int {
	return s.Node.Stats().Succeeded[simnode.GoalKey{Robot: robot, Server: server}]
}

// URI is the master's URI: for the missions, and for any ROS tool that
// wants to watch (rostopic echo /robot1/cmd_vel); "" under the "inproc"
// transport, which no tool can join.
func (s *Simulator) URI() string {
	if s.Master == nil {
		return ""
	}
	return s.Master.URI()
}

// RunConf is robot's mission m on the simulator: on its master, in the
// robot's namespace (/robot1) as node btrobot, in lockstep with the
// simulator, the odom frame's origin at the robot's spawn. The caller adds
// what its run needs (seed, display, OnTick, debugger) and runs it with
// Run; an unknown robot is an error.
func (s *Simulator) RunConf(m *Mission, robot string) (RunConf, error) {
	origin, ok := s.origins[robot]
	if !ok {
		return RunConf{}, fmt.Errorf("the simulator has no robot %q", robot)
	}
	return RunConf{
		Mission: m, Lockstep: &bridge.LockstepConf{}, OdomOrigin: &origin,
		ROS: s.nodeConf("/"+robot, "btrobot"),
	}, nil
}

// Close stops the simulator, then the master. The missions on it should
// have ended: a mission still running loses its master.
func (s *Simulator) Close() error {
	return errors.Join(s.Node.Close(), s.conn.Close(), s.closeGraph())
}
