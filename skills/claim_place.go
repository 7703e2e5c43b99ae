package skills

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// ClaimPlace is PopPlace for a fleet: it takes the first place of a queue
// that no other robot has claimed, and claims it, so that robots sharing
// the places never head for the same one.
//
//	<ClaimPlace queue="{todo}" place="{target}"/>
//	<ClaimPlace queue="{todo}" place="{target}" nearest="true"/>   the closest free place first
//
// Contract (an async leaf; the claim protocol is in the package
// documentation):
//   - the tick that starts it picks the first place of queue that no other
//     robot claims (with nearest, the one nearest to the robot, straight
//     line, so that robots spread out rather than cross), publishes the
//     claim (replacing this robot's previous one) and returns RUNNING; with
//     no such place it returns FAILURE;
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
			runtime.InputPort[bool]("nearest", "take the free place nearest to the robot rather than the first").WithDefault("false"),
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
	nearest, err := runtime.GetInput[bool](n, "nearest")
	if err != nil {
		return runtime.Failure, err
	}
	if nearest {
		q = c.byDistance(n, q)
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
		if n.Explaining() {
			n.SetReason(fmt.Sprintf("no place left to claim: %d taken by other robots, %d tried", len(taken), len(c.tried)))
		}
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

// byDistance returns the places of q nearest to the robot first; q as it
// is when the robot's pose is not known (or a place is not).
func (c *ClaimPlace) byDistance(n *runtime.Leaf, q []string) []string {
	here, err := c.e.io(n).mapPose()
	if err != nil {
		return q
	}
	dist := make(map[string]float64, len(q))
	for _, p := range q {
		pose, err := resolve(c.e.Places, p)
		if err != nil {
			return q
		}
		dist[p] = here.DistanceTo(pose)
	}
	out := slices.Clone(q)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(dist[a], dist[b]) })
	return out
}
