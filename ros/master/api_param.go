package master

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bluenviron/goroslib/v2/pkg/apiparam"
)

// paramMethods returns the Parameter Server API
// (https://wiki.ros.org/ROS/Parameter%20Server%20API). Keys are resolved
// against the caller's namespace; "~key" is private to the caller.
func (m *Master) paramMethods() map[string]method {
	return map[string]method{
		"setParam":         m.setParam,
		"getParam":         m.getParam,
		"deleteParam":      m.deleteParam,
		"hasParam":         m.hasParam,
		"searchParam":      m.searchParam,
		"getParamNames":    m.getParamNames,
		"subscribeParam":   m.subscribeParam,
		"unsubscribeParam": m.unsubscribeParam,
	}
}

func checkKey(key string) error {
	if key == "" {
		return fmt.Errorf("ERROR: parameter [key] must be specified and non-empty")
	}
	return nil
}

// setParam stores a value; a dictionary replaces the whole namespace at key.
// Subscribers of key, of a namespace above it or of a key inside it get a
// paramUpdate, except the caller itself.
func (m *Master) setParam(from *peer, p []any) any {
	var req requestSetParam
	invalid := func(msg string) any {
		return apiparam.ResponseSetParam{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := checkKey(req.Key); err != nil {
		return invalid(err.Error())
	}
	if req.Value == nil {
		return invalid("ERROR: parameter [value] must be specified")
	}
	key := resolveName(req.Key, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.params.set(key, req.Value); err != nil {
		var limit *paramLimitError
		if errors.As(err, &limit) {
			m.logf("refused setParam %s from %s (%s): %v", key, req.CallerID, from.addr, err)
			return apiparam.ResponseSetParam{Code: -1, StatusMessage: "ERROR: " + err.Error()}
		}
		return apiparam.ResponseSetParam{Code: 0, StatusMessage: "Internal failure: " + err.Error()}
	}
	m.notifyParamSubscribers(key, req.Value, req.CallerID)
	return apiparam.ResponseSetParam{Code: 1, StatusMessage: fmt.Sprintf("parameter %s set", key)}
}

// getParam returns a value, or a dictionary for a namespace.
func (m *Master) getParam(from *peer, p []any) any {
	var req requestParamKey
	invalid := func(msg string) any {
		return responseParamValue{Code: -1, StatusMessage: msg, Value: 0}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := checkKey(req.Key); err != nil {
		return invalid(err.Error())
	}
	key := resolveName(req.Key, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	v, err := m.copyParam(from, key)
	if errors.Is(err, errParamNotSet) {
		return responseParamValue{Code: -1, StatusMessage: fmt.Sprintf("Parameter [%s] is not set", key), Value: 0}
	}
	if err != nil {
		return &fault{Code: 1, Message: err.Error()}
	}
	return responseParamValue{Code: 1, StatusMessage: fmt.Sprintf("Parameter [%s]", key), Value: v}
}

func (m *Master) deleteParam(_ *peer, p []any) any {
	var req requestParamKey
	invalid := func(msg string) any {
		return apiparam.ResponseDeleteParam{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := checkKey(req.Key); err != nil {
		return invalid(err.Error())
	}
	key := resolveName(req.Key, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.params.remove(key); err != nil {
		return invalid(fmt.Sprintf("parameter [%s] is not set", key))
	}
	m.notifyParamSubscribers(key, map[string]any{}, "")
	return apiparam.ResponseDeleteParam{Code: 1, StatusMessage: fmt.Sprintf("parameter %s deleted", key)}
}

// hasParam answers [1, resolvedKey, isSet].
func (m *Master) hasParam(_ *peer, p []any) any {
	var req requestParamKey
	invalid := func(msg string) any {
		return apiparam.ResponseHasParam{Code: -1, KeyOut: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := checkKey(req.Key); err != nil {
		return invalid(err.Error())
	}
	key := resolveName(req.Key, req.CallerID)

	m.mu.Lock()
	defer m.mu.Unlock()
	return apiparam.ResponseHasParam{Code: 1, KeyOut: key, Res: m.params.has(key)}
}

func (m *Master) searchParam(_ *peer, p []any) any {
	var req requestParamKey
	invalid := func(msg string) any {
		return apiparam.ResponseSearchParam{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := checkKey(req.Key); err != nil {
		return invalid(err.Error())
	}
	if strings.HasPrefix(req.Key, "~") {
		return invalid(fmt.Sprintf("ERROR: cannot search for the private name [%s]", req.Key))
	}
	if !strings.HasPrefix(req.CallerID, "/") {
		return invalid(fmt.Sprintf("ERROR: caller_id [%s] must be a global name to search from", req.CallerID))
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	found, ok := m.params.search(req.CallerID, req.Key)
	if !ok {
		return apiparam.ResponseSearchParam{
			Code:          -1,
			StatusMessage: fmt.Sprintf("Cannot find parameter [%s] in an upwards search", req.Key),
		}
	}
	return apiparam.ResponseSearchParam{Code: 1, StatusMessage: fmt.Sprintf("Found [%s]", found), FoundKey: found}
}

// getParamNames lists every parameter that holds a value, not its
// namespaces, whatever the caller's namespace.
func (m *Master) getParamNames(from *peer, p []any) any {
	var req apiparam.RequestGetParamNames
	invalid := func(msg string) any {
		return apiparam.ResponseGetParamNames{Code: -1, StatusMessage: msg, List: []string{}}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.reserve(from, m.params.namesSize()); err != nil {
		return &fault{Code: 1, Message: err.Error()}
	}
	return apiparam.ResponseGetParamNames{Code: 1, StatusMessage: "Parameter names", List: m.params.names()}
}

// copyParam returns a copy of the value at key, for an answer, after
// reserving the memory of the copy for the request. The caller holds m.mu.
func (m *Master) copyParam(from *peer, key string) (any, error) {
	v, ok := m.params.lookup(key)
	if !ok {
		return nil, errParamNotSet
	}
	if err := m.reserve(from, sizeOf(v)); err != nil {
		return nil, err
	}
	return deepCopy(v), nil
}

// reserve takes n bytes of the work budget for an answer the request is
// building, without waiting: the caller holds m.mu, and a client asking for
// more than is free is most likely one of many asking for everything.
func (m *Master) reserve(from *peer, n int64) error {
	if n <= smallRequest {
		return nil
	}
	if !m.work.tryAcquire(n) {
		m.logf("refused an answer of %s to %s: the master is busy with %s of other requests",
			formatBytes(n), from.addr, formatBytes(m.work.size))
		return fmt.Errorf("the master is busy answering other large requests (an answer of %s does not fit in %s); try again",
			formatBytes(n), formatBytes(m.work.size))
	}
	from.reserved += n
	return nil
}

// subscribeParam registers the caller for paramUpdate pushes on key and
// returns its current value, or an empty dictionary when it is not set.
func (m *Master) subscribeParam(from *peer, p []any) any {
	var req requestSubscribeParam
	invalid := func(msg string) any {
		return responseParamValue{Code: -1, StatusMessage: msg, Value: 0}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := firstError(checkAPI("caller_api", req.CallerAPI), checkKey(req.Key)); err != nil {
		return invalid(err.Error())
	}
	key := subscriptionKey(resolveName(req.Key, req.CallerID))

	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.graphRoom(from, "parameter subscriber", req.CallerID, key,
		nodeCost(req.CallerID, req.CallerAPI)+regCost(key)); err != nil {
		return invalid(err.Error())
	}
	v, err := m.copyParam(from, key)
	if errors.Is(err, errParamNotSet) {
		v = map[string]any{}
	} else if err != nil {
		return &fault{Code: 1, Message: err.Error()}
	}
	b := m.graph.register(kindParamSubscriber, key, req.CallerID, req.CallerAPI)
	m.afterBump(b)
	return responseParamValue{Code: 1, StatusMessage: fmt.Sprintf("Subscribed to parameter [%s]", key), Value: v}
}

func (m *Master) unsubscribeParam(_ *peer, p []any) any {
	var req requestSubscribeParam
	invalid := func(msg string) any {
		return responseCount{Code: -1, StatusMessage: msg}
	}
	if res, ok := bind(p, &req, invalid); !ok {
		return res
	}
	if err := firstError(checkAPI("caller_api", req.CallerAPI), checkKey(req.Key)); err != nil {
		return invalid(err.Error())
	}
	key := subscriptionKey(resolveName(req.Key, req.CallerID))

	m.mu.Lock()
	defer m.mu.Unlock()
	n, _ := m.graph.unregister(kindParamSubscriber, key, req.CallerID, req.CallerAPI)
	return responseCount{Code: 1, StatusMessage: fmt.Sprintf("Unsubscribe to parameter [%s]", key), Count: n}
}

// subscriptionKey is how a parameter subscription is stored: canonical, with
// a trailing slash, so that a prefix test finds the keys inside it.
func subscriptionKey(key string) string {
	if key == "/" {
		return key
	}
	return canonicalName(key) + "/"
}

// paramUpdate is one paramUpdate push: the key (with a trailing slash, as
// rosmaster sends it) and its new value to the given nodes. An empty
// dictionary means deleted.
type paramUpdate struct {
	to    []registrant
	key   string
	value any
}

// paramUpdates computes who hears about a change of key to value:
//   - subscribers of key or of a namespace above it get the new value
//     (except skipCaller, the node that made the change);
//   - when value is a dictionary, subscribers of a key inside it get their
//     own part of it, and subscribers of keys below key that the dictionary
//     no longer holds get an empty dictionary: their parameter is gone.
func paramUpdates(subs map[string][]registrant, key string, value any, skipCaller string) []paramUpdate {
	if len(subs) == 0 {
		return nil
	}
	changed := subscriptionKey(key)
	dict, isDict := value.(map[string]any)
	inside := map[string]any{} // subscription key -> value, for keys inside the dictionary
	if isDict {
		var walk func(prefix string, d map[string]any)
		walk = func(prefix string, d map[string]any) {
			for k, v := range d {
				sk := prefix + k + "/"
				inside[sk] = v
				if sub, ok := v.(map[string]any); ok {
					walk(sk, sub)
				}
			}
		}
		walk(changed, dict)
	}

	var out []paramUpdate
	for _, subKey := range sortedKeys(subs) {
		regs := subs[subKey]
		switch {
		case strings.HasPrefix(changed, subKey):
			var to []registrant
			for _, r := range regs {
				if skipCaller == "" || r.callerID != skipCaller {
					to = append(to, r)
				}
			}
			out = append(out, paramUpdate{to: to, key: changed, value: value})
		case isDict && strings.HasPrefix(subKey, changed):
			if v, ok := inside[subKey]; ok {
				out = append(out, paramUpdate{to: regs, key: subKey, value: v})
			} else {
				out = append(out, paramUpdate{to: regs, key: subKey, value: map[string]any{}})
			}
		}
	}
	return out
}

// notifyParamSubscribers queues the paramUpdate pushes for a change. The
// caller holds m.mu.
func (m *Master) notifyParamSubscribers(key string, value any, skipCaller string) {
	for _, u := range paramUpdates(m.graph.paramSubs, key, value, skipCaller) {
		// One copy for every node: the pushes only read it.
		value := deepCopy(u.value)
		for _, r := range u.to {
			m.slaves.send(r.callerAPI, slaveCall{
				method:     "paramUpdate",
				params:     requestParamUpdate{CallerID: masterCallerID, Key: u.key, Value: value},
				supersedes: "paramUpdate " + u.key,
			})
		}
	}
}

func sortedKeys(m map[string][]registrant) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
