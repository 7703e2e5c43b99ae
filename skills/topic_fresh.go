package skills

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// TopicFresh succeeds while a blackboard entry the bridge latches from a
// topic is recent: received no longer than max_age ago.
//
//	<TopicFresh key="scan" max_age="500ms"/>
//
// Contract (a condition, on this tick's latched inputs): key names the entry
// as written (not "{key}": the entry itself is looked at, not its value), in
// the node's scope, else at the root blackboard where the bridge latches
// the robot's inputs (so it works inside a subtree that does not remap it);
// SUCCESS when the entry has been written and its stamp (the receive time
// the bridge gives it) is at most max_age before the tree's clock, and the
// bridge does not mark it stale; FAILURE otherwise, including for an entry
// that does not exist or was never written.
type TopicFresh struct {
	*runtime.Leaf
}

func topicFreshType(*env) runtime.NodeType {
	return runtime.NodeType{
		ID: "TopicFresh", Kind: runtime.ConditionKind,
		Summary: "SUCCESS while a latched topic's entry was received no longer than max_age ago.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("key", "the blackboard entry, as written (odom, scan, battery_pct...)"),
			runtime.InputPort[time.Duration]("max_age", "how old the newest message may be").WithDefault("1s"),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if raw, ok := c.Attr("key"); ok {
				if _, isKey := runtime.BlackboardKey(raw, "key"); isKey {
					return nil, fmt.Errorf("port \"key\": write the entry's name, key=%q, not a reference to it: TopicFresh looks at the entry itself", strings.Trim(raw, "{} "))
				}
			}
			return &TopicFresh{Leaf: runtime.NewCondition(func(n *runtime.Leaf) (bool, error) {
				key, err := runtime.GetInput[string](n, "key")
				if err != nil {
					return false, err
				}
				maxAge, err := runtime.GetInput[time.Duration](n, "max_age")
				if err != nil {
					return false, err
				}
				if key = strings.TrimSpace(key); key == "" {
					return false, errors.New("port \"key\" is empty")
				}
				bb := n.Blackboard()
				e := bb.Entry(key)
				if e == nil {
					// Inside a subtree that does not remap it, the key is the
					// robot's, which the bridge latches at the root.
					bb = bb.Root()
					if e = bb.Entry(key); e == nil {
						return false, nil
					}
				}
				v, _, stamp := e.Load()
				if v == nil {
					return false, nil
				}
				if s, ok := bb.Get(key + ros.StaleSuffix); ok {
					if stale, _ := s.(bool); stale {
						return false, nil
					}
				}
				return n.Now().Sub(stamp) <= maxAge, nil
			})}, nil
		},
	}
}
