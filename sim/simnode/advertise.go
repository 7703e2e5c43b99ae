package simnode

import (
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/sim"
)

// advertise creates everything the node offers the graph.
func (n *Node) advertise() error {
	var err error
	pub := func(topic string, msg any, latch bool) *ros.Publisher {
		if err != nil {
			return nil
		}
		var p *ros.Publisher
		p, err = ros.NewPublisher(ros.PublisherConf{Conn: n.conn, Topic: topic, Msg: msg, Latch: latch})
		if err == nil {
			n.closers = append(n.closers, p.Close)
			n.pubs = append(n.pubs, p)
		}
		return p
	}
	if !n.conf.WallTime {
		n.clockPub = pub("/clock", &rosgraph_msgs.Clock{}, false)
	}
	n.tfPub = pub("/tf", &tf2_msgs.TFMessage{}, false)
	n.eventsPub = pub("~events", &std_msgs.String{}, false)
	staticPub := pub("/tf_static", &tf2_msgs.TFMessage{}, true)
	mapPub := pub("map", &nav_msgs.OccupancyGrid{}, true)
	if err != nil {
		return err
	}
	// The physics step, for lockstep peers that know the sensors' stamps
	// (bridge.PhysicsStepParam).
	if err := n.conn.SetParam("~"+bridge.PhysicsStepParam, n.step.Seconds()); err != nil {
		return err
	}
	for _, r := range n.w.Robots() {
		n.faces = append(n.faces, n.newFace(r))
	}
	var static tf2_msgs.TFMessage
	for _, f := range n.faces {
		if err := f.advertise(); err != nil {
			return err
		}
		if err := f.advertiseNavigation(); err != nil {
			return err
		}
		// The laser's frame, fixed on the base.
		static.Transforms = append(static.Transforms,
			transform(n.epoch, f.frame("base_link"), f.frame("base_scan"), sim.Pose{X: f.r.Conf().Laser.MountX}))
	}
	if err := n.advertiseFaults(); err != nil {
		return err
	}
	if err := subscribe(n, "~lockstep", n.onLockstep); err != nil {
		return err
	}
	if err := n.serve("~render", &std_srvs.Trigger{}, n.onRender); err != nil {
		return err
	}
	staticPub.Publish(&static)
	mapPub.Publish(n.mapMessage())
	return nil
}

// mapMessage returns the world's static map as map_server publishes it.
func (n *Node) mapMessage() *nav_msgs.OccupancyGrid {
	g := n.w.Map()
	return &nav_msgs.OccupancyGrid{
		Header: std_msgs.Header{Stamp: n.epoch, FrameId: "map"},
		Info: nav_msgs.MapMetaData{
			MapLoadTime: n.epoch,
			Resolution:  float32(g.Resolution),
			Width:       uint32(g.Width),
			Height:      uint32(g.Height),
			Origin:      poseMsg(g.Origin),
		},
		Data: g.OccupancyData(),
	}
}
