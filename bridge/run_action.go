package bridge

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// runActionDoc is the contract of RunAction, as the node reference shows it.
const runActionDoc = `Runs an actionlib goal: RUNNING while the server works on it.

    <RunAction server_name="navigate" goal_fields="target_pose.header.frame_id=map; target_pose.pose.position.x={x}; target_pose.pose.position.y={y}; target_pose.pose.orientation.w=1"
               feedback="{nav_feedback}" error_code="{nav_error}"/>

- ` + "`server_name`" + ` names an action of the robot profile (its server, type and timeouts), or an action server's ROS name, with ` + "`action_type`" + ` then required.
- The goal is the blackboard value of ` + "`goal`" + ` when given, else a zero goal, with ` + "`goal_fields`" + ` set on it; it is made on the tick that starts the node.
- SUCCESS when the goal succeeds; FAILURE otherwise, with ` + "`error_code`" + `: SERVER_UNREACHABLE (the server is not up within wait_for_server_timeout, does not acknowledge the goal within server_timeout, or forgets it), GOAL_REJECTED, ABORTED, CANCELLED (cancelled by someone else), TIMEOUT (the goal ran longer than timeout and was cancelled). ` + "`error_code`" + ` is NONE on success.
- The newest feedback goes to ` + "`feedback`" + ` at each tick while the goal runs; the result to ` + "`result`" + `, and fields of it to keys with ` + "`result_fields`" + ` ("path={key}; ..."), on success.
- The goal's end wakes the tree. Halting cancels the goal without blocking the tick; the cancel reaches the server in the background, and a new goal is not sent before the cancelled one's work has stopped.
- Timeouts follow the connection's clock (ROS time under /use_sim_time). Timeouts the tree does not set come from the profile's action, else the port defaults.`

func runActionType(deps Deps) runtime.NodeType {
	return runtime.NodeType{
		ID: "RunAction", Kind: runtime.ActionKind,
		Summary: "Runs a ROS action goal; RUNNING until the server finishes it, halting cancels it.",
		Doc:     runActionDoc,
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("server_name", "action of the robot profile, or action server's ROS name"),
			runtime.InputPort[string]("action_type", "ROS action type, like move_base_msgs/MoveBaseAction (from the profile when empty)").WithDefault(""),
			runtime.InputPort[any]("goal", "whole goal (a value of the action's goal type); a zero goal when not given").WithDefault(""),
			runtime.InputPort[string]("goal_fields", "goal fields to set, as path=value; ... (values are literals or {key})").WithDefault(""),
			runtime.OutputPort[any]("feedback", "newest feedback of the running goal"),
			runtime.OutputPort[any]("result", "the goal's result, on success"),
			runtime.InputPort[string]("result_fields", "result fields to copy, as path={key}; ...").WithDefault(""),
			runtime.OutputPort[string]("error_code", "NONE, SERVER_UNREACHABLE, GOAL_REJECTED, ABORTED, CANCELLED or TIMEOUT"),
			runtime.InputPort[time.Duration]("wait_for_server_timeout", "FAILURE (SERVER_UNREACHABLE) when the server is not up within this").WithDefault(DefaultWaitForServerTimeout.String()),
			runtime.InputPort[time.Duration]("server_timeout", "FAILURE (SERVER_UNREACHABLE) when the server does not acknowledge the goal within this").WithDefault(DefaultServerTimeout.String()),
			runtime.InputPort[time.Duration]("timeout", "cancel the goal and FAIL (TIMEOUT) after this (0: no limit)").WithDefault("0"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			name, err := literalPort(c, "server_name")
			if err != nil {
				return nil, err
			}
			typeName, err := literalPort(c, "action_type")
			if err != nil {
				return nil, err
			}
			server := name
			conf := ActionLeafConf{Conn: deps.Conn, WaitForServerTimeout: DefaultWaitForServerTimeout, ServerTimeout: DefaultServerTimeout}
			if a, ok := profileAction(deps.Profile, name); ok {
				server = a.Server
				conf.WaitForServerTimeout, conf.ServerTimeout, conf.Timeout = a.WaitForServerTimeout, a.ServerTimeout, a.Timeout
				if typeName == "" {
					typeName = a.Type.Name
				}
			} else if err := ros.CheckName(name); err != nil {
				return nil, fmt.Errorf("port \"server_name\": %v", err)
			}
			if typeName == "" {
				return nil, fmt.Errorf("port \"action_type\": %q is not an action of the robot profile%s, so say its type, like action_type=\"move_base_msgs/MoveBaseAction\"", name, profileNames(deps.Profile, name, true))
			}
			t, err := deps.messages().LookupKind(typeName, ros.ActionKind)
			if err != nil {
				return nil, fmt.Errorf("port \"action_type\": %v", err)
			}
			for port, dst := range map[string]*time.Duration{"wait_for_server_timeout": &conf.WaitForServerTimeout, "server_timeout": &conf.ServerTimeout, "timeout": &conf.Timeout} {
				if d, given := durationPort(c, port); given {
					*dst = d
				}
			}
			goalT, resT := actionPart(deps.messages(), t, 0), actionPart(deps.messages(), t, 1)
			src, err := literalPort(c, "goal_fields")
			if err != nil {
				return nil, err
			}
			goalFields, err := parseAssignments(src, goalT)
			if err != nil {
				return nil, fmt.Errorf("port \"goal_fields\": %v", err)
			}
			src, err = literalPort(c, "result_fields")
			if err != nil {
				return nil, err
			}
			resultFields, err := parseExtractions(src, resT)
			if err != nil {
				return nil, fmt.Errorf("port \"result_fields\": %v", err)
			}
			_, useGoal := c.Attr("goal")
			conf.Server, conf.Action = server, t
			conf.Goal = func(n *runtime.Leaf) (any, error) {
				g, err := buildMessage(n, goalT, "goal", useGoal, goalFields)
				return g.Interface(), err
			}
			conf.OnFeedback = func(n *runtime.Leaf, fb any) error {
				if _, bound := runtime.PortKey(n, "feedback"); !bound {
					return nil
				}
				return runtime.SetOutput(n, "feedback", reflect.ValueOf(fb).Elem().Interface())
			}
			conf.OnDone = func(n *runtime.Leaf, o ActionOutcome) (runtime.Status, error) {
				if o.Code != ros.CodeNone {
					return runtime.Failure, nil
				}
				if o.Result != nil {
					if _, bound := runtime.PortKey(n, "result"); bound {
						if err := runtime.SetOutput(n, "result", reflect.ValueOf(o.Result).Elem().Interface()); err != nil {
							return runtime.Failure, err
						}
					}
					if err := writeExtractions(n, o.Result, resultFields); err != nil {
						return runtime.Failure, err
					}
				}
				return runtime.Success, nil
			}
			return NewActionLeaf(conf)
		},
	}
}

func profileAction(p *Profile, name string) (ActionConf, bool) {
	if p == nil {
		return ActionConf{}, false
	}
	return p.Action(name)
}

// profileNames lists a profile's actions (or services) near name, for
// errors.
func profileNames(p *Profile, name string, actions bool) string {
	if p == nil {
		return " (no robot profile given)"
	}
	var names []string
	if actions {
		for n := range p.Actions {
			names = append(names, n)
		}
	} else {
		for n := range p.Services {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if near := runtime.NearestNames(name, names, 3); len(near) > 0 {
		return " (did you mean " + strings.Join(near, ", ") + "?)"
	}
	if len(names) == 0 {
		return " (the profile has none)"
	}
	return " (the profile has " + strings.Join(names, ", ") + ")"
}

// actionPart returns the goal (0), result (1) or feedback (2) of an action
// type as a message type, under its ROS name when registered.
func actionPart(m *ros.Messages, action ros.MessageType, i int) ros.MessageType {
	t := ros.EmbeddedParts(action.Go)[i]
	name, ok := m.NameOf(t)
	if !ok {
		name = strings.TrimSuffix(action.Name, "Action") + [...]string{"Goal", "Result", "Feedback"}[i]
	}
	return ros.MessageType{Name: name, Kind: ros.MessageKind, Go: t}
}
