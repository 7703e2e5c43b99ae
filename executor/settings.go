package executor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/ros"
)

// Settings are what `btrobot serve` takes from its flags or, as roslaunch
// gives them, from the node's private parameters: ~missions, ~robot,
// ~places, ~preempt, ~record_dir, ~rate and ~watch. A flag given on the
// command line wins over its parameter (as for `btrobot run`).
type Settings struct {
	Missions, Robot, Places string
	Preempt                 string
	RecordDir               string
	// Rate is 0 when not set.
	Rate float64
	// Watch is set by ~watch: true, or --watch.
	Watch bool
}

// ReadSettings reads the private parameters of conn's node. A parameter
// not set leaves its setting empty; one of the wrong type, or a preempt or
// rate that is not one, is an error naming the parameter (all of them at
// once).
func ReadSettings(conn *ros.Conn) (Settings, error) {
	var s Settings
	var errs []error
	bad := func(name, want string, err error) {
		errs = append(errs, fmt.Errorf("private parameter %s: want %s: %v", conn.Resolve("~"+name), want, err))
	}
	set := func(name string) bool {
		ok, err := conn.HasParam("~" + name)
		return err == nil && ok
	}
	for _, p := range []struct {
		name, want string
		to         *string
	}{
		{"missions", "a directory", &s.Missions}, {"robot", "a file name", &s.Robot}, {"places", "a file or directory", &s.Places},
		{"preempt", "replace, update, queue or reject", &s.Preempt}, {"record_dir", "a directory", &s.RecordDir},
	} {
		if !set(p.name) {
			continue
		}
		v, err := conn.ParamString("~" + p.name)
		if err != nil {
			bad(p.name, p.want, err)
			continue
		}
		*p.to = strings.TrimSpace(v)
	}
	if s.Preempt != "" {
		if _, err := ParsePreempt(s.Preempt, Replace); err != nil {
			bad("preempt", "replace, update, queue or reject", err)
		}
	}
	if set("rate") {
		r, err := conn.ParamFloat64("~rate")
		switch {
		case err != nil:
			bad("rate", "a positive number of Hz", err)
		case mission.CheckRate(r) != nil:
			bad("rate", "a positive number of Hz", mission.CheckRate(r))
		default:
			s.Rate = r
		}
	}
	if set("watch") {
		w, err := conn.ParamBool("~watch")
		if err != nil {
			bad("watch", "true or false", err)
		}
		s.Watch = w
	}
	return s, errors.Join(errs...)
}

// Fill takes from the parameters p what the flags in s left unset; given
// says which flags were given on the command line (by flag name).
func (s Settings) Fill(p Settings, given func(flag string) bool) Settings {
	for _, f := range []struct {
		flag     string
		to, from *string
	}{
		{"missions", &s.Missions, &p.Missions}, {"robot", &s.Robot, &p.Robot}, {"places", &s.Places, &p.Places},
		{"preempt", &s.Preempt, &p.Preempt}, {"record-dir", &s.RecordDir, &p.RecordDir},
	} {
		if !given(f.flag) {
			*f.to = *f.from
		}
	}
	if !given("rate") {
		s.Rate = p.Rate
	}
	if !given("watch") {
		s.Watch = p.Watch
	}
	return s
}
