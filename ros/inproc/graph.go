package inproc

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Type is a ROS message type as an endpoint declares it.
type Type struct {
	// Name is the ROS type name, such as "geometry_msgs/Twist".
	Name string
	// MD5 is the type's md5sum; "*" matches any, as in TCPROS.
	MD5 string
	// Go is the struct type (not a pointer) that holds a message.
	Go reflect.Type
}

func (t Type) String() string {
	if t.MD5 == "" || t.MD5 == "*" {
		return t.Name
	}
	return t.Name + " (md5 " + t.MD5 + ")"
}

func (t Type) check() error {
	if t.Name == "" {
		return errors.New("no ROS type name")
	}
	if t.Go == nil || t.Go.Kind() != reflect.Struct {
		return fmt.Errorf("type %s: its Go type is a struct, not %v", t.Name, t.Go)
	}
	if _, err := planOf(t.Go); err != nil {
		return fmt.Errorf("type %s: %w", t.Name, err)
	}
	return nil
}

// matches says whether endpoints of types t and u can talk: the same ROS
// name, md5sums that agree (or a "*"), and the same Go type, since a message
// is handed over as a Go value.
func (t Type) matches(u Type) bool {
	return t.Name == u.Name && (t.MD5 == u.MD5 || t.MD5 == "*" || u.MD5 == "*") && t.Go == u.Go
}

// Graph is the master's part of an in-process ROS graph: it knows the nodes
// by name, which node publishes, subscribes to and provides what, and holds
// the parameters. Its methods are safe for concurrent use.
type Graph struct {
	mu       sync.Mutex
	nodes    map[string]*Node
	topics   map[string]*topic
	services map[string]*service
	params   map[string]any
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{
		nodes:    map[string]*Node{},
		topics:   map[string]*topic{},
		services: map[string]*service{},
		params:   map[string]any{},
	}
}

// Errors of the graph, for errors.Is.
var (
	// ErrNodeClosed: the node was closed, killed or shut down.
	ErrNodeClosed = errors.New("the node is closed")
	// ErrTypeMismatch: an endpoint's type differs from the topic's or the
	// service's.
	ErrTypeMismatch = errors.New("type mismatch")
)

// NodeConf configures Graph.NewNode.
type NodeConf struct {
	// Name is the node's global name, such as /robot1/btrobot.
	Name string
	// OnShutdown, when set, is called when the graph shuts the node down
	// (another node registered its name, or ShutdownNode), on a goroutine
	// of its own, before the node is closed: its publishers still deliver
	// meanwhile, so a controller can stop its robot. The node is closed
	// when it returns.
	OnShutdown func(caller, reason string)
}

// Node is a node registered in a Graph. Its endpoints live until it
// closes, dies or is shut down.
type Node struct {
	g    *Graph
	conf NodeConf
	done chan struct{}

	// Under g.mu:
	state    nodeState
	pubs     map[*Publisher]struct{}
	subs     map[*Subscriber]struct{}
	servers  map[*ServiceServer]struct{}
	shutdown bool // a shutdown is under way
	subsWG   sync.WaitGroup
}

type nodeState uint8

const (
	nodeLive nodeState = iota
	nodeClosed
	nodeDead // killed: registrations left behind
)

// NewNode registers a node. A live node of the same name is shut down
// (NodeConf.OnShutdown, then closed), as the ROS master does; a dead one's
// registrations are dropped.
func (g *Graph) NewNode(conf NodeConf) (*Node, error) {
	if err := checkGlobal("node", conf.Name); err != nil {
		return nil, err
	}
	n := &Node{g: g, conf: conf, done: make(chan struct{}),
		pubs: map[*Publisher]struct{}{}, subs: map[*Subscriber]struct{}{}, servers: map[*ServiceServer]struct{}{}}
	g.mu.Lock()
	old := g.nodes[conf.Name]
	g.nodes[conf.Name] = n
	if old != nil && old.state == nodeDead {
		g.dropLocked(old)
	}
	g.mu.Unlock()
	if old != nil && old.state == nodeLive {
		old.shutdownBy(conf.Name, "new node registered with same name")
	}
	return n, nil
}

// Name returns the node's global name.
func (n *Node) Name() string { return n.conf.Name }

// Done is closed once the node is closed, killed or shut down.
func (n *Node) Done() <-chan struct{} { return n.done }

// ShutdownNode shuts the node registered as name down with reason, as
// rosnode kill does: its OnShutdown runs, then it closes. It does not wait.
func (g *Graph) ShutdownNode(name, reason string) error {
	g.mu.Lock()
	n := g.nodes[name]
	g.mu.Unlock()
	if n == nil {
		return fmt.Errorf("no node named %s is registered", name)
	}
	n.shutdownBy("/master", reason)
	return nil
}

func (n *Node) shutdownBy(caller, reason string) {
	n.g.mu.Lock()
	if n.state != nodeLive || n.shutdown {
		n.g.mu.Unlock()
		return
	}
	n.shutdown = true
	n.g.mu.Unlock()
	go func() {
		if n.conf.OnShutdown != nil {
			n.conf.OnShutdown(caller, reason)
		}
		n.Close()
	}()
}

// Close unregisters every endpoint of the node, then the node; the
// subscribers' callbacks have returned when it returns. It may be called
// more than once.
func (n *Node) Close() error {
	g := n.g
	g.mu.Lock()
	if n.state != nodeLive {
		g.mu.Unlock()
		n.subsWG.Wait()
		return nil
	}
	n.state = nodeClosed
	g.dropLocked(n)
	if g.nodes[n.conf.Name] == n {
		delete(g.nodes, n.conf.Name)
	}
	close(n.done)
	g.mu.Unlock()
	n.subsWG.Wait()
	return nil
}

// Kill makes the node die as a crashed process does: its subscribers stop,
// its providers stop answering, and the subscribers of its publishers are
// told (OnPublisherLost), but its registrations stay in the graph until
// another node takes its name; Ping says it is dead.
func (n *Node) Kill() {
	g := n.g
	g.mu.Lock()
	if n.state != nodeLive {
		g.mu.Unlock()
		return
	}
	n.state = nodeDead
	for p := range n.pubs {
		p.die()
	}
	for s := range n.subs {
		s.stop()
	}
	for s := range n.servers {
		s.svc.dead.Store(true)
	}
	close(n.done)
	g.mu.Unlock()
	n.subsWG.Wait()
}

// dropLocked removes every registration of n from the graph and stops its
// subscribers.
func (g *Graph) dropLocked(n *Node) {
	for p := range n.pubs {
		g.unpublishLocked(p)
	}
	for s := range n.subs {
		g.unsubscribeLocked(s)
	}
	for s := range n.servers {
		g.unprovideLocked(s)
	}
}

// dropIfLive runs drop under g.mu when n is live and the endpoint is
// still registered: an endpoint's Close, which a node's Close, Kill or
// shutdown may have done already.
func (g *Graph) dropIfLive(n *Node, registered func() bool, drop func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n.state == nodeLive && registered() {
		drop()
	}
}

// Ping says whether the node registered as name is alive, as a call to its
// slave API would: an error for an unknown node and for a dead one.
func (g *Graph) Ping(name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.nodes[name]
	switch {
	case n == nil:
		return fmt.Errorf("no node named %s is registered", name)
	case n.state == nodeDead:
		return fmt.Errorf("node %s does not answer: it died", name)
	}
	return nil
}

// Nodes returns the names of the registered nodes, dead ones included,
// sorted.
func (g *Graph) Nodes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Sorted(maps.Keys(g.nodes))
}

// TopicInfo is what the graph knows of a topic.
type TopicInfo struct {
	Type                    Type
	Publishers, Subscribers []string // node names, sorted, dead ones included
}

// Topics returns every topic with a publisher or a subscriber.
func (g *Graph) Topics() map[string]TopicInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]TopicInfo, len(g.topics))
	for name, t := range g.topics {
		info := TopicInfo{Type: t.typ}
		for _, p := range t.pubs {
			info.Publishers = append(info.Publishers, p.node.conf.Name)
		}
		for _, s := range t.subs {
			info.Subscribers = append(info.Subscribers, s.node.conf.Name)
		}
		sort.Strings(info.Publishers)
		sort.Strings(info.Subscribers)
		out[name] = info
	}
	return out
}

// checkGlobal checks a global graph name: "/" then segments of letters,
// digits and '_', each starting with a letter (or '_'), separated by '/'.
func checkGlobal(what, name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%s name %q: %s (write a global name such as /robot1/cmd_vel)", what, name, why)
	}
	if len(name) < 2 || name[0] != '/' {
		return bad("not a global name")
	}
	if len(name) > 1024 {
		return bad("longer than 1024 bytes")
	}
	for _, seg := range strings.Split(name[1:], "/") {
		if seg == "" {
			return bad("an empty segment")
		}
		for i, r := range seg {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			switch {
			case letter || r == '_':
			case r >= '0' && r <= '9' && i > 0:
			default:
				return bad(fmt.Sprintf("%q is not allowed in segment %q", r, seg))
			}
		}
	}
	return nil
}
