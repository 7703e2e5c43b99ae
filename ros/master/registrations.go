package master

import (
	"fmt"
	"sort"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
)

// registrant is one node registered for a key (a topic, service or
// parameter namespace).
type registrant struct {
	callerID  string
	callerAPI string
}

// serviceProvider is the one node that provides a service.
type serviceProvider struct {
	callerID   string
	serviceAPI string
}

// nodeEntry is what the master knows about one node: its slave API URI and
// what it registered. A node is forgotten once it has unregistered
// everything, as rosmaster does; a node that dies without unregistering
// stays, and lookups keep returning its (stale) URI.
type nodeEntry struct {
	api       string
	pubs      map[string]bool
	subs      map[string]bool
	srvs      map[string]bool
	paramSubs map[string]bool
}

func (n *nodeEntry) empty() bool {
	return len(n.pubs)+len(n.subs)+len(n.srvs)+len(n.paramSubs) == 0
}

// registrationKind selects one of the registries a node can be in.
type registrationKind int

const (
	kindPublisher registrationKind = iota
	kindSubscriber
	kindService
	kindParamSubscriber
)

func (n *nodeEntry) set(kind registrationKind) map[string]bool {
	switch kind {
	case kindPublisher:
		return n.pubs
	case kindSubscriber:
		return n.subs
	case kindService:
		return n.srvs
	default:
		return n.paramSubs
	}
}

// graph is the master's view of the ROS computation graph. It is not safe for
// concurrent use; the master serializes access.
//
// The graph keeps count of the memory it takes (see graphCost), so that
// the master can refuse registrations past its limit.
type graph struct {
	nodes      map[string]*nodeEntry
	pubs       map[string][]registrant
	subs       map[string][]registrant
	paramSubs  map[string][]registrant
	services   map[string]serviceProvider
	topicTypes map[string]string
	bytes      int64 // the memory of the entries, kept up to date
}

// The memory graph entries take, as the graph limit counts it: the bytes of
// their names and URIs, plus an overhead close to what Go spends on them.
const (
	nodeOverhead     = 256 // a nodeEntry with its four maps, and its slot
	regOverhead      = 96  // a registration: a slot in a node's set and a registrant
	serviceOverhead  = 64
	topicTypeOverhad = 64
)

// nodeCost is the memory of a node entry without its registrations.
func nodeCost(callerID, api string) int64 {
	return nodeOverhead + int64(len(callerID)+len(api))
}

// regCost is the memory of one registration of a node for key: the key in
// the node's set, and the node in the key's registry (for services, the
// provider in the services map is serviceCost).
func regCost(key string) int64 {
	return regOverhead + int64(len(key))
}

func serviceCost(service string, p serviceProvider) int64 {
	return serviceOverhead + int64(len(service)+len(p.callerID)+len(p.serviceAPI))
}

func topicTypeCost(topic, typ string) int64 {
	return topicTypeOverhad + int64(len(topic)+len(typ))
}

// cost is what a node entry takes with all its registrations.
func (n *nodeEntry) cost(callerID string) int64 {
	c := nodeCost(callerID, n.api)
	for _, set := range []map[string]bool{n.pubs, n.subs, n.srvs, n.paramSubs} {
		for key := range set {
			c += regCost(key)
		}
	}
	return c
}

// recount computes the memory of the graph from scratch; bytes must always
// equal it.
func (g *graph) recount() int64 {
	var c int64
	for id, n := range g.nodes {
		c += n.cost(id)
	}
	for s, p := range g.services {
		c += serviceCost(s, p)
	}
	for topic, typ := range g.topicTypes {
		c += topicTypeCost(topic, typ)
	}
	return c
}

// setTopicType records the type of a topic.
func (g *graph) setTopicType(topic, typ string) {
	if old, ok := g.topicTypes[topic]; ok {
		g.bytes -= topicTypeCost(topic, old)
	}
	g.topicTypes[topic] = typ
	g.bytes += topicTypeCost(topic, typ)
}

func newGraph() *graph {
	return &graph{
		nodes:      map[string]*nodeEntry{},
		pubs:       map[string][]registrant{},
		subs:       map[string][]registrant{},
		paramSubs:  map[string][]registrant{},
		services:   map[string]serviceProvider{},
		topicTypes: map[string]string{},
	}
}

func (g *graph) registry(kind registrationKind) map[string][]registrant {
	switch kind {
	case kindPublisher:
		return g.pubs
	case kindSubscriber:
		return g.subs
	default:
		return g.paramSubs
	}
}

// bumped describes a node that was replaced by a new node of the same name.
type bumped struct {
	callerID string
	oldAPI   string
	// lostTopics are the topics the old node published: their subscribers
	// need a new publisher list.
	lostTopics []string
}

// enter records callerID at callerAPI. When the name was registered at
// another URI, the old node's registrations are all dropped (it is told to
// shut down by the caller of enter) and returned.
func (g *graph) enter(callerID, callerAPI string) (*nodeEntry, *bumped) {
	n := g.nodes[callerID]
	if n != nil && n.api == callerAPI {
		return n, nil
	}
	var b *bumped
	if n != nil {
		g.bytes -= n.cost(callerID)
		b = &bumped{callerID: callerID, oldAPI: n.api}
		for topic := range n.pubs {
			b.lostTopics = append(b.lostTopics, topic)
		}
		sort.Strings(b.lostTopics)
		for _, kind := range []registrationKind{kindPublisher, kindSubscriber, kindParamSubscriber} {
			reg := g.registry(kind)
			for key := range n.set(kind) {
				reg[key] = without(reg[key], func(r registrant) bool { return r.callerID == callerID })
				if len(reg[key]) == 0 {
					delete(reg, key)
				}
			}
		}
		for srv := range n.srvs {
			if p := g.services[srv]; p.callerID == callerID {
				g.bytes -= serviceCost(srv, p)
				delete(g.services, srv)
			}
		}
	}
	n = &nodeEntry{
		api:       callerAPI,
		pubs:      map[string]bool{},
		subs:      map[string]bool{},
		srvs:      map[string]bool{},
		paramSubs: map[string]bool{},
	}
	g.nodes[callerID] = n
	g.bytes += nodeCost(callerID, callerAPI)
	return n, b
}

// register adds callerID as a publisher, subscriber or parameter subscriber
// of key.
func (g *graph) register(kind registrationKind, key, callerID, callerAPI string) *bumped {
	n, b := g.enter(callerID, callerAPI)
	if set := n.set(kind); !set[key] {
		set[key] = true
		g.bytes += regCost(key)
	}
	reg := g.registry(kind)
	r := registrant{callerID: callerID, callerAPI: callerAPI}
	for _, have := range reg[key] {
		if have == r {
			return b
		}
	}
	reg[key] = append(reg[key], r)
	return b
}

// registerService makes callerID the provider of a service; a previous
// provider is replaced.
func (g *graph) registerService(service, callerID, callerAPI, serviceAPI string) *bumped {
	n, b := g.enter(callerID, callerAPI)
	if !n.srvs[service] {
		n.srvs[service] = true
		g.bytes += regCost(service)
	}
	if old, ok := g.services[service]; ok {
		g.bytes -= serviceCost(service, old)
	}
	p := serviceProvider{callerID: callerID, serviceAPI: serviceAPI}
	g.services[service] = p
	g.bytes += serviceCost(service, p)
	return b
}

// unregister removes callerID at callerAPI from key and reports how many
// registrations were removed (0 or 1) with rosmaster's status message.
func (g *graph) unregister(kind registrationKind, key, callerID, callerAPI string) (int, string) {
	n := g.nodes[callerID]
	if n == nil {
		return 0, fmt.Sprintf("[%s] is not a registered node", callerID)
	}
	reg := g.registry(kind)
	r := registrant{callerID: callerID, callerAPI: callerAPI}
	count, msg := 0, fmt.Sprintf("[%s] is not a known provider of [%s]", callerID, key)
	before := len(reg[key])
	reg[key] = without(reg[key], func(have registrant) bool { return have == r })
	if len(reg[key]) < before {
		count, msg = 1, fmt.Sprintf("Unregistered [%s] as provider of [%s]", callerID, key)
		delete(n.set(kind), key)
		g.bytes -= regCost(key)
	}
	if len(reg[key]) == 0 {
		delete(reg, key)
	}
	g.forgetIfEmpty(callerID, n)
	return count, msg
}

// unregisterService removes callerID as provider of service, if its
// service URI is still the current one.
func (g *graph) unregisterService(service, callerID, serviceAPI string) (int, string) {
	n := g.nodes[callerID]
	if n == nil {
		return 0, fmt.Sprintf("[%s] is not a registered node", callerID)
	}
	count, msg := 0, fmt.Sprintf("[%s] is not a provider of [%s]", callerID, service)
	if p, ok := g.services[service]; ok {
		if p == (serviceProvider{callerID: callerID, serviceAPI: serviceAPI}) {
			g.bytes -= serviceCost(service, p) + regCost(service)
			delete(g.services, service)
			delete(n.srvs, service)
			count, msg = 1, fmt.Sprintf("Unregistered [%s] as provider of [%s]", callerID, service)
		} else {
			msg = fmt.Sprintf("[%s] is no longer the current service api handle for [%s]", serviceAPI, service)
		}
	}
	g.forgetIfEmpty(callerID, n)
	return count, msg
}

func (g *graph) forgetIfEmpty(callerID string, n *nodeEntry) {
	if n.empty() {
		g.bytes -= nodeCost(callerID, n.api)
		delete(g.nodes, callerID)
	}
}

// apis returns the slave API URIs registered for key.
func apis(regs []registrant) []string {
	out := make([]string, len(regs))
	for i, r := range regs {
		out[i] = r.callerAPI
	}
	return out
}

// stateOf lists, for each key sorted by name, the IDs of the nodes
// registered for it.
func stateOf(reg map[string][]registrant) []apimaster.SystemStateEntry {
	keys := make([]string, 0, len(reg))
	for k := range reg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]apimaster.SystemStateEntry, 0, len(keys))
	for _, k := range keys {
		ids := make([]string, 0, len(reg[k]))
		for _, r := range reg[k] {
			ids = append(ids, r.callerID)
		}
		out = append(out, apimaster.SystemStateEntry{Name: k, Nodes: ids})
	}
	return out
}

func without(regs []registrant, drop func(registrant) bool) []registrant {
	out := regs[:0:0]
	for _, r := range regs {
		if !drop(r) {
			out = append(out, r)
		}
	}
	return out
}
