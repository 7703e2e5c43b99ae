package skills

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

//go:generate go run ../runtime/internal/nodedocs/gen -pkg skills -base runtime.Leaf

// Deps is everything the skills need from the program that registers them.
// Only Conn is needed to tick the skills that talk to ROS (NavigateTo,
// FollowWaypoints, Dock, Undock, ClaimPlace, ReleasePlace); without it
// (btrobot check, btrobot nodes) trees are still checked in full, and the
// skills that work on the blackboard alone still run.
type Deps struct {
	// Conn is the robot's ROS connection; nil when trees are only checked.
	Conn *ros.Conn
	// Profile is the robot profile the tree runs with: the blackboard keys
	// its bridge latches (odometry, laser, battery, bumper) and publishes
	// (velocity) are found in it, and its "navigate" action names the
	// navigation server and its timeouts.
	Profile *bridge.Profile
	// Places are the world's named places, which trees may name wherever
	// they give a pose (a waypoint or a dock).
	Places *places.Places
	// OdomOrigin is the pose of the odom frame's origin in the map frame,
	// so that odometry gives the robot's map pose when the profile latches
	// no map pose (Keys.Pose). The simulator's odometry starts at the
	// robot's spawn pose.
	OdomOrigin Pose
	// Keys overrides the blackboard keys found in the profile.
	Keys Keys
	// Log receives what Log nodes say (nodes never print). When nil, the
	// lines go to /rosout through Conn, or nowhere.
	Log func(LogEntry)
	// Robot names this robot among a fleet (ClaimPlace); by default the
	// last element of Conn's namespace, else Conn's node name.
	Robot string
	// Navigation is the move_base action server of NavigateTo and
	// FollowWaypoints: an action of the profile, or a server's ROS name
	// ["navigate" when the profile has it, else "move_base"].
	Navigation string
	// Docking is the docking interface of Dock and Undock (see the package
	// documentation) [DefaultDocking].
	Docking Docking
}

// Keys name the root blackboard entries through which the skills meet the
// robot. Empty fields are filled from the profile (the input of the right
// message type, the output on the profile's velocity topic), else with the
// defaults in brackets, which are the names robots/sim.yaml uses.
type Keys struct {
	// Odom holds the newest nav_msgs/Odometry ["odom"].
	Odom string
	// Scan holds the newest sensor_msgs/LaserScan ["scan"].
	Scan string
	// Battery holds the newest sensor_msgs/BatteryState ["battery"].
	Battery string
	// Bumper holds a bool, true while the bumper is pressed
	// ["bumper_pressed"].
	Bumper string
	// Docked, when set, holds a bool, true while the robot is on a dock;
	// otherwise the battery's power supply status tells (charging or full
	// means docked).
	Docked string
	// Pose, when set, holds the robot's pose in the map frame (a
	// geometry_msgs/PoseWithCovarianceStamped, as amcl publishes it, or a
	// PoseStamped); otherwise odometry and Deps.OdomOrigin give it.
	Pose string
	// Velocity is the entry the bridge publishes as the velocity command, a
	// geometry_msgs/Twist ["cmd_vel"].
	Velocity string
}

// LogEntry is one line a Log node says.
type LogEntry struct {
	Time  time.Time
	Node  string // the node's path
	Level Level
	Text  string
}

// Level is the severity of a log line.
type Level int

// The levels of Log nodes.
const (
	Debug Level = iota
	Info
	Warn
	Error
)

var levelNames = [...]string{"debug", "info", "warn", "error"}

func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// UnmarshalText reads debug, info, warn or error.
func (l *Level) UnmarshalText(b []byte) error {
	s := strings.ToLower(strings.TrimSpace(string(b)))
	for i, n := range levelNames {
		if n == s || (n == "warn" && s == "warning") {
			*l = Level(i)
			return nil
		}
	}
	return fmt.Errorf("%q is not a level (debug, info, warn or error)", string(b))
}

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// env is what every skill holds: the deps, resolved once at registration.
type env struct {
	Deps
	keys Keys

	fleetMu sync.Mutex
	fleets  map[string]*fleet // by claim topic
}

// Register adds the skills to reg, in the "skills" category. It checks
// deps (the places, the docking interface) and returns every problem at
// once.
func Register(reg *runtime.Registry, deps Deps) error {
	if reg == nil {
		return errors.New("skills: no registry")
	}
	e, err := newEnv(deps)
	if err != nil {
		return err
	}
	for _, t := range nodeTypes(e) {
		t.Category = "skills"
		if t.Doc == "" {
			t.Doc = runtime.DocOf(&t, nodeDocs)
		}
		if err := reg.Register(t); err != nil {
			return fmt.Errorf("skills: %w", err)
		}
	}
	return nil
}

func newEnv(d Deps) (*env, error) {
	var errs []error
	if err := d.Places.Check(); err != nil {
		errs = append(errs, err)
	}
	if d.Docking == (Docking{}) {
		d.Docking = DefaultDocking
	}
	if err := d.Docking.check(); err != nil {
		errs = append(errs, err)
	}
	if d.Navigation == "" {
		d.Navigation = "move_base"
		if d.Profile != nil {
			if _, ok := d.Profile.Action("navigate"); ok {
				d.Navigation = "navigate"
			}
		}
	}
	if d.Robot == "" && d.Conn != nil {
		d.Robot = ros.RobotName(d.Conn)
	}
	e := &env{Deps: d, keys: resolveKeys(d.Keys, d.Profile)}
	return e, errors.Join(errs...)
}

// resolveKeys fills the keys the caller left empty from the profile, then
// with the defaults.
func resolveKeys(k Keys, p *bridge.Profile) Keys {
	if p != nil {
		for _, in := range p.Inputs {
			topic := strings.ToLower(in.Topic)
			switch in.Type.Name {
			case "nav_msgs/Odometry":
				setIfEmpty(&k.Odom, in.Key)
			case "sensor_msgs/LaserScan":
				setIfEmpty(&k.Scan, in.Key)
			case "sensor_msgs/BatteryState":
				setIfEmpty(&k.Battery, in.Key)
			case "geometry_msgs/PoseWithCovarianceStamped", "geometry_msgs/PoseStamped":
				setIfEmpty(&k.Pose, in.Key)
			case "std_msgs/Bool":
				for _, f := range in.Fields {
					if f.Path != "data" {
						continue
					}
					switch {
					case strings.Contains(topic, "bump"):
						setIfEmpty(&k.Bumper, f.Key)
					case strings.Contains(topic, "dock"):
						setIfEmpty(&k.Docked, f.Key)
					}
				}
			}
		}
		for _, out := range p.Outputs {
			if out.Key != "" && out.Topic == p.Safety.VelocityTopic {
				setIfEmpty(&k.Velocity, out.Key)
			}
		}
	}
	setIfEmpty(&k.Odom, "odom")
	setIfEmpty(&k.Scan, "scan")
	setIfEmpty(&k.Battery, "battery")
	setIfEmpty(&k.Bumper, "bumper_pressed")
	setIfEmpty(&k.Velocity, "cmd_vel")
	return k
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// nodeTypes is the skills palette.
func nodeTypes(e *env) []runtime.NodeType {
	return []runtime.NodeType{
		navigateToType(e),
		followWaypointsType(e),
		spinType(e),
		driveDistanceType(e, "DriveDistance"),
		driveDistanceType(e, "BackUp"),
		stopType(e),
		dockType(e),
		undockType(e),
		waitForChargeType(e),
		batteryAboveType(e),
		isDockedType(e),
		obstacleWithinType(e),
		atPoseType(e),
		topicFreshType(e),
		logType(e),
		setPlaceType(e),
		popPlaceType(e),
		claimPlaceType(e),
		releasePlaceType(e),
	}
}

// errNoConn is what a skill that talks to ROS returns on a tree built
// without a connection.
var errNoConn = errors.New("no ROS connection: the tree was built for checking only (skills.Deps without Conn)")

// nearest returns the names closest to s, for "did you mean".
func nearest(s string, names []string) []string { return runtime.NearestNames(s, names, 2) }
