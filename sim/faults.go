package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// This file holds the fault-injection API. Faults that change the physics
// (battery, obstacles, wheels) act in the core; faults of the ROS face
// (frozen or delayed topics, a stopped move_base server) are flags here that
// the ROS node reads and honours.

// SetBatteryLevel sets the robot's charge to level, a fraction in [0, 1], as
// if the battery had drained (or been swapped). At 0 the motors cut out.
func (r *Robot) SetBatteryLevel(level float64) error {
	if !(level >= 0 && level <= 1) {
		return fmt.Errorf("battery level %v for robot %s: want a fraction in [0, 1]", level, r.conf.Name)
	}
	r.battery.level = level
	return nil
}

// StallWheel stalls (or frees) one drive wheel: a stalled wheel does not turn
// whatever the base is asked, so the robot pivots about it or stops; the
// encoders report the stall truthfully.
func (r *Robot) StallWheel(w Wheel, stalled bool) error {
	if w != LeftWheel && w != RightWheel {
		return fmt.Errorf("stall wheel %v on robot %s: want LeftWheel or RightWheel", w, r.conf.Name)
	}
	r.stalled[w] = stalled
	return nil
}

// WheelStalled reports whether a wheel is stalled.
func (r *Robot) WheelStalled(w Wheel) bool {
	return (w == LeftWheel || w == RightWheel) && r.stalled[w]
}

// Topics of a robot's ROS face that faults can freeze or delay, relative to
// the robot's namespace.
const (
	TopicCmdVel  = "cmd_vel"
	TopicOdom    = "odom"
	TopicScan    = "scan"
	TopicBattery = "battery_state"
	TopicBumper  = "bumper"
	TopicDocked  = "docked"
	TopicTF      = "tf"
)

// FaultTopics lists the topics SetTopicFault accepts.
var FaultTopics = []string{TopicCmdVel, TopicOdom, TopicScan, TopicBattery, TopicBumper, TopicDocked, TopicTF}

// TopicFault is a fault on one topic of a robot's ROS face: Frozen stops its
// messages (for cmd_vel: incoming commands are dropped), Delay holds each
// message back by that much simulated time.
type TopicFault struct {
	Frozen bool
	Delay  time.Duration
}

// SetTopicFault sets the fault on one of the robot's topics; the zero
// TopicFault clears it. The core only records it: the ROS node applies it.
func (r *Robot) SetTopicFault(topic string, f TopicFault) error {
	if !slices.Contains(FaultTopics, topic) {
		return fmt.Errorf("topic fault on %q for robot %s: no such topic; want one of %s", topic, r.conf.Name, strings.Join(FaultTopics, ", "))
	}
	if f.Delay < 0 {
		return fmt.Errorf("topic fault on %q for robot %s: delay %v is negative", topic, r.conf.Name, f.Delay)
	}
	if f == (TopicFault{}) {
		delete(r.topicFaults, topic)
		return nil
	}
	if r.topicFaults == nil {
		r.topicFaults = map[string]TopicFault{}
	}
	r.topicFaults[topic] = f
	return nil
}

// TopicFault returns the fault set on a topic, the zero TopicFault if none.
func (r *Robot) TopicFault(topic string) TopicFault { return r.topicFaults[topic] }

// SetNavigationDown marks the robot's move_base server as stopped (true) or
// restarted (false). The ROS node stops serving goals while it is down.
func (r *Robot) SetNavigationDown(down bool) { r.navDown = down }

// NavigationDown reports whether the move_base server is marked stopped.
func (r *Robot) NavigationDown() bool { return r.navDown }

// Obstacle is a box placed in the world as a fault (a pallet blocking a
// corridor). Robots collide with it and lasers see it.
type Obstacle struct {
	Name string
	Rect Rect
}

// PlaceObstacle puts a box in the world. The name must be new, the box
// non-empty and clear of every robot.
func (w *World) PlaceObstacle(name string, box Rect) error {
	switch {
	case name == "":
		return fmt.Errorf("place obstacle: missing name")
	case isNaNOrInf(box.MinX) || isNaNOrInf(box.MinY) || isNaNOrInf(box.MaxX) || isNaNOrInf(box.MaxY):
		return fmt.Errorf("place obstacle %q: %v is not finite", name, box)
	case !(box.MinX < box.MaxX && box.MinY < box.MaxY):
		return fmt.Errorf("place obstacle %q: %v is empty; want MinX < MaxX and MinY < MaxY", name, box)
	}
	for _, o := range w.obstacles {
		if o.Name == name {
			return fmt.Errorf("place obstacle %q: already placed at %v", name, o.Rect)
		}
	}
	for _, r := range w.robots {
		// The box occupies whole cells; compare against its cell footprint.
		if d := distanceToRect(r.pose.X, r.pose.Y, box); d < r.conf.Radius+w.live.Resolution {
			return fmt.Errorf("place obstacle %q: %v would overlap robot %s at %v", name, box, r.conf.Name, r.pose)
		}
	}
	w.obstacles = append(w.obstacles, Obstacle{Name: name, Rect: box})
	w.rebuildLive()
	return nil
}

// RemoveObstacle takes away the obstacle called name.
func (w *World) RemoveObstacle(name string) error {
	for k, o := range w.obstacles {
		if o.Name == name {
			w.obstacles = slices.Delete(w.obstacles, k, k+1)
			w.rebuildLive()
			return nil
		}
	}
	names := make([]string, len(w.obstacles))
	for k, o := range w.obstacles {
		names[k] = o.Name
	}
	if len(names) == 0 {
		return fmt.Errorf("remove obstacle %q: no obstacles are placed", name)
	}
	return fmt.Errorf("remove obstacle %q: no such obstacle (placed: %s)", name, strings.Join(names, ", "))
}

// Obstacles returns the placed obstacles in the order they were placed.
func (w *World) Obstacles() []Obstacle { return slices.Clone(w.obstacles) }

func (w *World) rebuildLive() {
	w.live = w.static.Clone()
	for _, o := range w.obstacles {
		w.live.FillRect(o.Rect, Occupied)
	}
	w.field = laserField(w.live)
	w.revision++
}

// laserField returns each cell's distance in cells to the nearest occupied
// cell, which lets laser beams leap across open space.
func laserField(g *Grid) []float32 {
	d := distanceTransform(g, func(c Cell) bool { return c == Occupied })
	f := make([]float32, len(d))
	for k, v := range d {
		// Rounded down so that the leap stays on the safe side.
		f[k] = float32(v/g.Resolution) * (1 - 1e-6)
	}
	return f
}
