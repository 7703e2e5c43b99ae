package hil

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/sim"
	"github.com/btrobot/btrobot/skills"
)

// ExternalSimNode is the node whose fault interface an external target is
// asked for (btrobot sim's: sim/simnode's faults.go): its services and
// topics are under /sim/.
const ExternalSimNode = "/sim"

// RunExternal runs a scenario against the simulator or robot on the ROS
// master RunConf.Master: it starts nothing. The robots' missions run in
// this process on that master (in the robots' namespaces, on the target's
// clock, not in lockstep: a run on a live target does not repeat exactly);
// the faults are asked of the target over ROS (ExternalSimNode's services
// and topics; a fault the target does not offer is an error before
// anything runs); the expectations are judged from the robots' topics
// (odom, from the robot's spawn pose, battery_state, bumper), sampled
// every 100 ms of the target's time.
func RunExternal(ctx context.Context, c RunConf) (Result, error) {
	s := c.Scenario
	start := time.Now()
	res := Result{Scenario: s}
	if s.Serve != nil {
		return res, fmt.Errorf("%s: serve: runs the mission server in lockstep with the harness's own simulator; with --master, drive the robot's server with its ExecuteMission action instead", s.Serve.Pos)
	}
	missions, err := loadMissions(s)
	if err != nil {
		return res, err
	}
	conn, err := ros.Connect(ros.Conf{MasterURI: c.Master, Name: "btrobot_hil"})
	if err != nil {
		return res, fmt.Errorf("--master %s: %w", c.Master, err)
	}
	defer conn.Close()
	remote := &target{conn: conn, s: s}
	if err := remote.check(); err != nil {
		return res, err
	}
	rec := newRecorder(s)
	obs, err := remote.watch(s.Robots)
	if err != nil {
		return res, err
	}
	defer obs.close()
	clock := conn.Clock()
	epoch := clock.Now()
	at := func() time.Duration { return clock.Now().Sub(epoch) }

	var mu sync.Mutex
	var strikes []Strike
	var problems []error
	strike := func(f Fault) {
		err := remote.apply(f)
		x, y := obs.position(f.Robot, s)
		mu.Lock()
		strikes = append(strikes, Strike{At: at(), Text: f.Text, X: x, Y: y})
		mu.Unlock()
		if err != nil {
			rec.faultError(f, err)
			mu.Lock()
			problems = append(problems, err)
			mu.Unlock()
		}
	}

	// The sampler: faults at their times and near places, the robots'
	// readings, every samplePeriod of the target's time.
	sctx, stopSampling := context.WithCancel(ctx)
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		done := make([]bool, len(s.Faults))
		for next := time.Duration(0); ; next += samplePeriod {
			timer, stop := clock.Timer(epoch.Add(next))
			select {
			case <-sctx.Done():
				stop()
				return
			case <-timer:
			}
			now := at()
			for i, f := range s.Faults {
				if done[i] || f.When != nil {
					continue
				}
				if f.Near != nil {
					x, y := obs.position(f.Near.Robot, s)
					p, ok := s.placePose(f.Near.Place)
					if !ok || math.Hypot(x-p.X, y-p.Y) > f.Near.Within {
						continue
					}
				} else if f.At > now {
					continue
				}
				done[i] = true
				strike(f)
			}
			for _, rr := range rec.robots {
				if r, ok := obs.reading(rr.name); ok {
					rr.observe(rec, now, r)
				}
			}
		}
	}()

	confs := make([]mission.RunConf, len(s.Robots))
	for i, r := range s.Robots {
		origin := skills.Pose(r.Spawn)
		base := mission.RunConf{
			Mission: missions[i], OdomOrigin: &origin,
			ROS: ros.Conf{MasterURI: c.Master, Namespace: "/" + r.Name, Name: "btrobot"},
		}
		confs[i], err = runConf(s, r, base, epoch, func(f Fault) { go strike(f) }, rec.robots[i], c.Log)
		if err != nil {
			stopSampling()
			<-sampled
			return res, err
		}
		if c.Record != "" {
			confs[i].Record = recordPath(c.Record, s, r.Name)
			res.Recordings = append(res.Recordings, confs[i].Record)
		}
	}
	if c.Record != "" {
		if err := mkdir(c.Record); err != nil {
			stopSampling()
			<-sampled
			return res, err
		}
	}
	reps, err := runMissions(ctx, confs)
	res.Reports = reps
	if err != nil {
		stopSampling()
		<-sampled
		return res, err
	}
	// Look on until the at_rest windows have closed, on the target's
	// clock, a minute of wall time at most.
	end := rec.settle()
	timer, stop := clock.Timer(epoch.Add(end))
	select {
	case <-timer:
	case <-ctx.Done():
	case <-time.After(time.Minute):
	}
	stop()
	stopSampling()
	<-sampled
	res.SimTime = min(end, at())
	mu.Lock()
	res.Strikes = strikes
	for _, st := range strikes {
		res.Events = append(res.Events, fmt.Sprintf("%v fault %s", st.At.Round(time.Millisecond), st.Text))
	}
	mu.Unlock()
	res.Verdicts = rec.judge(reps)
	for _, rr := range rec.robots {
		rr.mu.Lock()
		res.Tracks = append(res.Tracks, Track{Robot: rr.name, Points: append([]TrackPoint(nil), rr.track...)})
		res.Changes = append(res.Changes, rr.nodeChanges...)
		rr.mu.Unlock()
	}
	sort.SliceStable(res.Changes, func(i, j int) bool { return res.Changes[i].At < res.Changes[j].At })
	res.Wall = time.Since(start)
	return res, nil
}

// target is an external simulator or robot: the faults it offers over
// ROS.
type target struct {
	conn *ros.Conn
	s    *Scenario

	mu   sync.Mutex
	pubs map[string]*ros.Publisher // made by check, before the run
}

// op is a fault as the target takes it: a service to call with a
// std_srvs/SetBool, or a topic to publish a message on.
type op struct {
	name    string // resolved service or topic
	service bool
	on      bool // the SetBool's data
	msg     any  // the topic's message
}

// ops turns a fault into what the target is asked.
func (t *target) ops(f Fault) ([]op, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(f.Text), &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", f.Pos, err)
	}
	robot := f.Robot
	if robot == "" && len(t.s.Robots) > 0 {
		robot = t.s.Robots[0].Name
	}
	base := path.Join(ExternalSimNode, robot)
	v := doc[f.Kind]
	str := func() string { s, _ := v.(string); return s }
	switch f.Kind {
	case "battery":
		level, _ := toFloat(v)
		return []op{{name: base + "/battery_level", msg: &std_msgs.Float32{Data: float32(level)}}}, nil
	case "move_base":
		return []op{{name: base + "/stop_move_base", service: true, on: str() == "stop"}}, nil
	case "freeze", "unfreeze":
		return []op{{name: base + "/freeze/" + str(), service: true, on: f.Kind == "freeze"}}, nil
	case "delay":
		m, _ := v.(map[string]any)
		topic, _ := m["topic"].(string)
		by, _ := m["by"].(string)
		d, _ := time.ParseDuration(by)
		return []op{{name: base + "/delay/" + topic, msg: &std_msgs.Float32{Data: float32(d.Seconds())}}}, nil
	case "stall_wheel", "free_wheel":
		return []op{{name: base + "/stall_" + str() + "_wheel", service: true, on: f.Kind == "stall_wheel"}}, nil
	case "clear_obstacle":
		return []op{{name: path.Join(ExternalSimNode, "remove_obstacle"), msg: &std_msgs.String{Data: str()}}}, nil
	case "obstacle":
		m, _ := v.(map[string]any)
		name, _ := m["name"].(string)
		var box [4]float64
		if rect, ok := m["rect"].([]any); ok && len(rect) == 4 {
			for i := range box {
				box[i], _ = toFloat(rect[i])
			}
		} else {
			place, _ := m["place"].(string)
			size, _ := toFloat(m["size"])
			p, _ := t.s.placePose(place)
			box = [4]float64{p.X - size/2, p.Y - size/2, p.X + size/2, p.Y + size/2}
		}
		poly := &geometry_msgs.PolygonStamped{Header: std_msgs.Header{FrameId: name}}
		for _, c := range [][2]float64{{box[0], box[1]}, {box[2], box[1]}, {box[2], box[3]}, {box[0], box[3]}} {
			poly.Polygon.Points = append(poly.Polygon.Points, geometry_msgs.Point32{X: float32(c[0]), Y: float32(c[1])})
		}
		return []op{{name: path.Join(ExternalSimNode, "place_obstacle"), msg: poly}}, nil
	}
	return nil, fmt.Errorf("%s: %s: an external target cannot be asked for a %s fault over ROS", f.Pos, f.Text, f.Kind)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// check makes sure the target offers every fault of the scenario and that
// every expectation can be judged from its topics.
func (t *target) check() error {
	var errs []error
	for _, e := range t.s.Expect {
		if e.Kind == "speed_near_obstacles" {
			// The distance to obstacles is the simulated world's; a target's
			// topics do not tell it, and an expectation must not pass for
			// want of a measurement.
			errs = append(errs, fmt.Errorf("%s: speed_near_obstacles needs the simulator's world (the distance to obstacles); it cannot be judged on an external target", e.Pos))
		}
	}
	for _, f := range t.s.Faults {
		ops, err := t.ops(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, o := range ops {
			ok, err := t.conn.Offered(o.name)
			switch {
			case err != nil:
				errs = append(errs, err)
			case !ok:
				what := "topic (no node subscribes to it)"
				if o.service {
					what = "service"
				}
				errs = append(errs, fmt.Errorf("%s: %s: the target offers no %s %s; btrobot sim offers it (docs/simulator.md)", f.Pos, f.Text, what, o.name))
			case !o.service:
				// Advertised now, so that the target has connected by
				// the time the fault strikes.
				if _, err := t.publisher(o); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// apply asks the target for a fault.
func (t *target) apply(f Fault) error {
	ops, err := t.ops(f)
	if err != nil {
		return err
	}
	for _, o := range ops {
		if o.service {
			sc, err := ros.NewServiceClient(ros.ServiceClientConf{Conn: t.conn, Name: o.name, Srv: &std_srvs.SetBool{}})
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			resp, err := sc.Call(ctx, &std_srvs.SetBoolReq{Data: o.on})
			cancel()
			if err != nil {
				return err
			}
			if r, ok := resp.(*std_srvs.SetBoolRes); ok && !r.Success {
				return errors.New(r.Message)
			}
			continue
		}
		pub, err := t.publisher(o)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = t.conn.WaitSubscribers(ctx, o.name, 1)
		if err == nil {
			err = pub.PublishWait(ctx, o.msg)
		}
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", o.name, err)
		}
	}
	return nil
}

// publisher is the fault's publisher, made once.
func (t *target) publisher(o op) (*ros.Publisher, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.pubs[o.name]; p != nil {
		return p, nil
	}
	p, err := ros.NewPublisher(ros.PublisherConf{Conn: t.conn, Topic: o.name, Msg: o.msg})
	if err != nil {
		return nil, err
	}
	if t.pubs == nil {
		t.pubs = map[string]*ros.Publisher{}
	}
	t.pubs[o.name] = p
	return p, nil
}

// observer follows the robots' topics.
type observer struct {
	subs []*ros.Subscription

	mu    sync.Mutex
	seen  map[string]*seenRobot
	spawn map[string]places.Pose
}

type seenRobot struct {
	odom       bool
	pose       sim.Pose
	twist      sim.Twist
	battery    float64
	bumped     bool
	collisions int
}

func (t *target) watch(robots []Robot) (*observer, error) {
	o := &observer{seen: map[string]*seenRobot{}, spawn: map[string]places.Pose{}}
	for _, r := range robots {
		sr := &seenRobot{battery: math.NaN()}
		o.seen[r.Name], o.spawn[r.Name] = sr, r.Spawn
		spawn := skills.Pose(r.Spawn)
		add := func(sub *ros.Subscription, err error) error {
			if err == nil {
				o.subs = append(o.subs, sub)
			}
			return err
		}
		ns := "/" + r.Name + "/"
		if err := add(ros.Subscribe(t.conn, ns+sim.TopicOdom, func(m *nav_msgs.Odometry) {
			q := m.Pose.Pose.Orientation
			yaw := math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
			p := spawn.Compose(skills.Pose{X: m.Pose.Pose.Position.X, Y: m.Pose.Pose.Position.Y, Yaw: yaw})
			o.mu.Lock()
			sr.odom, sr.pose = true, sim.Pose{X: p.X, Y: p.Y, Yaw: p.Yaw}
			sr.twist = sim.Twist{Linear: m.Twist.Twist.Linear.X, Angular: m.Twist.Twist.Angular.Z}
			o.mu.Unlock()
		})); err != nil {
			o.close()
			return nil, err
		}
		if err := add(ros.Subscribe(t.conn, ns+sim.TopicBattery, func(m *sensor_msgs.BatteryState) {
			o.mu.Lock()
			sr.battery = float64(m.Percentage)
			o.mu.Unlock()
		})); err != nil {
			o.close()
			return nil, err
		}
		if err := add(ros.Subscribe(t.conn, ns+sim.TopicBumper, func(m *std_msgs.Bool) {
			o.mu.Lock()
			if m.Data && !sr.bumped {
				sr.collisions++
			}
			sr.bumped = m.Data
			o.mu.Unlock()
		})); err != nil {
			o.close()
			return nil, err
		}
	}
	return o, nil
}

// reading is the robot's newest reading; false before its first odometry.
func (o *observer) reading(name string) (reading, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	sr := o.seen[name]
	if sr == nil || !sr.odom {
		return reading{}, false
	}
	return reading{pose: sr.pose, twist: sr.twist, battery: sr.battery, collisions: sr.collisions}, true
}

// position is where a robot is now (its spawn pose before its first
// odometry); the first robot's for "".
func (o *observer) position(name string, s *Scenario) (float64, float64) {
	if name == "" && len(s.Robots) > 0 {
		name = s.Robots[0].Name
	}
	if r, ok := o.reading(name); ok {
		return r.pose.X, r.pose.Y
	}
	p := o.spawn[name]
	return p.X, p.Y
}

func (o *observer) close() {
	for _, s := range o.subs {
		s.Close()
	}
}
