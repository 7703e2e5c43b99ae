package bridge

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/runtime/script"
)

// topicConditionDoc is the contract of TopicCondition, as the node
// reference shows it.
const topicConditionDoc = `A condition on the newest message of a topic, written as a script where ` + "`msg`" + ` is the message.

    <TopicCondition topic="battery_state" msg_type="sensor_msgs/BatteryState"
                    script="msg.percentage > 0.2 &amp;&amp; msg.power_supply_status != 3" max_age="5s"/>

- SUCCESS when the script's value is true, FAILURE when it is false.
- FAILURE (fail safe) while no message has arrived, or when the newest is older than ` + "`max_age`" + ` (0: any age; by default the max_age of the robot profile's input on the same topic).
- Fields read as ROS writes them (` + "`msg.header.frame_id`, `msg.ranges.0`" + `); other names in the script are the blackboard's.
- Under a running bridge the message is the one latched at the start of the tick, like the profile's inputs: a message arriving mid-tick is seen by the next tick.
- The script is parsed, and the type checked, when the tree is built; an error while evaluating (a missing field, an index out of range) is an error of the tick.`

func topicConditionType(deps Deps) runtime.NodeType {
	return runtime.NodeType{
		ID: "TopicCondition", Kind: runtime.ConditionKind,
		Summary: "A script on the newest message of a ROS topic; FAILURE when none or stale.",
		Doc:     topicConditionDoc,
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("topic", "ROS topic to watch"),
			runtime.InputPort[string]("msg_type", "ROS message type, like sensor_msgs/BatteryState"),
			runtime.InputPort[string]("script", "condition on msg, the newest message, like msg.percentage > 0.2").AsScript(),
			runtime.InputPort[time.Duration]("max_age", "FAILURE when the newest message is older (0: any age; default: the profile input's)").WithDefault("0"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			topic, t, err := topicPorts(c, deps)
			if err != nil {
				return nil, err
			}
			src, err := literalPort(c, "script")
			if err != nil {
				return nil, err
			}
			prog, err := script.Parse(src)
			if err != nil {
				return nil, fmt.Errorf("port \"script\": the script does not parse: %v", err)
			}
			maxAge, given := durationPort(c, "max_age")
			if !given && deps.Profile != nil {
				for _, in := range deps.Profile.Inputs {
					if sameTopic(deps, in.Topic, topic) {
						maxAge = in.MaxAge
					}
				}
			}
			var sub *ros.Subscription
			if deps.Conn != nil {
				if sub, err = ros.NewSubscriber(ros.SubscriberConf{Conn: deps.Conn, Topic: topic, Msg: t.Go}); err != nil {
					return nil, err
				}
			}
			return runtime.NewCondition(func(n *runtime.Leaf) (bool, error) {
				if sub == nil {
					return false, errNoConn
				}
				msg, at, _ := tickView(deps.Conn, sub)
				if msg == nil {
					if n.Explaining() {
						n.SetReason(fmt.Sprintf("no message on %s yet", sub.Topic()))
					}
					return false, nil
				}
				if age := n.Now().Sub(at); maxAge > 0 && age > maxAge {
					if n.Explaining() {
						n.SetReason(fmt.Sprintf("the newest message on %s is %v old, max %v", sub.Topic(), age.Round(time.Millisecond), maxAge))
					}
					return false, nil
				}
				env := &messageEnv{Env: runtime.ScriptEnv(n), msg: reflect.ValueOf(msg).Elem().Interface()}
				v, err := prog.Eval(env)
				if err != nil {
					return false, fmt.Errorf("script %q: %w", src, err)
				}
				ok, err := script.Truthy(v)
				if err != nil {
					return false, fmt.Errorf("script %q: %w", src, err)
				}
				if n.Explaining() {
					n.SetReason(runtime.ExplainScript(prog, env, ok) + " on " + sub.Topic())
				}
				return ok, nil
			}), nil
		},
	}
}

// messageEnv is a script environment where msg is a message and every
// other name is the node's blackboard.
type messageEnv struct {
	script.Env
	msg any
}

func (e *messageEnv) Lookup(name string) (script.Value, bool) {
	if name == "msg" {
		return e.msg, true
	}
	return e.Env.Lookup(name)
}

func (e *messageEnv) Assign(name string, v script.Value, create bool) error {
	if name == "msg" {
		return fmt.Errorf("msg is the topic's message; it cannot be assigned")
	}
	return e.Env.Assign(name, v, create)
}

// sameTopic reports whether a profile's topic and a tree's name the same
// topic: as the connection resolves them, or as written when checking.
func sameTopic(deps Deps, profileTopic, treeTopic string) bool {
	if deps.Conn != nil {
		return deps.Conn.Resolve(profileTopic) == deps.Conn.Resolve(treeTopic)
	}
	if profileTopic == treeTopic {
		return true
	}
	if ns := deps.Profile.Namespace; ns != "" && !strings.HasPrefix(treeTopic, "/") {
		return profileTopic == ros.JoinName(ns, treeTopic)
	}
	return false
}
