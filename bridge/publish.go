package bridge

import (
	"fmt"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// publishDoc is the contract of Publish, as the node reference shows it.
const publishDoc = `Publishes one message on a topic each time it is ticked.

    <Publish topic="cmd_vel" msg_type="geometry_msgs/Twist" fields="linear.x={speed}; angular.z=0"/>
    <Publish topic="goal_marker" msg_type="geometry_msgs/PoseStamped" msg="{goal}"/>

- The message is the blackboard value of ` + "`msg`" + ` when given (of the message type, or a pointer to one), else a zero message; ` + "`fields`" + ` then sets fields on it, from literals or ` + "`{key}`" + ` entries.
- ` + "`topic` and `msg_type`" + ` are written in the tree; the type and every field path are checked when the tree is built.
- Returns SUCCESS once the message is queued: the tick never blocks, the message goes out from the connection's goroutine.
- A ` + "`{key}`" + ` that is not set, or a value that does not fit its field, is an error.
- The topic is advertised when the tree is built; subscribers take a moment to connect, so a message published on the very first tick may reach none of them, as with any new ROS publisher.`

func publishType(deps Deps) runtime.NodeType {
	return runtime.NodeType{
		ID: "Publish", Kind: runtime.ActionKind,
		Summary: "Publishes a message on a ROS topic; SUCCESS once queued.",
		Doc:     publishDoc,
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("topic", "ROS topic to publish on (relative names resolve in the node's namespace)"),
			runtime.InputPort[string]("msg_type", "ROS message type, like geometry_msgs/Twist"),
			runtime.InputPort[any]("msg", "whole message to publish (a value of msg_type); a zero message when not given").WithDefault(""),
			runtime.InputPort[string]("fields", "fields to set, as path=value; ... (values are literals or {key})").WithDefault(""),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			topic, t, err := topicPorts(c, deps)
			if err != nil {
				return nil, err
			}
			src, err := literalPort(c, "fields")
			if err != nil {
				return nil, err
			}
			fields, err := parseAssignments(src, t)
			if err != nil {
				return nil, fmt.Errorf("port \"fields\": %v", err)
			}
			_, useMsg := c.Attr("msg")
			var pub *ros.Publisher
			if deps.Conn != nil {
				if pub, err = ros.NewPublisher(ros.PublisherConf{Conn: deps.Conn, Topic: topic, Msg: t.Go}); err != nil {
					return nil, err
				}
			}
			return runtime.NewAction(func(n *runtime.Leaf) (runtime.Status, error) {
				if pub == nil {
					return runtime.Failure, errNoConn
				}
				msg, err := buildMessage(n, t, "msg", useMsg, fields)
				if err != nil {
					return runtime.Failure, err
				}
				if err := pub.Publish(msg.Interface()); err != nil {
					return runtime.Failure, err
				}
				return runtime.Success, nil
			}), nil
		},
	}
}
