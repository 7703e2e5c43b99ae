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
type graph struct {
	nodes      map[string]*nodeEntry
	pubs       map[string][]registrant
	subs       map[string][]registrant
	paramSubs  map[string][]registrant
	services   map[string]serviceProvider
	topicTypes map[string]string
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
			if g.services[srv].callerID == callerID {
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
	return n, b
}

// register adds callerID as a publisher, subscriber or parameter subscriber
// of key.
func (g *graph) register(kind registrationKind, key, callerID, callerAPI string) *bumped {
	n, b := g.enter(callerID, callerAPI)
	n.set(kind)[key] = true
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
	n.srvs[service] = true
	g.services[service] = serviceProvider{callerID: callerID, serviceAPI: serviceAPI}
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
