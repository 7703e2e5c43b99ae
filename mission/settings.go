package mission

import (
	"errors"
	"fmt"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
)

// Settings are the files and the rate of a run, as a node takes them from
// its private parameters (~tree, ~robot, ~places, ~rate), the way
// roslaunch configures a node:
//
//	<node name="btrobot" pkg="btrobot" type="btrobot" args="run">
//	  <param name="tree" value="$(find btrobot)/trees/missions/patrol.xml"/>
//	</node>
type Settings struct {
	// Node is the full name of the node whose parameters these are
	// (/robot1/btrobot); set by ReadSettings.
	Node                string
	Tree, Robot, Places string
	// Rate is 0 when ~rate is not set.
	Rate float64
}

// ReadSettings joins the ROS graph as conf says, reads the node's private
// parameters ~tree, ~robot, ~places and ~rate (those set with _tree:=...
// on the command line among them), and leaves again. A parameter that is
// not set leaves its setting empty; one of the wrong type or range is an
// error naming it. Joining the graph fails with a *ConnectError.
func ReadSettings(conf ros.Conf) (Settings, error) {
	conf.OnLog = nil
	conn, err := ros.Connect(conf)
	if err != nil {
		return Settings{}, &ConnectError{err}
	}
	defer conn.Close()
	s := Settings{Node: conn.Name()}
	var errs []error
	for _, p := range []struct {
		name string
		to   *string
	}{{"tree", &s.Tree}, {"robot", &s.Robot}, {"places", &s.Places}} {
		if set, err := conn.HasParam("~" + p.name); err != nil || !set {
			continue
		}
		v, err := conn.ParamString("~" + p.name)
		if err != nil {
			errs = append(errs, fmt.Errorf("private parameter %s: want a file name: %v", conn.Resolve("~"+p.name), err))
			continue
		}
		*p.to = v
	}
	if set, err := conn.HasParam("~rate"); err == nil && set {
		r, err := conn.ParamFloat64("~rate")
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("private parameter %s: want a positive number of Hz: %v", conn.Resolve("~rate"), err))
		case CheckRate(r) != nil:
			errs = append(errs, fmt.Errorf("private parameter %s = %v: %v", conn.Resolve("~rate"), r, CheckRate(r)))
		default:
			s.Rate = r
		}
	}
	return s, errors.Join(errs...)
}

// CheckRate says what is wrong with a tick rate given on the command line
// or as a private parameter: the range is a profile's (bridge.CheckRate).
func CheckRate(hz float64) error {
	if bridge.CheckRate(hz) != nil {
		return fmt.Errorf("want a positive number of Hz, %v to %v Hz", bridge.MinTickRate, bridge.MaxTickRate)
	}
	return nil
}

// Fill takes from the private parameters p what the flags in s left unset
// (the rate only when rateGiven is false).
func (s Settings) Fill(p Settings, rateGiven bool) Settings {
	if s.Tree == "" {
		s.Tree = p.Tree
	}
	if s.Robot == "" {
		s.Robot = p.Robot
	}
	if s.Places == "" {
		s.Places = p.Places
	}
	if !rateGiven {
		s.Rate = p.Rate
	}
	return s
}
