package skills

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/btrobot/btrobot/ros"
)

// Robots of a fleet share places through claims on a topic, so that two of
// them are never sent to the same place at once. Each robot publishes its
// one claim, latched, as a std_msgs/String "ROBOT PLACE STAMP" (STAMP in
// seconds since the epoch of the ROS clock; PLACE "-" when it holds none), and
// keeps the newest claim of every other robot. A claim is settled once it
// has stood for the settle time without an older claim (or an equally old
// one from a robot whose name sorts first) on the same place; the settle
// time must exceed the topic's latency, which on one machine is a few
// milliseconds of wall time.

// DefaultClaimTopic is where robots publish their claims.
const DefaultClaimTopic = "/fleet/claims"

// claim is one robot's claim.
type claim struct {
	place string
	at    time.Time
}

// fleet is this robot's view of the claims on one topic.
type fleet struct {
	robot string
	conn  *ros.Conn
	pub   *ros.Publisher
	sub   *ros.Subscription

	mu     sync.Mutex
	claims map[string]claim // other robots' claims, by robot
	mine   claim
}

// fleetOn returns this robot's fleet on topic, joining it on first use.
func (e *env) fleetOn(topic string) (*fleet, error) {
	e.fleetMu.Lock()
	defer e.fleetMu.Unlock()
	if f := e.fleets[topic]; f != nil {
		return f, nil
	}
	if e.Robot == "" || strings.ContainsAny(e.Robot, " \t") {
		return nil, fmt.Errorf("claims: robot name %q: give skills.Deps.Robot a name without spaces", e.Robot)
	}
	f := &fleet{robot: e.Robot, conn: e.Conn, claims: map[string]claim{}}
	pub, err := ros.NewPublisher(ros.PublisherConf{Conn: e.Conn, Topic: topic, Msg: &std_msgs.String{}, Latch: true})
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	sub, err := ros.Subscribe(e.Conn, topic, f.receive)
	if err != nil {
		pub.Close()
		return nil, fmt.Errorf("claims: %w", err)
	}
	f.pub, f.sub = pub, sub
	if e.fleets == nil {
		e.fleets = map[string]*fleet{}
	}
	e.fleets[topic] = f
	return f, nil
}

func (f *fleet) receive(m *std_msgs.String) {
	robot, c, ok := parseClaim(m.Data)
	if !ok || robot == f.robot {
		return
	}
	f.mu.Lock()
	f.claims[robot] = c
	f.mu.Unlock()
}

func parseClaim(s string) (string, claim, bool) {
	parts := strings.Fields(s)
	if len(parts) != 3 {
		return "", claim{}, false
	}
	secs, err := strconv.ParseFloat(parts[2], 64)
	if err != nil {
		return "", claim{}, false
	}
	place := parts[1]
	if place == "-" {
		place = ""
	}
	sec := int64(secs)
	return parts[0], claim{place: place, at: time.Unix(sec, int64((secs-float64(sec))*1e9))}, true
}

// claim makes place this robot's claim, stamped at, and publishes it;
// "" releases.
func (f *fleet) claim(place string, at time.Time) error {
	f.mu.Lock()
	f.mine = claim{place: place, at: at}
	f.mu.Unlock()
	p := place
	if p == "" {
		p = "-"
	}
	stamp := float64(at.UnixNano()) / 1e9
	return f.pub.Publish(&std_msgs.String{Data: fmt.Sprintf("%s %s %.9f", f.robot, p, stamp)})
}

// takenByOthers returns the places other robots claim.
func (f *fleet) takenByOthers() map[string]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]bool{}
	for _, c := range f.claims {
		if c.place != "" {
			out[c.place] = true
		}
	}
	return out
}

// contested reports whether another robot's claim on this robot's place
// comes first: older, or as old from a robot whose name sorts first.
func (f *fleet) contested() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for robot, c := range f.claims {
		if c.place != f.mine.place {
			continue
		}
		if c.at.Before(f.mine.at) || c.at.Equal(f.mine.at) && robot < f.robot {
			return true
		}
	}
	return false
}
