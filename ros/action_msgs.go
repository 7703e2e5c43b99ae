package ros

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
)

// The actionlib protocol, as btrobot speaks it on plain topics (both the
// client in action_client.go and the server in action_server.go):
//
//	<action>/goal      client -> server  <Action>ActionGoal: header, goal_id, goal
//	<action>/cancel    client -> server  actionlib_msgs/GoalID
//	<action>/status    server -> client  actionlib_msgs/GoalStatusArray, periodically and on change
//	<action>/result    server -> client  <Action>ActionResult: header, status, result
//	<action>/feedback  server -> client  <Action>ActionFeedback: header, status, feedback
//
// Only the topic API of the connection is used, so that the same code can
// run over another transport.

// actionTopics are the message types of one action's five topics.
type actionTopics struct {
	goal, result, feedback reflect.Type // the action's parts
	// goalMsg, resultMsg and feedbackMsg are the envelopes the parts
	// travel in.
	goalMsg, resultMsg, feedbackMsg reflect.Type
}

// newActionTopics returns the envelopes of action type t, whose ROS name
// (such as move_base_msgs/MoveBaseAction) names them when known
// (move_base_msgs/MoveBaseActionGoal...); on the wire only the MD5 sum
// must match, which the name does not enter.
func newActionTopics(t reflect.Type, rosName string) (actionTopics, error) {
	parts := EmbeddedParts(t)
	if t.Kind() != reflect.Struct || len(parts) != 3 {
		return actionTopics{}, fmt.Errorf("an action embeds its goal, result and feedback (3 structs); %s embeds %d", t, len(parts))
	}
	pkg, base, named := strings.Cut(rosName, "/")
	base, suffixed := strings.CutSuffix(base, "Action")
	named = named && suffixed && pkg != "" && base != ""
	envelope := func(name string, fields ...reflect.StructField) reflect.Type {
		if named {
			fields = append([]reflect.StructField{
				{Name: "Package", Type: reflect.TypeFor[msg.Package](), Tag: reflect.StructTag(`ros:"` + pkg + `"`), Anonymous: true},
				{Name: "Name", Type: reflect.TypeFor[msg.Name](), Tag: reflect.StructTag(`ros:"` + base + "Action" + name + `"`), Anonymous: true},
			}, fields...)
		}
		return reflect.StructOf(fields)
	}
	header := reflect.StructField{Name: "Header", Type: reflect.TypeFor[std_msgs.Header]()}
	status := reflect.StructField{Name: "Status", Type: reflect.TypeFor[actionlib_msgs.GoalStatus]()}
	a := actionTopics{goal: parts[0], result: parts[1], feedback: parts[2]}
	a.goalMsg = envelope("Goal", header, reflect.StructField{Name: "GoalId", Type: reflect.TypeFor[actionlib_msgs.GoalID]()},
		reflect.StructField{Name: "Goal", Type: parts[0]})
	a.resultMsg = envelope("Result", header, status, reflect.StructField{Name: "Result", Type: parts[1]})
	a.feedbackMsg = envelope("Feedback", header, status, reflect.StructField{Name: "Feedback", Type: parts[2]})
	return a, nil
}

// newGoalMsg returns a pointer to a goal envelope.
func (a actionTopics) newGoalMsg(stamp time.Time, id actionlib_msgs.GoalID, goal reflect.Value) any {
	m := reflect.New(a.goalMsg).Elem()
	m.FieldByName("Header").Set(reflect.ValueOf(std_msgs.Header{Stamp: stamp}))
	m.FieldByName("GoalId").Set(reflect.ValueOf(id))
	m.FieldByName("Goal").Set(goal)
	return m.Addr().Interface()
}

// goalOf reads a goal envelope: its id and a pointer to its goal.
func goalOf(m any) (actionlib_msgs.GoalID, any) {
	v := reflect.ValueOf(m).Elem()
	return v.FieldByName("GoalId").Interface().(actionlib_msgs.GoalID), v.FieldByName("Goal").Addr().Interface()
}

// newStatusMsg returns a pointer to a result or feedback envelope (of type
// t) holding status and part (a pointer to the part; zero when nil).
func newStatusMsg(t reflect.Type, field string, stamp time.Time, status actionlib_msgs.GoalStatus, part any) any {
	m := reflect.New(t).Elem()
	m.FieldByName("Header").Set(reflect.ValueOf(std_msgs.Header{Stamp: stamp}))
	m.FieldByName("Status").Set(reflect.ValueOf(status))
	if part != nil {
		m.FieldByName(field).Set(reflect.ValueOf(part).Elem())
	}
	return m.Addr().Interface()
}

// statusOf reads a result or feedback envelope: its status and a pointer
// to its result or feedback (field).
func statusOf(m any, field string) (actionlib_msgs.GoalStatus, any) {
	v := reflect.ValueOf(m).Elem()
	return v.FieldByName("Status").Interface().(actionlib_msgs.GoalStatus), v.FieldByName(field).Addr().Interface()
}
