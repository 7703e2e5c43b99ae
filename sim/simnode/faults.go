package simnode

import (
	"fmt"
	"math"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/sim"
)

// The fault-injection interface over ROS, under the node's private
// namespace (/sim/ for a node called sim), with std types. Services answer
// with success and a message; topics report on ~events, where every fault
// applied or refused is announced. Faults act between two physics steps,
// when they arrive; from Go, Node.At applies them at an exact time.
//
//	~<robot>/stop_move_base      std_srvs/SetBool   true stops the robot's move_base server, false restarts it
//	~<robot>/stall_left_wheel    std_srvs/SetBool   true stalls the wheel, false frees it
//	~<robot>/stall_right_wheel   std_srvs/SetBool
//	~<robot>/freeze/<topic>      std_srvs/SetBool   true stops the topic's messages (cmd_vel: drops commands)
//	~<robot>/delay/<topic>       std_msgs/Float32   holds the topic's messages back by that many simulated seconds (0: no delay)
//	~<robot>/battery_level       std_msgs/Float32   sets the charge, a fraction in [0, 1]
//	~place_obstacle              geometry_msgs/PolygonStamped   a box over the polygon's points, named by header.frame_id
//	~remove_obstacle             std_msgs/String    removes the obstacle of that name
//
// <topic> is one of cmd_vel, odom, scan, battery_state, bumper, docked, tf.

func (n *Node) advertiseFaults() error {
	if err := subscribe(n, "~place_obstacle", n.onPlaceObstacle); err != nil {
		return err
	}
	if err := subscribe(n, "~remove_obstacle", n.onRemoveObstacle); err != nil {
		return err
	}
	for _, f := range n.faces {
		if err := f.advertiseFaults(); err != nil {
			return err
		}
	}
	return nil
}

// subscribe subscribes cb to topic for the node's lifetime.
func subscribe[T any](n *Node, topic string, cb func(*T)) error {
	sub, err := ros.Subscribe(n.conn, topic, cb)
	if err != nil {
		return err
	}
	n.closers = append(n.closers, sub.Close)
	return nil
}

// serve provides a service for the node's lifetime.
func (n *Node) serve(name string, srv any, handler func(req any) (any, error)) error {
	s, err := ros.NewServiceServer(ros.ServiceServerConf{Conn: n.conn, Name: name, Srv: srv, Handler: handler})
	if err != nil {
		return err
	}
	n.closers = append(n.closers, s.Close)
	return nil
}

// setBool serves a std_srvs/SetBool fault: apply runs under the node's lock
// and returns what the response says.
func (n *Node) setBool(name string, apply func(on bool) (string, error)) error {
	return n.serve(name, &std_srvs.SetBool{}, func(req any) (any, error) {
		on := req.(*std_srvs.SetBoolReq).Data
		n.mu.Lock()
		msg, err := apply(on)
		if err != nil {
			msg = "error: " + err.Error()
		}
		n.event("%s", msg)
		n.mu.Unlock()
		n.signal()
		n.flushEvents()
		return &std_srvs.SetBoolRes{Success: err == nil, Message: msg}, nil
	})
}

// apply runs a topic-borne fault under the node's lock and announces it.
func (n *Node) apply(fault func() (string, error)) {
	n.mu.Lock()
	msg, err := fault()
	if err != nil {
		msg = "error: " + err.Error()
	}
	n.event("%s", msg)
	n.mu.Unlock()
	n.signal()
	n.flushEvents()
}

func (f *face) advertiseFaults() error {
	n, r := f.n, f.r
	base := "~" + r.Name() + "/"
	if err := n.setBool(base+"stop_move_base", func(stop bool) (string, error) {
		r.SetNavigationDown(stop)
		f.checkNavigationDown()
		if stop {
			return fmt.Sprintf("%s: stopping move_base", r.Name()), nil
		}
		return fmt.Sprintf("%s: restarting move_base", r.Name()), nil
	}); err != nil {
		return err
	}
	for _, w := range []sim.Wheel{sim.LeftWheel, sim.RightWheel} {
		if err := n.setBool(base+"stall_"+w.String()+"_wheel", func(on bool) (string, error) {
			if err := r.StallWheel(w, on); err != nil {
				return "", err
			}
			if on {
				return fmt.Sprintf("%s: %s wheel stalled", r.Name(), w), nil
			}
			return fmt.Sprintf("%s: %s wheel free", r.Name(), w), nil
		}); err != nil {
			return err
		}
	}
	for _, topic := range sim.FaultTopics {
		if err := n.setBool(base+"freeze/"+topic, func(on bool) (string, error) {
			fault := r.TopicFault(topic)
			fault.Frozen = on
			if err := r.SetTopicFault(topic, fault); err != nil {
				return "", err
			}
			if on {
				return fmt.Sprintf("%s: %s frozen", r.Name(), topic), nil
			}
			return fmt.Sprintf("%s: %s flowing", r.Name(), topic), nil
		}); err != nil {
			return err
		}
		if err := subscribe(n, base+"delay/"+topic, func(m *std_msgs.Float32) {
			n.apply(func() (string, error) {
				s := float64(m.Data)
				if !(s >= 0) || math.IsInf(s, 0) || s > 3600 {
					return "", fmt.Errorf("%s: delay of %s: %v s; want seconds in [0, 3600]", r.Name(), topic, m.Data)
				}
				fault := r.TopicFault(topic)
				fault.Delay = time.Duration(s * float64(time.Second))
				if err := r.SetTopicFault(topic, fault); err != nil {
					return "", err
				}
				return fmt.Sprintf("%s: %s delayed by %v", r.Name(), topic, fault.Delay), nil
			})
		}); err != nil {
			return err
		}
	}
	return subscribe(n, base+"battery_level", func(m *std_msgs.Float32) {
		n.apply(func() (string, error) {
			if err := r.SetBatteryLevel(float64(m.Data)); err != nil {
				return "", err
			}
			return fmt.Sprintf("%s: battery at %.0f%%", r.Name(), 100*m.Data), nil
		})
	})
}

func (n *Node) onPlaceObstacle(m *geometry_msgs.PolygonStamped) {
	n.apply(func() (string, error) {
		name := m.Header.FrameId
		if len(m.Polygon.Points) == 0 {
			return "", fmt.Errorf("place obstacle %q: the polygon has no points", name)
		}
		box := sim.Rect{MinX: math.Inf(1), MinY: math.Inf(1), MaxX: math.Inf(-1), MaxY: math.Inf(-1)}
		for _, p := range m.Polygon.Points {
			box.MinX = math.Min(box.MinX, float64(p.X))
			box.MinY = math.Min(box.MinY, float64(p.Y))
			box.MaxX = math.Max(box.MaxX, float64(p.X))
			box.MaxY = math.Max(box.MaxY, float64(p.Y))
		}
		if err := n.w.PlaceObstacle(name, box); err != nil {
			return "", err
		}
		return fmt.Sprintf("obstacle %s placed at %v", name, box), nil
	})
}

func (n *Node) onRemoveObstacle(m *std_msgs.String) {
	n.apply(func() (string, error) {
		if err := n.w.RemoveObstacle(m.Data); err != nil {
			return "", err
		}
		return fmt.Sprintf("obstacle %s removed", m.Data), nil
	})
}
