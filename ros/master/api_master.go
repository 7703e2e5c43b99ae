package master

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/apislave"
)

// masterCallerID is the caller ID the master uses in calls to nodes.
const masterCallerID = "/master"

// masterMethods returns the Master API (https://wiki.ros.org/ROS/Master_API).
// Every answer is [code, statusMessage, value] with code 1 for success, -1
// for a caller error and 0 for a failure, as rosmaster answers.
func (m *Master) masterMethods() map[string]method {
	return map[string]method{
		"getUri":            m.getURI,
		"getPid":            m.getPid,
		"shutdown":          m.shutdown,
		"registerPublisher": m.registerPublisher,
		"unregisterPublisher": func(_ *peer, p []any) any {
			return m.unregisterTopic(kindPublisher, p)
		},
		"registerSubscriber": m.registerSubscriber,
		"unregisterSubscriber": func(_ *peer, p []any) any {
			return m.unregisterTopic(kindSubscriber, p)
		},
		"registerService":    m.registerService,
		"unregisterService":  m.unregisterService,
		"lookupService":      m.lookupService,
		"lookupNode":         m.lookupNode,
		"getPublishedTopics": m.getPublishedTopics,
		"getTopicTypes":      m.getTopicTypes,
		"getSystemState":     m.getSystemState,
	}
}

func (m *Master) getURI(_ *peer, p []any) any {
	var req apimaster.RequestGetURI
	if res, ok := bind(p, &req, func(msg string) any {
		return apimaster.ResponseGetURI{Code: -1, StatusMessage: msg}
	}); !ok {
		return res
	}
	return apimaster.ResponseGetURI{Code: 1, MasterURI: m.URI()}
}

func (m *Master) getPid(_ *peer, p []any) any {
	var req apislave.RequestGetPid
	if res, ok := bind(p, &req, func(msg string) any {
		return apislave.ResponseGetPid{Code: -1, StatusMessage: msg, Pid: -1}
	}); !ok {
		return res
	}
	return apislave.ResponseGetPid{Code: 1, Pid: m.pid}
}

// shutdown stops the master on request from the network, as rosmaster does;
// unlike rosmaster, it says so in the log, with the caller and its address,
// and StoppedBy tells the program that embeds it.
func (m *Master) shutdown(from *peer, p []any) any {
	var req requestShutdownMaster
	if len(p) == 1 {
		p = append(p, "")
	}
	if res, ok := bind(p, &req, func(msg string) any {
		return responseCount{Code: -1, StatusMessage: msg}
	}); !ok {
		return res
	}
	call := ShutdownCall{CallerID: req.CallerID, Addr: from.addr, Reason: req.Reason}
	m.mu.Lock()
	first := m.stoppedBy == nil && !m.closing
	if first {
		m.stoppedBy = &call
	}
	m.mu.Unlock()
	if first {
		m.logf("shutdown requested by %s", call)
	}
	go m.Close() //nolint:errcheck // Close waits for this request to be answered
	return responseCount{Code: 1, StatusMessage: "shutdown"}
}

func (m *Master) registerPublisher(from *peer, p []any) any {
	var req apimaster.RequestRegister
	invalid := func(msg string) any {
		return apimaster.ResponseRegister{Code: -1, StatusMessage: msg, URIs: []string{}}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := firstError(
		checkGraphName("topic", req.Topic),
		checkTypeName("topic_type", req.TopicType),
		checkAPI("caller_api", req.CallerURL),
	); err != nil {
		return invalid(err.Error())
	}
	topic := resolveName(req.Topic, req.CallerID)
	if topic == "/" {
		return invalid("ERROR: parameter [topic] cannot be the global namespace")
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.graphRoom(from, "publisher", req.CallerID, topic,
		nodeCost(req.CallerID, req.CallerURL)+regCost(topic)+topicTypeCost(topic, req.TopicType)); err != nil {
		return invalid(err.Error())
	}
	b := m.graph.register(kindPublisher, topic, req.CallerID, req.CallerURL)
	if req.TopicType != "*" || m.graph.topicTypes[topic] == "" {
		m.graph.setTopicType(topic, req.TopicType)
	}
	m.afterBump(b)
	m.notifySubscribers(topic)
	return apimaster.ResponseRegister{
		Code:          1,
		StatusMessage: fmt.Sprintf("Registered [%s] as publisher of [%s]", req.CallerID, topic),
		URIs:          apis(m.graph.subs[topic]),
	}
}

func (m *Master) registerSubscriber(from *peer, p []any) any {
	var req apimaster.RequestRegister
	invalid := func(msg string) any {
		return apimaster.ResponseRegister{Code: -1, StatusMessage: msg, URIs: []string{}}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := firstError(
		checkGraphName("topic", req.Topic),
		checkTypeName("topic_type", req.TopicType),
		checkAPI("caller_api", req.CallerURL),
	); err != nil {
		return invalid(err.Error())
	}
	topic := resolveName(req.Topic, req.CallerID)
	if topic == "/" {
		return invalid("ERROR: parameter [topic] cannot be the global namespace")
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.graphRoom(from, "subscriber", req.CallerID, topic,
		nodeCost(req.CallerID, req.CallerURL)+regCost(topic)+topicTypeCost(topic, req.TopicType)); err != nil {
		return invalid(err.Error())
	}
	b := m.graph.register(kindSubscriber, topic, req.CallerID, req.CallerURL)
	// A subscriber names the type only while no one else has.
	if _, ok := m.graph.topicTypes[topic]; !ok && req.TopicType != "*" {
		m.graph.setTopicType(topic, req.TopicType)
	}
	m.afterBump(b)
	return apimaster.ResponseRegister{
		Code:          1,
		StatusMessage: fmt.Sprintf("Subscribed to [%s]", topic),
		URIs:          apis(m.graph.pubs[topic]),
	}
}

func (m *Master) unregisterTopic(kind registrationKind, p []any) any {
	var req apimaster.RequestUnregister
	invalid := func(msg string) any {
		return apimaster.ResponseUnregister{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := firstError(
		checkGraphName("topic", req.Topic),
		checkAPI("caller_api", req.CallerURL),
	); err != nil {
		return invalid(err.Error())
	}
	topic := resolveName(req.Topic, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	n, msg := m.graph.unregister(kind, topic, req.CallerID, req.CallerURL)
	if kind == kindPublisher && n > 0 {
		m.notifySubscribers(topic)
	}
	return apimaster.ResponseUnregister{Code: 1, StatusMessage: msg, NumUnregistered: n}
}

func (m *Master) registerService(from *peer, p []any) any {
	var req apimaster.RequestRegisterService
	invalid := func(msg string) any {
		return apimaster.ResponseRegisterService{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := firstError(
		checkGraphName("service", req.Service),
		checkAPI("service_api", req.ServiceURL),
		checkAPI("caller_api", req.CallerURL),
	); err != nil {
		return invalid(err.Error())
	}
	service := resolveName(req.Service, req.CallerID)
	if service == "/" {
		return invalid("ERROR: parameter [service] cannot be the global namespace")
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.graphRoom(from, "provider", req.CallerID, service, nodeCost(req.CallerID, req.CallerURL)+regCost(service)+
		serviceCost(service, serviceProvider{callerID: req.CallerID, serviceAPI: req.ServiceURL})); err != nil {
		return invalid(err.Error())
	}
	b := m.graph.registerService(service, req.CallerID, req.CallerURL, req.ServiceURL)
	m.afterBump(b)
	return apimaster.ResponseRegisterService{
		Code:          1,
		StatusMessage: fmt.Sprintf("Registered [%s] as provider of [%s]", req.CallerID, service),
		Ignore:        1,
	}
}

func (m *Master) unregisterService(_ *peer, p []any) any {
	var req apimaster.RequestUnregisterService
	invalid := func(msg string) any {
		return apimaster.ResponseServiceUnregister{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := firstError(
		checkGraphName("service", req.Service),
		checkAPI("service_api", req.ServiceURL),
	); err != nil {
		return invalid(err.Error())
	}
	service := resolveName(req.Service, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	n, msg := m.graph.unregisterService(service, req.CallerID, req.ServiceURL)
	return apimaster.ResponseServiceUnregister{Code: 1, StatusMessage: msg, NumUnregistered: n}
}

func (m *Master) lookupService(_ *peer, p []any) any {
	var req apimaster.RequestLookup
	invalid := func(msg string) any {
		return apimaster.ResponseLookup{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := checkGraphName("service", req.Name); err != nil {
		return invalid(err.Error())
	}
	service := resolveName(req.Name, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	provider, ok := m.graph.services[service]
	if !ok {
		return apimaster.ResponseLookup{Code: -1, StatusMessage: "no provider"}
	}
	return apimaster.ResponseLookup{
		Code:          1,
		StatusMessage: fmt.Sprintf("rosrpc URI: [%s]", provider.serviceAPI),
		URL:           provider.serviceAPI,
	}
}

// lookupNode returns the slave API URI a node registered with. A node that
// died without unregistering is still known: its stale URI is returned, as
// rosmaster does, and callers find out when they try to reach it.
func (m *Master) lookupNode(_ *peer, p []any) any {
	var req apimaster.RequestLookup
	invalid := func(msg string) any {
		return apimaster.ResponseLookup{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := checkGraphName("node", req.Name); err != nil {
		return invalid(err.Error())
	}
	name := resolveName(req.Name, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.graph.nodes[name]
	if !ok {
		return apimaster.ResponseLookup{Code: -1, StatusMessage: fmt.Sprintf("unknown node [%s]", name)}
	}
	return apimaster.ResponseLookup{Code: 1, StatusMessage: "node api", URL: n.api}
}

// getPublishedTopics lists the topics that have publishers, with their
// types, under a namespace resolved against the caller ("" for all).
func (m *Master) getPublishedTopics(_ *peer, p []any) any {
	var req apimaster.RequestGetPublishedTopics
	invalid := func(msg string) any {
		return apimaster.ResponseGetPublishedTopics{Code: -1, StatusMessage: msg, Topics: [][]string{}}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	prefix := ""
	if req.Subgraph != "" {
		prefix = resolveName(req.Subgraph, req.CallerID)
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	topics := [][]string{}
	for topic := range m.graph.pubs {
		if strings.HasPrefix(topic, prefix) {
			topics = append(topics, []string{topic, m.graph.topicTypes[topic]})
		}
	}
	sort.Slice(topics, func(i, j int) bool { return topics[i][0] < topics[j][0] })
	return apimaster.ResponseGetPublishedTopics{Code: 1, StatusMessage: "current topics", Topics: topics}
}

// getTopicTypes lists every topic whose type the master has learned, even
// after its nodes left, as rosmaster does.
func (m *Master) getTopicTypes(_ *peer, p []any) any {
	var req apimaster.RequestGetTopicTypes
	invalid := func(msg string) any {
		return apimaster.ResponseGetTopicTypes{Code: -1, StatusMessage: msg, Types: []apimaster.TopicType{}}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	types := make([]apimaster.TopicType, 0, len(m.graph.topicTypes))
	for topic, typ := range m.graph.topicTypes {
		types = append(types, apimaster.TopicType{Name: topic, Type: typ})
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	return apimaster.ResponseGetTopicTypes{Code: 1, StatusMessage: "current system state", Types: types}
}

func (m *Master) getSystemState(_ *peer, p []any) any {
	var req apimaster.RequestGetSystemState
	empty := apimaster.SystemState{
		PublishedTopics:  []apimaster.SystemStateEntry{},
		SubscribedTopics: []apimaster.SystemStateEntry{},
		ProvidedServices: []apimaster.SystemStateEntry{},
	}
	if res, ok := bind(p, &req, func(msg string) any {
		return apimaster.ResponseGetSystemState{Code: -1, StatusMessage: msg, State: empty}
	}); !ok {
		return res
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	services := map[string][]registrant{}
	for name, provider := range m.graph.services {
		services[name] = []registrant{{callerID: provider.callerID}}
	}
	return apimaster.ResponseGetSystemState{
		Code:          1,
		StatusMessage: "current system state",
		State: apimaster.SystemState{
			PublishedTopics:  stateOf(m.graph.pubs),
			SubscribedTopics: stateOf(m.graph.subs),
			ProvidedServices: stateOf(services),
		},
	}
}

// notifySubscribers queues a publisherUpdate with the current publishers of
// topic to each of its subscribers. The caller holds m.mu, so updates are
// queued in the order the registrations changed. A node that another took
// the name of stays in the list until it has answered its shutdown call
// (see afterBump).
func (m *Master) notifySubscribers(topic string) {
	pubs := apis(m.graph.pubs[topic])
	for api := range m.leaving[topic] {
		if !slices.Contains(pubs, api) {
			pubs = append(pubs, api)
		}
	}
	for _, sub := range m.graph.subs[topic] {
		m.slaves.send(sub.callerAPI, slaveCall{
			method: "publisherUpdate",
			params: apislave.RequestPublisherUpdate{
				CallerID:      masterCallerID,
				Topic:         topic,
				PublisherURLs: pubs,
			},
			supersedes: "publisherUpdate " + topic,
		})
	}
}

// afterBump tells a node that was replaced by a new node of the same name to
// shut down, as rosmaster does, and, once it has answered (or could not be
// reached), tells the subscribers of the topics it published that it is
// gone. Until then the subscribers keep their connections to it, even when
// the new node publishes one of its topics too (the caller notifies that
// topic at once, the old node still listed): a controller that is shut
// down stops its robot before it answers, and its last zero velocity and
// goal cancels must travel on those connections. rosmaster never tells the
// subscribers (they notice the closed connections); a node that does not
// answer holds its topics' lists at most slaveCallTimeout. The caller
// holds m.mu.
func (m *Master) afterBump(b *bumped) {
	if b == nil {
		return
	}
	for _, topic := range b.lostTopics {
		if m.leaving[topic] == nil {
			m.leaving[topic] = map[string]bool{}
		}
		m.leaving[topic][b.oldAPI] = true
	}
	m.slaves.send(b.oldAPI, slaveCall{
		method: "shutdown",
		params: apislave.RequestShutdown{
			CallerID: masterCallerID,
			Reason:   fmt.Sprintf("[%s] Reason: new node registered with same name", b.callerID),
		},
		done: func() { m.bumpDone(b) },
	})
}

// bumpDone takes a replaced node off the publisher lists of its topics once
// it has answered its shutdown call, and tells their subscribers.
func (m *Master) bumpDone(b *bumped) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, topic := range b.lostTopics {
		delete(m.leaving[topic], b.oldAPI)
		if len(m.leaving[topic]) == 0 {
			delete(m.leaving, topic)
		}
		if !m.closing {
			m.notifySubscribers(topic)
		}
	}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// graphRoom refuses a registration of callerID as what for key when the
// graph could outgrow MaxGraphBytes with it (cost is what it takes at most,
// with a new node entry). The caller holds m.mu.
func (m *Master) graphRoom(from *peer, what, callerID, key string, cost int64) error {
	if m.graph.bytes+cost <= m.conf.MaxGraphBytes {
		return nil
	}
	err := fmt.Errorf("ERROR: graph memory limit: registering %s as %s of %s (%s) would bring the graph to %s, over the master's limit of %s (MaxGraphBytes)",
		callerID, what, key, formatBytes(cost), formatBytes(m.graph.bytes+cost), formatBytes(m.conf.MaxGraphBytes))
	m.logf("refused %s, from %s", strings.TrimPrefix(err.Error(), "ERROR: "), from.addr)
	return err
}
