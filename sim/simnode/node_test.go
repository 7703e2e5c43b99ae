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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/bridge"
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
		require.NoError(t, err)
		for k := range robots {
			sp := w.Places().Spawns[k]
			_, err := w.AddRobot(sim.RobotConf{Name: sp.Name, Spawn: sp.Pose})
			require.NoError(t, err)
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
				require.Fail(t, "started")
			}
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w, "error %q\ndoes not say %q", err, w)
			}
			got := strings.Count(err.Error(), "\n") + 1
			assert.Equal(t, len(tc.want), got, "%d errors, want %d: %v", got, len(tc.want), err)
		})
	}
	_, err := conn.HasParam("/use_sim_time")
	require.NoError(t, err)
	set, _ := conn.HasParam("/use_sim_time")
	assert.False(t, set, "a node that did not start set /use_sim_time")
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
		assert.True(t, slices.Contains(topics, w), "rostopic list lacks %s", w)
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
		assert.True(t, slices.Contains(services, w), "rosservice list lacks %s", w)
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
	_, err := ros.Subscribe(c, "/tf", func(m *tf2_msgs.TFMessage) {
		mu.Lock()
		defer mu.Unlock()
		for _, tr := range m.Transforms {
			frames[tr.Header.FrameId+" -> "+tr.ChildFrameId] = true
		}
	})
	require.NoError(t, err)
	for _, s := range []*ros.Subscription{odom, scan, tfStatic, mapSub} {
		require.Eventually(t, func() bool { m, _, _ := s.Newest(); return m != nil }, 10*time.Second, 5*time.Millisecond, s.Topic())
	}
	o := func() *nav_msgs.Odometry { m, _, _ := odom.Newest(); return m.(*nav_msgs.Odometry) }()
	if assert.Equal(t, "robot2/odom", o.Header.FrameId, "odom frames %q -> %q", o.Header.FrameId, o.ChildFrameId) {
		assert.Equal(t, "robot2/base_link", o.ChildFrameId, "odom frames %q -> %q", o.Header.FrameId, o.ChildFrameId)
	}
	if m, _, _ := scan.Newest(); assert.Equal(t, "robot2/base_scan", m.(*sensor_msgs.LaserScan).Header.FrameId, "scan frame %q, %d ranges", m.(*sensor_msgs.LaserScan).Header.FrameId, len(m.(*sensor_msgs.LaserScan).Ranges)) {
		assert.Len(t, m.(*sensor_msgs.LaserScan).Ranges, 360, "scan frame %q, %d ranges", m.(*sensor_msgs.LaserScan).Header.FrameId, len(m.(*sensor_msgs.LaserScan).Ranges))
	}
	static := map[string]bool{}
	m, _, _ := tfStatic.Newest()
	for _, tr := range m.(*tf2_msgs.TFMessage).Transforms {
		static[tr.Header.FrameId+" -> "+tr.ChildFrameId] = true
	}
	if assert.True(t, static["robot1/base_link -> robot1/base_scan"], "/tf_static: %v", static) {
		assert.True(t, static["robot2/base_link -> robot2/base_scan"], "/tf_static: %v", static)
		assert.Len(t, static, 2, "/tf_static: %v", static)
	}
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(frames) == 4
	}, 5*time.Second, 5*time.Millisecond, "every transform")
	mu.Lock()
	defer mu.Unlock()
	for _, f := range []string{"map -> robot1/odom", "robot1/odom -> robot1/base_link", "map -> robot2/odom", "robot2/odom -> robot2/base_link"} {
		assert.True(t, frames[f], "/tf lacks %s: %v", f, frames)
	}
	g, _, _ := mapSub.Newest()
	grid := g.(*nav_msgs.OccupancyGrid)
	if assert.Equal(t, "map", grid.Header.FrameId, "/map: frame %q, %dx%d at %v m, origin %+v", grid.Header.FrameId, grid.Info.Width, grid.Info.Height, grid.Info.Resolution, grid.Info.Origin.Position) {
		assert.Equal(t, uint32(400), grid.Info.Width, "/map: frame %q, %dx%d at %v m, origin %+v", grid.Header.FrameId, grid.Info.Width, grid.Info.Height, grid.Info.Resolution, grid.Info.Origin.Position)
		assert.Equal(t, uint32(240), grid.Info.Height, "/map: frame %q, %dx%d at %v m, origin %+v", grid.Header.FrameId, grid.Info.Width, grid.Info.Height, grid.Info.Resolution, grid.Info.Origin.Position)
		assert.Equal(t, float32(0.05), grid.Info.Resolution, "/map: frame %q, %dx%d at %v m, origin %+v", grid.Header.FrameId, grid.Info.Width, grid.Info.Height, grid.Info.Resolution, grid.Info.Origin.Position)
		assert.Equal(t, float64(-10), grid.Info.Origin.Position.X, "/map: frame %q, %dx%d at %v m, origin %+v", grid.Header.FrameId, grid.Info.Width, grid.Info.Height, grid.Info.Resolution, grid.Info.Origin.Position)
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
	peer, err := bridge.NewLockstepPeer(c, "")
	require.NoError(t, err)
	require.NoError(t, peer.Ready(n.Stamp(time.Second)))
	<-n.Done()
	n.At(0, record("late")) // the simulation has stopped: never
	want := []string{"battery at 0s", "a at 500ms", "b at 520ms", "c at 520ms"}
	n.Do(func(*sim.World) error { return nil })
	assert.Equal(t, strings.Join(want, ", "), strings.Join(got, ", "), "ran %q, want %q", got, want)
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
	reached, err := ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", -5, 0, 0), ros.GoalConf{})
	require.NoError(t, err, "goal: %v", reached.State)
	require.Equal(t, ros.GoalSucceeded, reached.State, "goal: %v %v", reached.State, err)
	sc, err := ros.NewServiceClient(ros.ServiceClientConf{Conn: c, Name: "/sim/render", Srv: std_srvs.Trigger{}})
	require.NoError(t, err)
	res, err := sc.Call(ctxTimeout(t, 10*time.Second), &std_srvs.TriggerReq{})
	require.NoError(t, err)
	r := res.(*std_srvs.TriggerRes)
	require.True(t, r.Success, "render: %+v", r)
	require.Equal(t, strings.Join(files, " "), r.Message, "render: %+v", r)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	b := img.Bounds()
	assert.Equal(t, 800, b.Dx(), "PNG of %v, want 800x480 (the office at 2 pixels per cell)", b)
	assert.Equal(t, 480, b.Dy(), "PNG of %v, want 800x480 (the office at 2 pixels per cell)", b)
	svg, err := os.ReadFile(files[1])
	require.NoError(t, err)
	assert.True(t, bytes.Contains(svg, []byte("<svg")), "SVG without the drawing or the docks' labels:\n%.300s", svg)
	assert.True(t, bytes.Contains(svg, []byte("dock_west")), "SVG without the drawing or the docks' labels:\n%.300s", svg)
	_, err = n.Render(filepath.Join(dir, "run.jpg"))
	assert.ErrorContains(t, err, "must end in .png or .svg", "Render to a .jpg: %v", err)
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
		require.NoError(t, err, "run %d: %v", run+1, out.State)
		require.Equal(t, ros.GoalSucceeded, out.State, "run %d: %v %v", run+1, out.State, err)
		require.NoError(t, n.Close())
		c.Close()
		n.conf.Conn.Close()
	}
}

// TestWallTime: a simulator that leaves time to the wall clock publishes
// no /clock, leaves /use_sim_time alone and stamps with the wall time.
func TestWallTime(t *testing.T) {
	uri := rostest.StartMaster(t)
	// The wall clock, rounded down as a stamp may be: the newest odom
	// is stamped between this and its receipt. (Simulated time starts
	// at zero; how late a message arrives on a loaded machine is no
	// property of the stamp.)
	started := time.Now().Truncate(time.Millisecond)
	startSim(t, uri, simSetup{conf: Conf{WallTime: true}})
	c := connect(t, uri, "client")
	require.Nil(t, c.SimClock(), "the client is on simulated time")
	if set, err := c.HasParam("/use_sim_time"); assert.NoError(t, err, "/use_sim_time set: %v", set) {
		assert.False(t, set, "/use_sim_time set: %v %v", set, err)
	}
	odom, err := ros.Subscribe[nav_msgs.Odometry](c, "/robot1/odom", nil)
	require.NoError(t, err)
	require.Eventually(t, func() bool { m, _, _ := odom.Newest(); return m != nil }, 5*time.Second, 5*time.Millisecond, "odom")
	m, at, _ := odom.Newest()
	stamp := m.(*nav_msgs.Odometry).Header.Stamp
	assert.False(t, stamp.Before(started), "odom stamped %v, before the simulator started at %v", stamp, started)
	assert.False(t, stamp.After(at), "odom stamped %v, after it was received at %v", stamp, at)
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
		out, err := ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", -5, 0, 0), ros.GoalConf{})
		require.NoError(t, err, "goal: %v", out.State)
		require.Equal(t, ros.GoalSucceeded, out.State, "goal: %v %v", out.State, err)
		setBool(t, c, "/sim/robot1/stop_move_base", true)
		log.wait(t, "robot1: move_base stopped", 5*time.Second)
		setBool(t, c, "/sim/robot1/stop_move_base", false)
		log.wait(t, "robot1: move_base restarted", 5*time.Second)
		_, err = n.Render()
		require.NoError(t, err)
		// A goal still running when the node closes ends preempted.
		go ac.Run(ctxTimeout(t, 30*time.Second), moveBaseGoal("map", 6.5, -3.5, 0), ros.GoalConf{})
		require.Eventually(t, func() bool { return robotState(n, "robot1", (*sim.Robot).Travelled) > 3.5 }, 10*time.Second, 5*time.Millisecond, "moving")
		require.NoError(t, n.Close())
	})
}
