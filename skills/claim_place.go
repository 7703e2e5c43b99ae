package skills

import (
	"slices"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// ClaimPlace is PopPlace for a fleet: it takes the first place of a queue
// that no other robot has claimed, and claims it, so that robots sharing
// the places never head for the same one.
//
//	<ClaimPlace queue="{todo}" place="{target}"/>
//
// Contract (an async leaf; the claim protocol is in the package
// documentation):
//   - the tick that starts it picks the first place of queue that no other
//     robot claims, publishes the claim (replacing this robot's previous
//     one) and returns RUNNING; with no such place it returns FAILURE;
//   - once the claim has stood for settle it is checked: if another robot's
//     claim on the same place came first, this one is given up and the next
//     unclaimed place is tried in the same way; otherwise the place is
//     removed from queue, written to place, and the node returns SUCCESS;
//   - halting withdraws a claim not yet settled;
//   - the claim holds until this robot claims another place or
//     ReleasePlace releases it.
type ClaimPlace struct {
	*runtime.Leaf
	e *env

	f       *fleet
	tried   []string
	place   string
	settled time.Time
}

func claimPlaceType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "ClaimPlace", Kind: runtime.ActionKind,
		Summary: "Takes and claims the first place of a queue that no other robot of the fleet claims.",
		Ports: []runtime.PortSpec{
			runtime.InOutPort[[]string]("queue", "the places to choose from, in order; the one claimed is removed"),
			runtime.OutputPort[string]("place", "the place claimed"),
			runtime.InputPort[time.Duration]("settle", "how long a claim must stand unchallenged").WithDefault("1s"),
			runtime.InputPort[string]("topic", "the fleet's claim topic").WithDefault(DefaultClaimTopic),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			if err := needKey(c, "queue"); err != nil {
				return nil, err
			}
			n := &ClaimPlace{e: e}
			if e.Conn != nil {
				topic, _ := runtime.LiteralAs[string](c, "topic")
				if topic == "" {
					topic = DefaultClaimTopic
				}
				f, err := e.fleetOn(topic)
				if err != nil {
					return nil, err
				}
				n.f = f
			}
			n.Leaf = runtime.NewStatefulAction(n)
			return n, nil
		},
	}
}

// OnStart claims the first free place.
func (c *ClaimPlace) OnStart(n *runtime.Leaf) (runtime.Status, error) {
	if c.f == nil {
		return runtime.Failure, errNoConn
	}
	c.tried = nil
	return c.next(n)
}

// next claims the first place of the queue that nobody else claims and
// that this run has not given up yet.
func (c *ClaimPlace) next(n *runtime.Leaf) (runtime.Status, error) {
	q, err := runtime.GetInputOr[[]string](n, "queue", nil)
	if err != nil {
		return runtime.Failure, err
	}
	settle, err := runtime.GetInput[time.Duration](n, "settle")
	if err != nil {
		return runtime.Failure, err
	}
	taken := c.f.takenByOthers()
	c.place = ""
	for _, p := range q {
		if !taken[p] && !slices.Contains(c.tried, p) {
			c.place = p
			break
		}
	}
	if c.place == "" {
		return runtime.Failure, nil
	}
	c.tried = append(c.tried, c.place)
	now := n.Now()
	if err := c.f.claim(c.place, now); err != nil {
		return runtime.Failure, err
	}
	c.settled = now.Add(settle)
	n.Tree().WakeAt(c.settled)
	return runtime.Running, nil
}

// OnRunning waits for the claim to settle, then keeps it or tries the next
// place.
func (c *ClaimPlace) OnRunning(n *runtime.Leaf) (runtime.Status, error) {
	if n.Now().Before(c.settled) {
		return runtime.Running, nil
	}
	if c.f.contested() {
		return c.next(n)
	}
	q, err := runtime.GetInputOr[[]string](n, "queue", nil)
	if err != nil {
		return runtime.Failure, err
	}
	if i := slices.Index(q, c.place); i >= 0 {
		q = slices.Delete(slices.Clone(q), i, i+1)
		if err := runtime.SetOutput(n, "queue", q); err != nil {
			return runtime.Failure, err
		}
	}
	return runtime.Success, runtime.SetOutput(n, "place", c.place)
}

// OnHalted withdraws the unsettled claim.
func (c *ClaimPlace) OnHalted(n *runtime.Leaf) {
	if c.place != "" {
		_ = c.f.claim("", n.Now())
	}
}
