package simnode

import (
	"math"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/sim"
)

// face is one robot's ROS face: its topics, its move_base and docking
// servers, and the faults of its topics.
type face struct {
	n      *Node
	r      *sim.Robot
	ns     string // topic namespace, relative to the node's: "robot1/" or ""
	prefix string // tf frame prefix: "robot1/" or ""

	odomPub, scanPub, batteryPub, bumperPub, dockedPub *ros.Publisher

	nextOdom, nextBattery, nextBumper time.Duration
	lastScan                          time.Duration
	scanned                           bool
	lastBumper, lastDocked            bool
	// said is the value of the newest message out on each topic that also
	// goes out on change (bumper, docked), by the topic's global name, for
	// lockstep peers (publishGoalsEnded): a change's message comes between
	// the topic's periods, so a tick cannot tell from the schedule that it
	// is on its way.
	said map[string]bool
	// sent is the header stamp of the newest message out on each sensor
	// topic whose messages have one (odom, scan, battery), by the topic's
	// global name, for lockstep peers (publishGoalsEnded): a tick waits for
	// exactly those, however late the machine delivers them, and not for
	// a message a fault froze or holds back.
	sent map[string]time.Time

	// held are messages a Delay fault holds back, in release order per
	// topic; cmds are held-back velocity commands.
	held        map[string][]heldMsg
	cmds        []heldCmd
	lastCmdSent time.Duration // when the newest command reached the base

	navigation
}

type heldMsg struct {
	at  time.Duration
	pub *ros.Publisher
	msg any
}

type heldCmd struct {
	at, sent time.Duration
	cmd      sim.Twist
}

func (n *Node) newFace(r *sim.Robot) *face {
	f := &face{n: n, r: r, held: map[string][]heldMsg{}, said: map[string]bool{}, sent: map[string]time.Time{}}
	if !n.conf.RootNamespace {
		f.ns = r.Name() + "/"
		f.prefix = r.Name() + "/"
	}
	return f
}

func (f *face) topic(name string) string { return f.ns + name }
func (f *face) frame(name string) string { return f.prefix + name }

// advertise creates the robot's topics.
func (f *face) advertise() error {
	n := f.n
	var err error
	pub := func(name string, msg any) *ros.Publisher {
		if err != nil {
			return nil
		}
		var p *ros.Publisher
		p, err = ros.NewPublisher(ros.PublisherConf{Conn: n.conn, Topic: f.topic(name), Msg: msg})
		if err == nil {
			n.closers = append(n.closers, p.Close)
			n.pubs = append(n.pubs, p)
		}
		return p
	}
	f.odomPub = pub(sim.TopicOdom, &nav_msgs.Odometry{})
	f.scanPub = pub(sim.TopicScan, &sensor_msgs.LaserScan{})
	f.batteryPub = pub(sim.TopicBattery, &sensor_msgs.BatteryState{})
	f.bumperPub = pub(sim.TopicBumper, &std_msgs.Bool{})
	f.dockedPub = pub("docked", &std_msgs.Bool{})
	if err != nil {
		return err
	}
	// The count of ended goals, for lockstep peers (bridge.GoalsEndedTopic).
	f.endedPub, err = ros.NewPublisher(ros.PublisherConf{Conn: n.conn, Topic: "~" + f.r.Name() + "/" + bridge.GoalsEndedTopic, Msg: &std_msgs.Header{}, Latch: true})
	if err != nil {
		return err
	}
	n.closers = append(n.closers, f.endedPub.Close)
	// The sensors' periods, for lockstep peers that wait for a tick's
	// messages (bridge.SensorPeriodsParam).
	for topic, rate := range map[string]float64{
		sim.TopicOdom: n.conf.OdomRate, sim.TopicScan: f.r.Conf().Laser.Rate,
		sim.TopicBattery: n.conf.BatteryRate, sim.TopicBumper: n.conf.BumperRate,
		sim.TopicDocked: n.conf.BatteryRate, // with the battery (and on change)
	} {
		param := "~" + bridge.SensorPeriodsParam + n.conn.Resolve(f.topic(topic))
		if err := n.conn.SetParam(param, 1/rate); err != nil {
			return err
		}
		phase := 0.0
		if topic == sim.TopicScan {
			phase = n.step.Seconds() // the scans' schedule starts at the first step
		}
		if err := n.conn.SetParam("~"+bridge.SensorPhasesParam+n.conn.Resolve(f.topic(topic)), phase); err != nil {
			return err
		}
		if topic != sim.TopicScan { // the first scan comes with the first step
			if err := n.conn.SetParam("~"+bridge.SensorsAtZeroParam+n.conn.Resolve(f.topic(topic)), true); err != nil {
				return err
			}
		}
	}
	sub, err := ros.Subscribe(n.conn, f.topic(sim.TopicCmdVel), f.onCmdVel)
	if err != nil {
		return err
	}
	n.closers = append(n.closers, sub.Close)
	return nil
}

// onCmdVel takes a velocity command from the graph.
func (f *face) onCmdVel(t *geometry_msgs.Twist) {
	n := f.n
	n.mu.Lock()
	n.cmdsIn++
	f.command(sim.Twist{Linear: t.Linear.X, Angular: t.Angular.Z})
	n.mu.Unlock()
	n.signal()
}

// command sends a velocity command to the base through cmd_vel's faults,
// whether it came over ROS or from the robot's own move_base, which drives
// the base as the real one does, through cmd_vel.
func (f *face) command(t sim.Twist) {
	fault := f.r.TopicFault(sim.TopicCmdVel)
	now := f.n.w.Now()
	switch {
	case fault.Frozen:
	case fault.Delay > 0:
		f.cmds = append(f.cmds, heldCmd{at: now + fault.Delay, sent: now, cmd: t})
	default:
		f.r.SetCmdVel(t)
		f.lastCmdSent = now
	}
}

// beforeStep releases the velocity commands whose delay is over; a command
// sent after a held one without delay wins over it.
func (f *face) beforeStep(now time.Duration) {
	k := 0
	for ; k < len(f.cmds) && f.cmds[k].at <= now; k++ {
		if c := f.cmds[k]; c.sent >= f.lastCmdSent {
			f.r.SetCmdVel(c.cmd)
			f.lastCmdSent = c.sent
		}
	}
	f.cmds = f.cmds[k:]
}

// emit publishes msg on topic through the topic's faults: dropped when
// frozen, held back when delayed.
func (f *face) emit(out *outbox, topic string, pub *ros.Publisher, msg any) {
	fault := f.r.TopicFault(topic)
	switch {
	case fault.Frozen:
	case fault.Delay > 0:
		f.held[topic] = append(f.held[topic], heldMsg{at: f.n.w.Now() + fault.Delay, pub: pub, msg: msg})
	default:
		f.add(out, pub, msg)
	}
}

// add puts msg in out and notes, on a topic that goes out on change, its
// value as said (face.said), and on a sensor topic its stamp (face.sent).
func (f *face) add(out *outbox, pub *ros.Publisher, msg any) {
	out.add(pub, msg)
	switch m := msg.(type) {
	case *std_msgs.Bool:
		if pub == f.bumperPub || pub == f.dockedPub {
			f.said[pub.Topic()] = m.Data
		}
	case *nav_msgs.Odometry:
		f.sent[pub.Topic()] = m.Header.Stamp
	case *sensor_msgs.LaserScan:
		f.sent[pub.Topic()] = m.Header.Stamp
	case *sensor_msgs.BatteryState:
		f.sent[pub.Topic()] = m.Header.Stamp
	}
}

// publish collects the robot's messages that are due after a step (or at
// time zero when first).
func (f *face) publish(out *outbox, first bool) {
	n, r := f.n, f.r
	now := n.w.Now()
	for topic, hs := range f.held {
		k := 0
		for ; k < len(hs) && hs[k].at <= now; k++ {
			f.add(out, hs[k].pub, hs[k].msg)
		}
		if k == len(hs) {
			delete(f.held, topic)
		} else {
			f.held[topic] = hs[k:]
		}
	}
	stamp := n.Stamp(now)
	if now >= f.nextOdom {
		f.nextOdom = next(f.nextOdom, now, n.conf.OdomRate)
		if !f.frozen(sim.TopicOdom) {
			f.emit(out, sim.TopicOdom, f.odomPub, f.odometry())
		}
		if !f.frozen(sim.TopicTF) {
			f.emit(out, sim.TopicTF, n.tfPub, &tf2_msgs.TFMessage{Transforms: f.transforms()})
		}
	}
	if s, ok := r.Scan(); ok && (!f.scanned || s.Stamp != f.lastScan) {
		f.scanned, f.lastScan = true, s.Stamp
		if !f.frozen(sim.TopicScan) {
			f.emit(out, sim.TopicScan, f.scanPub, f.scan(s))
		}
	}
	batteryDue := now >= f.nextBattery
	if batteryDue {
		f.nextBattery = next(f.nextBattery, now, n.conf.BatteryRate)
		if !f.frozen(sim.TopicBattery) {
			f.emit(out, sim.TopicBattery, f.batteryPub, f.battery(stamp))
		}
	}
	// docked goes out with the battery and at once when it changes.
	docked, _ := r.DockState()
	if isDocked := docked == sim.Docked; first || batteryDue || isDocked != f.lastDocked {
		f.lastDocked = isDocked
		f.emit(out, sim.TopicDocked, f.dockedPub, &std_msgs.Bool{Data: isDocked})
	}
	pressed := r.Bumper().Pressed
	if first || now >= f.nextBumper || pressed != f.lastBumper {
		if now >= f.nextBumper {
			f.nextBumper = next(f.nextBumper, now, n.conf.BumperRate)
		}
		f.lastBumper = pressed
		if !f.frozen(sim.TopicBumper) {
			f.emit(out, sim.TopicBumper, f.bumperPub, &std_msgs.Bool{Data: pressed})
		}
	}
}

func (f *face) frozen(topic string) bool { return f.r.TopicFault(topic).Frozen }

// topicFaults names the robot's sensor topics a fault freezes or delays
// now, by global name ("frozen", "delayed"), for lockstep peers
// (publishGoalsEnded): their messages do not come on their schedule, and a
// tick must not wait for them.
func (f *face) topicFaults() map[string]string {
	var faults map[string]string
	for _, t := range []struct {
		name string
		pub  *ros.Publisher
	}{{sim.TopicOdom, f.odomPub}, {sim.TopicScan, f.scanPub}, {sim.TopicBattery, f.batteryPub},
		{sim.TopicBumper, f.bumperPub}, {sim.TopicDocked, f.dockedPub}} {
		if t.pub == nil {
			continue
		}
		kind := ""
		switch fault := f.r.TopicFault(t.name); {
		case fault.Frozen:
			kind = "frozen"
		case fault.Delay > 0 || len(f.held[t.name]) > 0:
			kind = "delayed"
		}
		if kind != "" {
			if faults == nil {
				faults = map[string]string{}
			}
			faults[t.pub.Topic()] = kind
		}
	}
	return faults
}

// next returns the first multiple of the period after due that is later
// than now: messages fall on the first step at or after each multiple, so
// their average rate is exact whatever the physics step.
func next(due, now time.Duration, rate float64) time.Duration {
	period := time.Duration(float64(time.Second) / rate)
	if period <= 0 {
		period = 1
	}
	for due <= now {
		due += period
	}
	return due
}

func (f *face) odometry() *nav_msgs.Odometry {
	o := f.r.Odometry()
	m := &nav_msgs.Odometry{
		Header:       std_msgs.Header{Stamp: f.n.Stamp(o.Stamp), FrameId: f.frame("odom")},
		ChildFrameId: f.frame("base_link"),
	}
	m.Pose.Pose = poseMsg(o.Pose)
	m.Twist.Twist.Linear.X = o.Twist.Linear
	m.Twist.Twist.Angular.Z = o.Twist.Angular
	// Planar odometry: x, y and yaw are estimated, z, roll and pitch are
	// fixed (a large variance says "do not use", as diff_drive_controller
	// does).
	for k, v := range [6]float64{1e-3, 1e-3, 1e6, 1e6, 1e6, 1e-3} {
		m.Pose.Covariance[7*k] = v
		m.Twist.Covariance[7*k] = v
	}
	return m
}

// transforms returns the robot's tf: map -> odom (what a localiser such as
// amcl would publish; the simulator localises perfectly, so it absorbs the
// odometry's drift) and odom -> base_link (odometry).
func (f *face) transforms() []geometry_msgs.TransformStamped {
	o := f.r.Odometry()
	truth := f.r.Pose()
	// map->odom is the pose P with P.Compose(odom) == truth.
	mapToOdom := truth.Compose(o.Pose.Relative(sim.Pose{}))
	stamp := f.n.Stamp(o.Stamp)
	return []geometry_msgs.TransformStamped{
		transform(stamp, "map", f.frame("odom"), mapToOdom),
		transform(stamp, f.frame("odom"), f.frame("base_link"), o.Pose),
	}
}

func transform(stamp time.Time, parent, child string, p sim.Pose) geometry_msgs.TransformStamped {
	return geometry_msgs.TransformStamped{
		Header:       std_msgs.Header{Stamp: stamp, FrameId: parent},
		ChildFrameId: child,
		Transform: geometry_msgs.Transform{
			Translation: geometry_msgs.Vector3{X: p.X, Y: p.Y},
			Rotation:    quaternion(p.Yaw),
		},
	}
}

func (f *face) scan(s *sim.LaserScan) *sensor_msgs.LaserScan {
	return &sensor_msgs.LaserScan{
		Header:         std_msgs.Header{Stamp: f.n.Stamp(s.Stamp), FrameId: f.frame("base_scan")},
		AngleMin:       float32(s.AngleMin),
		AngleMax:       float32(s.AngleMax),
		AngleIncrement: float32(s.AngleIncrement),
		TimeIncrement:  float32(s.TimeIncrement),
		ScanTime:       float32(s.ScanTime),
		RangeMin:       float32(s.RangeMin),
		RangeMax:       float32(s.RangeMax),
		Ranges:         s.Ranges,
	}
}

func (f *face) battery(stamp time.Time) *sensor_msgs.BatteryState {
	b := f.r.Battery()
	health := uint8(1) // GOOD
	if b.Percentage <= 0 {
		health = 3 // DEAD
	}
	return &sensor_msgs.BatteryState{
		Header:                std_msgs.Header{Stamp: stamp, FrameId: f.frame("base_link")},
		Voltage:               float32(b.Voltage),
		Temperature:           float32(math.NaN()), // not measured, as the message says
		Current:               float32(b.Current),
		Charge:                float32(b.Charge),
		Capacity:              float32(b.Capacity),
		DesignCapacity:        float32(b.Capacity),
		Percentage:            float32(b.Percentage),
		PowerSupplyStatus:     uint8(b.Status),
		PowerSupplyHealth:     health,
		PowerSupplyTechnology: 2, // LION
		Present:               b.Present,
		Location:              strings.TrimSuffix(f.prefix, "/"),
	}
}

func poseMsg(p sim.Pose) geometry_msgs.Pose {
	return geometry_msgs.Pose{Position: geometry_msgs.Point{X: p.X, Y: p.Y}, Orientation: quaternion(p.Yaw)}
}

func quaternion(yaw float64) geometry_msgs.Quaternion {
	return geometry_msgs.Quaternion{Z: math.Sin(yaw / 2), W: math.Cos(yaw / 2)}
}

// yawOf returns the heading of a quaternion and false if it is not a
// rotation (zero length), as move_base rejects such goals.
func yawOf(q geometry_msgs.Quaternion) (float64, bool) {
	norm := math.Sqrt(q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W)
	if !(norm > 1e-6) {
		return 0, false
	}
	x, y, z, w := q.X/norm, q.Y/norm, q.Z/norm, q.W/norm
	return math.Atan2(2*(w*z+x*y), 1-2*(y*y+z*z)), true
}
