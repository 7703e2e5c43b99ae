package simnode

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/sim"
)

// TestConfErrors: every problem with a configuration is reported at once,
// and nothing is advertised.
func TestConfErrors(t *testing.T) {
	uri := rostest.StartMaster(t)
	conn := connect(t, uri, "sim")
	office := func(robots int) *sim.World {
		w, err := sim.LoadWorld(officeWorld, sim.WorldConf{})
		if err != nil {
			t.Fatal(err)
		}
		for k := range robots {
			sp := w.Places().Spawns[k]
			if _, err := w.AddRobot(sim.RobotConf{Name: sp.Name, Spawn: sp.Pose}); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	for _, tc := range []struct {
		name string
		conf Conf
		want []string
	}{
		{"nothing", Conf{}, []string{"simulator node: no World", "simulator node: no ROS connection (Conn)"}},
		{"no robots", Conf{World: office(0), Conn: conn}, []string{"the world has no robots; add them before starting the node"}},
		{"root namespace for two", Conf{World: office(2), Conn: conn, RootNamespace: true}, []string{"RootNamespace serves one robot, the world has 2"}},
		{"negative speed", Conf{World: office(1), Conn: conn, Speed: -1}, []string{"Speed -1: want 0 (as fast as possible) or a positive factor of real time"}},
		{"wall time at speed 2", Conf{World: office(1), Conn: conn, WallTime: true, Speed: 2}, []string{"Speed 2 with WallTime: a simulator on wall time runs at speed 1"}},
		{"wall time with peers", Conf{World: office(1), Conn: conn, WallTime: true, Peers: 1}, []string{"Peers 1 with WallTime: lockstep needs the node to own time"}},
		{"bad rates and render file", Conf{World: office(1), Conn: conn, OdomRate: -5, ControllerRate: -1, Render: []string{"out.jpg"}}, []string{
			"OdomRate -5: want a positive rate in Hz", "ControllerRate -1: want a positive rate in Hz",
			`render to "out.jpg": the file name must end in .png or .svg`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Start(tc.conf)
			if err == nil {
				n.Close()
				t.Fatal("started")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not say %q", err, w)
				}
			}
			if got := strings.Count(err.Error(), "\n") + 1; got != len(tc.want) {
				t.Errorf("%d errors, want %d: %v", got, len(tc.want), err)
			}
		})
	}
	if _, err := conn.HasParam("/use_sim_time"); err != nil {
		t.Fatal(err)
	}
	if set, _ := conn.HasParam("/use_sim_time"); set {
		t.Error("a node that did not start set /use_sim_time")
	}
}

// TestGraph: the names the node offers, as rostopic and rosservice list
// them, for two robots.
func TestGraph(t *testing.T) {
	rostest.Require(t, "rostopic", "rosservice")
	uri := rostest.StartMaster(t)
	startSim(t, uri, simSetup{robots: []sim.RobotConf{{Name: "robot1"}, {Name: "robot2"}}})
	topics := strings.Fields(rostest.Run(t, uri, 20*time.Second, "rostopic", "list"))
	want := []string{"/clock", "/map", "/tf", "/tf_static", "/sim/events", "/sim/lockstep", "/sim/place_obstacle", "/sim/remove_obstacle"}
	for _, r := range []string{"/robot1/", "/robot2/"} {
		for _, name := range []string{"cmd_vel", "odom", "scan", "battery_state", "bumper", "docked"} {
			want = append(want, r+name)
		}
		for _, server := range []string{"move_base", "dock", "undock"} {
			for _, part := range []string{"goal", "cancel", "status", "feedback", "result"} {
				want = append(want, r+server+"/"+part)
			}
		}
		want = append(want, "/sim"+r+"battery_level")
		for _, topic := range sim.FaultTopics {
			want = append(want, "/sim"+r+"delay/"+topic)
		}
	}
	for _, w := range want {
		if !slices.Contains(topics, w) {
			t.Errorf("rostopic list lacks %s", w)
		}
	}
	services := strings.Fields(rostest.Run(t, uri, 20*time.Second, "rosservice", "list"))
	want = []string{"/sim/render"}
	for _, r := range []string{"/sim/robot1/", "/sim/robot2/"} {
		want = append(want, r+"stop_move_base", r+"stall_left_wheel", r+"stall_right_wheel")
		for _, topic := range sim.FaultTopics {
			want = append(want, r+"freeze/"+topic)
		}
	}
	for _, w := range want {
		if !slices.Contains(services, w) {
			t.Errorf("rosservice list lacks %s", w)
		}
	}
}

// TestFrames: the frames of each robot's messages and of /tf, /tf_static
// and /map, under namespaces.
func TestFrames(t *testing.T) {
	uri := rostest.StartMaster(t)
	startSim(t, uri, simSetup{robots: []sim.RobotConf{{Name: "robot1"}, {Name: "robot2", OdomNoise: 0.05}}, conf: Conf{Speed: 10}})
	c := connect(t, uri, "client")
	odom, _ := ros.Subscribe[nav_msgs.Odometry](c, "/robot2/odom", nil)
	scan, _ := ros.Subscribe[sensor_msgs.LaserScan](c, "/robot2/scan", nil)
	tfStatic, _ := ros.Subscribe[tf2_msgs.TFMessage](c, "/tf_static", nil)
	mapSub, _ := ros.Subscribe[nav_msgs.OccupancyGrid](c, "/map", nil)
	var mu sync.Mutex
	frames := map[string]bool{}
	if _, err := ros.Subscribe(c, "/tf", func(m *tf2_msgs.TFMessage) {
		mu.Lock()
		defer mu.Unlock()
		for _, tr := range m.Transforms {
			frames[tr.Header.FrameId+" -> "+tr.ChildFrameId] = true
		}
	}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*ros.Subscription{odom, scan, tfStatic, mapSub} {
		eventually(t, 10*time.Second, s.Topic(), func() bool { m, _, _ := s.Newest(); return m != nil })
	}
	o := func() *nav_msgs.Odometry { m, _, _ := odom.Newest(); return m.(*nav_msgs.Odometry) }()
	if o.Header.FrameId != "robot2/odom" || o.ChildFrameId != "robot2/base_link" {
		t.Errorf("odom frames %q -> %q", o.Header.FrameId, o.ChildFrameId)
	}
	if m, _, _ := scan.Newest(); m.(*sensor_msgs.LaserScan).Header.FrameId != "robot2/base_scan" || len(m.(*sensor_msgs.LaserScan).Ranges) != 360 {
		t.Errorf("scan frame %q, %d ranges", m.(*sensor_msgs.LaserScan).Header.FrameId, len(m.(*sensor_msgs.LaserScan).Ranges))
	}
	static := map[string]bool{}
	m, _, _ := tfStatic.Newest()
	for _, tr := range m.(*tf2_msgs.TFMessage).Transforms {
		static[tr.Header.FrameId+" -> "+tr.ChildFrameId] = true
	}
	if !static["robot1/base_link -> robot1/base_scan"] || !static["robot2/base_link -> robot2/base_scan"] || len(static) != 2 {
		t.Errorf("/tf_static: %v", static)
	}
	eventually(t, 5*time.Second, "every transform", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(frames) == 4
	})
	mu.Lock()
	defer mu.Unlock()
	for _, f := range []string{"map -> robot1/odom", "robot1/odom -> robot1/base_link", "map -> robot2/odom", "robot2/odom -> robot2/base_link"} {
		if !frames[f] {
			t.Errorf("/tf lacks %s: %v", f, frames)
		}
	}
	g, _, _ := mapSub.Newest()
	grid := g.(*nav_msgs.OccupancyGrid)
	if grid.Header.FrameId != "map" || grid.Info.Width != 400 || grid.Info.Height != 240 || grid.Info.Resolution != 0.05 || grid.Info.Origin.Position.X != -10 {
		t.Errorf("/map: frame %q, %dx%d at %v m, origin %+v", grid.Header.FrameId, grid.Info.Width, grid.Info.Height, grid.Info.Resolution, grid.Info.Origin.Position)
	}
}

// TestAt: faults scheduled from Go act at the first step at or after their
// time, in order, whatever the machine does.
func TestAt(t *testing.T) {
	uri := rostest.StartMaster(t)
	n, _ := startSim(t, uri, simSetup{conf: Conf{Peers: 1, Until: time.Second}})
	var got []string
	record := func(what string) func(w *sim.World) {
		return func(w *sim.World) { got = append(got, what+" at "+w.Now().String()) }
	}
	n.At(510*time.Millisecond, record("b"))
	n.At(500*time.Millisecond, record("a"))
	n.At(510*time.Millisecond, record("c"))
	n.At(0, func(w *sim.World) {
		r, _ := w.Robot("robot1")
		r.SetBatteryLevel(0.5)
		got = append(got, "battery at "+w.Now().String())
	})
	c := connect(t, uri, "driver")
	peer, err := ros.NewLockstepPeer(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := peer.Ready(n.Stamp(time.Second)); err != nil {
		t.Fatal(err)
	}
	<-n.Done()
	n.At(0, record("late")) // the simulation has stopped: never
	want := []string{"battery at 0s", "a at 500ms", "b at 520ms", "c at 520ms"}
	n.Do(func(*sim.World) error { return nil })
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("ran %q, want %q", got, want)
	}
}

// TestRender: the render service writes the configured files, a PNG and an
// SVG of the run; Render refuses other formats.
func TestRender(t *testing.T) {
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "run.png"), filepath.Join(dir, "run.svg")}
	uri := rostest.StartMaster(t)
	n, _ := startSim(t, uri, simSetup{conf: Conf{Render: files}})
	c := connect(t, uri, "client")
	ac := actionClient(t, c, "/robot1/move_base")
	if out, err := ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", -5, 0, 0), ros.GoalConf{}); err != nil || out.State != ros.GoalSucceeded {
		t.Fatalf("goal: %v %v", out.State, err)
	}
	sc, err := ros.NewServiceClient(ros.ServiceClientConf{Conn: c, Name: "/sim/render", Srv: std_srvs.Trigger{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sc.Call(ctxTimeout(t, 10*time.Second), &std_srvs.TriggerReq{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.(*std_srvs.TriggerRes); !r.Success || r.Message != strings.Join(files, " ") {
		t.Fatalf("render: %+v", r)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 480 {
		t.Errorf("PNG of %v, want 800x480 (the office at 2 pixels per cell)", b)
	}
	svg, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("dock_west")) {
		t.Errorf("SVG without the drawing or the docks' labels:\n%.300s", svg)
	}
	if _, err := n.Render(filepath.Join(dir, "run.jpg")); err == nil || !strings.Contains(err.Error(), "must end in .png or .svg") {
		t.Errorf("Render to a .jpg: %v", err)
	}
}

// TestRestartOnTheSameMaster: a second simulator on a master where the
// first left /use_sim_time set (its own connection then follows /clock)
// runs like the first.
func TestRestartOnTheSameMaster(t *testing.T) {
	uri := rostest.StartMaster(t)
	for run := range 2 {
		n, _ := startSim(t, uri, simSetup{})
		c := connect(t, uri, "client")
		ac := actionClient(t, c, "/robot1/move_base")
		out, err := ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", -5, 0, 0), ros.GoalConf{})
		if err != nil || out.State != ros.GoalSucceeded {
			t.Fatalf("run %d: %v %v", run+1, out.State, err)
		}
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		c.Close()
		n.conf.Conn.Close()
	}
}

// TestWallTime: a simulator that leaves time to the wall clock publishes
// no /clock, leaves /use_sim_time alone and stamps with the wall time.
func TestWallTime(t *testing.T) {
	uri := rostest.StartMaster(t)
	startSim(t, uri, simSetup{conf: Conf{WallTime: true}})
	c := connect(t, uri, "client")
	if c.SimClock() != nil {
		t.Fatal("the client is on simulated time")
	}
	if set, err := c.HasParam("/use_sim_time"); err != nil || set {
		t.Errorf("/use_sim_time set: %v %v", set, err)
	}
	odom, err := ros.Subscribe[nav_msgs.Odometry](c, "/robot1/odom", nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "odom", func() bool { m, _, _ := odom.Newest(); return m != nil })
	m, at, _ := odom.Newest()
	if d := at.Sub(m.(*nav_msgs.Odometry).Header.Stamp); d < 0 || d > 500*time.Millisecond {
		t.Errorf("odom stamped %v, received %v", m.(*nav_msgs.Odometry).Header.Stamp, at)
	}
}

// TestNoLeaks: a session with a goal, faults and a render leaves no
// goroutine behind once the node, the clients and the master are closed.
func TestNoLeaks(t *testing.T) {
	rostest.VerifyNoLeaks(t) // once the session's master and connections are gone
	t.Run("session", func(t *testing.T) {
		uri := rostest.StartMaster(t)
		n, log := startSim(t, uri, simSetup{conf: Conf{Render: []string{filepath.Join(t.TempDir(), "x.png")}}})
		c := connect(t, uri, "client")
		ac := actionClient(t, c, "/robot1/move_base")
		if out, err := ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", -5, 0, 0), ros.GoalConf{}); err != nil || out.State != ros.GoalSucceeded {
			t.Fatalf("goal: %v %v", out.State, err)
		}
		setBool(t, c, "/sim/robot1/stop_move_base", true)
		log.wait(t, "robot1: move_base stopped", 5*time.Second)
		setBool(t, c, "/sim/robot1/stop_move_base", false)
		log.wait(t, "robot1: move_base restarted", 5*time.Second)
		if _, err := n.Render(); err != nil {
			t.Fatal(err)
		}
		// A goal still running when the node closes ends preempted.
		go ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", 6.5, -3.5, 0), ros.GoalConf{})
		eventually(t, 10*time.Second, "moving", func() bool { return robotState(n, "robot1", (*sim.Robot).Travelled) > 3.5 })
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
	})
}
