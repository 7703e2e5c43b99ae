package skills

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/btrobot/btrobot/bridge"
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

func topicFreshType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "TopicFresh", Kind: runtime.ConditionKind,
		Summary: "SUCCESS while a latched topic's entry was received no longer than max_age ago.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("key", "the blackboard entry, as written (odom, scan, battery_pct...)").AsEntryName(),
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
				entry := bb.Entry(key)
				if entry == nil {
					// Inside a subtree that does not remap it, the key is the
					// robot's, which the bridge latches at the root.
					bb = bb.Root()
					if entry = bb.Entry(key); entry == nil {
						if n.Explaining() {
							n.SetReason(fmt.Sprintf("%s: no such entry", e.source(key)))
						}
						return false, nil
					}
				}
				v, _, stamp := entry.Load()
				if v == nil {
					if n.Explaining() {
						n.SetReason(fmt.Sprintf("%s was never received", e.source(key)))
					}
					return false, nil
				}
				if s, ok := bb.Get(key + bridge.StaleSuffix); ok {
					if stale, _ := s.(bool); stale {
						if n.Explaining() {
							n.SetReason(fmt.Sprintf("%s is marked stale by the bridge", e.source(key)))
						}
						return false, nil
					}
				}
				age := n.Now().Sub(stamp)
				if age > maxAge && n.Explaining() {
					n.SetReason(fmt.Sprintf("%s is %v old, max %v", e.source(key), age.Round(time.Millisecond), maxAge))
				}
				return age <= maxAge, nil
			})}, nil
		},
	}
}

// source names, for a reason, where entry key comes from: the topic the
// robot profile latches into it ("/robot1/odom"), else the entry itself
// ("entry odom").
func (e *env) source(key string) string {
	if e != nil && e.Profile != nil {
		for _, in := range e.Profile.Inputs {
			match := in.Key == key
			for _, f := range in.Fields {
				match = match || f.Key == key
			}
			if !match {
				continue
			}
			if e.Conn != nil {
				return e.Conn.Resolve(in.Topic)
			}
			return in.Topic
		}
	}
	return "entry " + key
}
