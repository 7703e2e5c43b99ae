package bridge

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Deps is what the generic ROS nodes need from the program that registers
// them. Only Conn is needed to tick; without it (btrobot check, btrobot
// nodes) trees are still checked in full: types, field paths, scripts, and
// the profile's names.
type Deps struct {
	// Conn is the ROS connection the nodes talk through; nil when trees are
	// only checked.
	Conn *ros.Conn
	// Profile, when set, names the actions and services nodes may use by
	// name, with their timeouts.
	Profile *Profile
	// Messages resolves type names; the Conn's, else BuiltinMessages.
	Messages *ros.Messages
}

func (d Deps) messages() *ros.Messages {
	switch {
	case d.Messages != nil:
		return d.Messages
	case d.Conn != nil:
		return d.Conn.Messages()
	default:
		return ros.BuiltinMessages()
	}
}

// errNoConn is what a ROS node's tick returns in a tree built without a
// connection.
var errNoConn = errors.New("no ROS connection: the tree was built for checking only (ros.Deps without Conn)")

// Register adds the generic ROS nodes to reg: Publish, TopicCondition,
// CallService and RunAction, in the "ros" category.
func Register(reg *runtime.Registry, deps Deps) error {
	for _, t := range []runtime.NodeType{
		publishType(deps),
		topicConditionType(deps),
		callServiceType(deps),
		runActionType(deps),
	} {
		t.Category = "ros"
		if err := reg.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// literalPort returns the text of a port that must be written in the tree
// (not read from the blackboard), or "" when absent.
func literalPort(c *runtime.Config, name string) (string, error) {
	raw, given := c.Attr(name)
	if !given {
		v, _ := runtime.LiteralAs[string](c, name)
		return v, nil
	}
	if _, isKey := runtime.BlackboardKey(raw, name); isKey {
		return "", fmt.Errorf("port %q must be written in the tree, not read from the blackboard (%s): it is needed when the tree is built", name, raw)
	}
	return strings.TrimSpace(raw), nil
}

// topicPorts reads the literal ports topic and msg_type that Publish and
// TopicCondition share: a valid ROS name and a known message type.
func topicPorts(c *runtime.Config, deps Deps) (string, ros.MessageType, error) {
	topic, err := literalPort(c, "topic")
	if err != nil {
		return "", ros.MessageType{}, err
	}
	if err := ros.CheckName(topic); err != nil {
		return "", ros.MessageType{}, &runtime.PortError{Port: "topic", Err: err}
	}
	typeName, err := literalPort(c, "msg_type")
	if err != nil {
		return "", ros.MessageType{}, err
	}
	t, err := deps.messages().LookupKind(typeName, ros.MessageKind)
	if err != nil {
		return "", ros.MessageType{}, &runtime.PortError{Port: "msg_type", Err: err}
	}
	return topic, t, nil
}

// durationPort returns a literal duration port, and whether the tree wrote
// it (rather than taking the default).
func durationPort(c *runtime.Config, name string) (time.Duration, bool) {
	_, given := c.Attr(name)
	d, _ := runtime.LiteralAs[time.Duration](c, name)
	return d, given
}

// The "fields" ports of the ROS nodes fill or read message fields:
//
//	goal_fields="target_pose.header.frame_id=map; target_pose.pose.position.x={x}"
//	result_fields="success={ok}; message={why}"
//
// A value is a literal, parsed once into the field's type when the tree is
// built, or a {key} read from the blackboard when the message is built.

// assignment is one "path=value" of a fields port.
type assignment struct {
	path  fieldPath
	key   string        // blackboard key, or
	value reflect.Value // the parsed literal
}

func parseAssignments(src string, t ros.MessageType) ([]assignment, error) {
	var out []assignment
	var errs []string
	for _, part := range splitFields(src) {
		path, value, ok := strings.Cut(part, "=")
		path, value = strings.TrimSpace(path), strings.TrimSpace(value)
		if !ok || path == "" {
			errs = append(errs, fmt.Sprintf("%q: write field=value or field={key}", strings.TrimSpace(part)))
			continue
		}
		fp, err := compilePath(t.Go, t.Name, path)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		a := assignment{path: fp}
		if key, isKey := runtime.BlackboardKey(value, path); isKey {
			a.key = key
		} else {
			v, err := convertValue(unquote(value), fp.leaf)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, err))
				continue
			}
			a.value = v
		}
		out = append(out, a)
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return out, nil
}

// apply fills the fields of msg, a pointer to a message.
func applyAssignments(n runtime.Node, msg reflect.Value, as []assignment) error {
	bb := runtime.NodeOf(n).Blackboard()
	for i := range as {
		a := &as[i]
		var v any
		if a.key != "" {
			x, ok := bb.Get(a.key)
			if !ok {
				return fmt.Errorf("field %s: blackboard entry %q is not set", a.path.text, a.key)
			}
			v = x
		} else {
			v = a.value.Interface()
		}
		if err := a.path.set(msg, v); err != nil {
			return err
		}
	}
	return nil
}

// extraction is one "path={key}" of a result or response fields port.
type extraction struct {
	path fieldPath
	key  string
}

func parseExtractions(src string, t ros.MessageType) ([]extraction, error) {
	var out []extraction
	var errs []string
	for _, part := range splitFields(src) {
		path, value, ok := strings.Cut(part, "=")
		path, value = strings.TrimSpace(path), strings.TrimSpace(value)
		key, isKey := runtime.BlackboardKey(value, path)
		if !ok || path == "" || !isKey || key == "" {
			errs = append(errs, fmt.Sprintf("%q: write field={key}", strings.TrimSpace(part)))
			continue
		}
		fp, err := compilePath(t.Go, t.Name, path)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		out = append(out, extraction{path: fp, key: key})
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	return out, nil
}

// writeExtractions copies fields of msg into the node's blackboard.
func writeExtractions(n runtime.Node, msg any, es []extraction) error {
	bb := runtime.NodeOf(n).Blackboard()
	for i := range es {
		e := &es[i]
		v, err := e.path.get(reflect.ValueOf(msg))
		if err != nil {
			return err
		}
		if err := bb.Set(e.key, v.Interface()); err != nil {
			return fmt.Errorf("field %s: %w", e.path.text, err)
		}
	}
	return nil
}

func splitFields(src string) []string {
	var out []string
	for _, p := range strings.Split(src, ";") {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' && s[len(s)-1] == '\'' || s[0] == '"' && s[len(s)-1] == '"') {
		return s[1 : len(s)-1]
	}
	return s
}

// buildMessage makes a message of type t for a node: the value of port
// whole (when the tree gave it) with the fields assigned on top.
func buildMessage(n runtime.Node, t ros.MessageType, whole string, useWhole bool, fields []assignment) (reflect.Value, error) {
	msg := reflect.New(t.Go)
	if useWhole {
		v, err := runtime.GetInput[any](n, whole)
		if err != nil {
			return msg, err
		}
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv = rv.Elem()
		}
		if !rv.IsValid() || rv.Type() != t.Go {
			return msg, fmt.Errorf("port %q: want a %s, got %T", whole, t.Name, v)
		}
		msg.Elem().Set(rv)
	}
	if err := applyAssignments(n, msg, fields); err != nil {
		return msg, err
	}
	return msg, nil
}

// writeCode writes an error code to the node's error_code port when the
// tree binds it.
func writeCode(n runtime.Node, code string) error {
	if _, bound := runtime.PortKey(n, "error_code"); !bound {
		return nil
	}
	return runtime.SetOutput(n, "error_code", code)
}
