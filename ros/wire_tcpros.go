package ros

// btrobot's own TCPROS node behind a Conn (Conf.Wire = "tcpros"): the
// streams of package tcpros, whose parsing is bounded (nothing a peer sends
// reaches an unbounded allocation, issue 24), the node's slave API served
// with ros/master's XML-RPC codec, every request bounded in size and time,
// and the master API called with the same codec, every call bounded by
// Conf.MasterTimeout and every answer in size.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"

	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// Bounds of the tcpros wire's XML-RPC.
const (
	// maxSlaveRequest bounds a call to the node's slave API.
	maxSlaveRequest = 1 << 20
	// maxMasterAnswer bounds an answer of the master (getSystemState of a
	// large graph, a large parameter).
	maxMasterAnswer = 16 << 20
	// maxPeerAnswer bounds an answer of another node's slave API
	// (requestTopic, getPid).
	maxPeerAnswer = 64 << 10
	// maxSlaveConns bounds the connections to the slave API at once.
	maxSlaveConns = 64
	// maxPublishers bounds the publishers of one topic the node connects
	// to: a publisherUpdate naming more is cut there (and logged).
	maxPublishers = 256
	// slaveRequestTimeout bounds how long a caller of the slave API may
	// take to send its request.
	slaveRequestTimeout = 10 * time.Second
)

// The wires a Conf can choose.
const (
	WireGoroslib = "goroslib"
	WireTCPROS   = "tcpros"
)

// tcprosWire is a node of btrobot's own TCPROS.
type tcprosWire struct {
	conf   Conf
	name   string
	host   string
	ev     wireEvents
	srv    *tcpros.Server
	port   int // the TCPROS port
	http   *http.Server
	uri    string // the slave API's URI
	client *http.Client
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	rosout *tcpros.Publisher

	mu       sync.Mutex
	closed   bool
	subs     map[string]*tcprosSub
	pubs     map[string]*tcprosPub
	provided map[string]bool
}

// tcprosSub is the node's subscription to one topic: one connection per
// publisher, every receiver called with every message, one at a time.
type tcprosSub struct {
	topic, typ, md5, def string
	t                    reflect.Type
	deliver              sync.Mutex // one message at a time, to every receiver
	rmu                  sync.Mutex // guards receivers
	receivers            map[int]func(any)
	next                 int
	conns                map[string]*tcprosLink // by publisher URI
	// announced: the master has sent a publisherUpdate for the topic since
	// this subscription registered. The master sends one only to a
	// subscriber it has registered, so its list is at least as new as the
	// registration's reply, which may arrive after it: the reply is then
	// stale and must not undo the update.
	announced bool
}

// tcprosLink is the subscription's link to one publisher: the goroutine
// that connects to it (and again after a failure or a dropped connection,
// as roscpp does, while the master lists the publisher), and the
// connection while there is one. An entry of tcprosSub.conns is its own
// link: a URI dropped and listed again gets a new one.
type tcprosLink struct {
	sub *tcpros.Subscription // nil while connecting
}

type tcprosPub struct {
	w     *tcprosWire
	topic string
	typ   string
	p     *tcpros.Publisher
}

func newTcprosWire(conf Conf, ns string, ev wireEvents) (*tcprosWire, error) {
	addr, err := masterAddress(conf.MasterURI)
	if err != nil {
		return nil, err
	}
	w := &tcprosWire{
		conf: conf, name: JoinName(ns, conf.Name), ev: ev,
		client:   &http.Client{Timeout: conf.MasterTimeout},
		subs:     map[string]*tcprosSub{},
		pubs:     map[string]*tcprosPub{},
		provided: map[string]bool{},
	}
	if w.host = conf.Host; w.host == "" {
		w.host = hostFacing(addr)
	}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	fail := func(err error) (*tcprosWire, error) {
		w.teardown()
		return nil, fmt.Errorf("join the ROS graph as %s through the master at %s: %w", w.name, conf.MasterURI, err)
	}
	if w.srv, err = tcpros.NewServer(tcpros.ServerConf{Addr: net.JoinHostPort(w.host, "0"), CallerID: w.name}); err != nil {
		return fail(err)
	}
	w.port = w.srv.Addr().(*net.TCPAddr).Port
	ln, err := net.Listen("tcp", net.JoinHostPort(w.host, "0"))
	if err != nil {
		return fail(err)
	}
	w.uri = "http://" + net.JoinHostPort(w.host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)) + "/"
	w.http = &http.Server{
		Handler:           http.HandlerFunc(w.serveSlave),
		ReadHeaderTimeout: slaveRequestTimeout,
		ReadTimeout:       slaveRequestTimeout,
		WriteTimeout:      slaveRequestTimeout + ShutdownHoldMax,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          nil,
	}
	limited := master.LimitConns(w.http, ln, maxSlaveConns, func(format string, args ...any) {
		ev.log(LogWarn, "slave API: "+fmt.Sprintf(format, args...))
	})
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.http.Serve(limited) //nolint:errcheck // ends with Close
	}()
	// The node registers with the master by publishing /rosout, as every
	// ROS node does.
	pub, err := w.publish("/rosout", reflect.TypeFor[rosgraph_msgs.Log](), false)
	if err != nil {
		return fail(err)
	}
	w.rosout = pub.(*tcprosPub).p
	return w, nil
}

// hostFacing is the address of this machine's interface that faces the
// master at addr (127.0.0.1 for a master on loopback).
func hostFacing(addr string) string {
	h, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(h); (ip != nil && ip.IsLoopback()) || h == "localhost" {
		return "127.0.0.1"
	}
	c, err := net.Dial("udp", addr)
	if err != nil {
		return "127.0.0.1"
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String()
}

// callMaster calls the master API and returns the value of a [1, msg,
// value] answer.
func (w *tcprosWire) callMaster(method string, params ...any) (any, error) {
	return w.callAPI(w.conf.MasterURI, maxMasterAnswer, method, params...)
}

// callAPI calls a ROS XML-RPC API (the master's or a node's slave API),
// reading at most max bytes of the answer.
func (w *tcprosWire) callAPI(uri string, max int64, method string, params ...any) (any, error) {
	v, err := master.Call(w.ctx, w.client, uri, method, max, append([]any{w.name}, params...)...)
	if err != nil {
		return nil, err
	}
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		return nil, fmt.Errorf("%s: %s answered %s, not [code, message, value]", method, uri, clipValue(v))
	}
	if code, _ := a[0].(int); code != 1 {
		return nil, &apiRefusal{method: method, uri: uri, code: a[0], msg: clipValue(a[1])}
	}
	return a[2], nil
}

// unregister makes an unregistration call to the master, bounded by
// Conf.MasterTimeout, unless the master is known silent: then it is left
// to the master (which forgets a node that no longer answers). A call that
// times out tells the Conn, which is then lost (the master hangs) and
// waits for no further unregistration. Other failures are the master's
// answer (it forgot the registration already) and pass.
func (w *tcprosWire) unregister(what, method string, params ...any) {
	if w.ev.masterSilent != nil && w.ev.masterSilent() {
		return
	}
	_, err := w.callMaster(method, params...)
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() && w.ctx.Err() == nil && w.ev.unregisterSilent != nil {
		w.ev.unregisterSilent(what, w.conf.MasterTimeout)
	}
}

func clipValue(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// serveSlave answers the node's slave API.
func (w *tcprosWire) serveSlave(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(rw, "XML-RPC takes POST", http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength > maxSlaveRequest {
		http.Error(rw, "request too large", http.StatusRequestEntityTooLarge)
		return
	}
	method, params, err := master.ReadCall(http.MaxBytesReader(rw, r.Body, maxSlaveRequest))
	if err != nil {
		master.WriteFault(rw, 1, "unreadable request: "+err.Error())
		return
	}
	str := func(i int) string {
		if i < len(params) {
			s, _ := params[i].(string)
			return s
		}
		return ""
	}
	ok := func(v any) { master.WriteResponse(rw, []any{1, "", v}) }
	refuse := func(msg string) { master.WriteResponse(rw, []any{-1, msg, 0}) }
	switch method {
	case "getPid":
		ok(os.Getpid())
	case "getMasterUri":
		ok(w.conf.MasterURI)
	case "getBusStats":
		ok([]any{[]any{}, []any{}, []any{}})
	case "getBusInfo":
		ok(w.busInfo())
	case "getPublications", "getSubscriptions":
		ok(w.listTopics(method == "getPublications"))
	case "paramUpdate":
		ok(0)
	case "requestTopic":
		w.mu.Lock()
		_, pub := w.pubs[str(1)]
		w.mu.Unlock()
		tcp := false
		if len(params) > 2 {
			ps, _ := params[2].([]any)
			for _, p := range ps {
				if pa, _ := p.([]any); len(pa) > 0 && pa[0] == "TCPROS" {
					tcp = true
				}
			}
		}
		switch {
		case !pub:
			refuse(fmt.Sprintf("%s does not publish %s", w.name, str(1)))
		case !tcp:
			refuse("only TCPROS is supported")
		default:
			ok([]any{"TCPROS", w.host, w.port})
		}
	case "publisherUpdate":
		var uris []string
		if len(params) > 2 {
			ps, _ := params[2].([]any)
			for _, p := range ps {
				if s, isStr := p.(string); isStr {
					uris = append(uris, s)
				}
			}
		}
		w.update(str(1), uris, true)
		ok(0)
	case "shutdown":
		msg := shutdownLogPrefix + str(0) + ": " + str(1)
		w.ev.log(LogWarn, msg)
		w.ev.shutdown(str(0), str(1))
		ok(0)
	default:
		master.WriteFault(rw, 1, "unknown method "+clipValue(method))
	}
}

func (w *tcprosWire) busInfo() []any {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := []any{}
	id := 0
	for topic, p := range w.pubs {
		for _, peer := range p.p.Subscribers() {
			id++
			out = append(out, []any{id, peer, "o", "TCPROS", topic, true})
		}
	}
	for topic, s := range w.subs {
		for uri, l := range s.conns {
			if l.sub != nil {
				id++
				out = append(out, []any{id, uri, "i", "TCPROS", topic, true})
			}
		}
	}
	return out
}

func (w *tcprosWire) listTopics(pubs bool) []any {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := []any{}
	if pubs {
		for topic, p := range w.pubs {
			out = append(out, []any{topic, p.typ})
		}
	} else {
		for topic, s := range w.subs {
			out = append(out, []any{topic, s.typ})
		}
	}
	return out
}

func (w *tcprosWire) log(level LogLevel, msg string) {
	w.ev.log(level, msg)
	lv := map[LogLevel]int8{LogDebug: 1, LogInfo: 2, LogWarn: 4, LogError: 8, LogFatal: 16}[level]
	if w.rosout != nil {
		w.rosout.Publish(&rosgraph_msgs.Log{Level: lv, Name: w.name, Msg: msg}) //nolint:errcheck
	}
}

func (w *tcprosWire) hasParam(name string) (bool, error) {
	v, err := w.callMaster("hasParam", name)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("hasParam %s: the master answered %s", name, clipValue(v))
	}
	return b, nil
}

// getParam asks the master for a parameter's value.
func (w *tcprosWire) getParam(name string) (any, error) { return w.callMaster("getParam", name) }

func (w *tcprosWire) paramBool(name string) (bool, error) { return paramAs[bool](w.getParam, name) }
func (w *tcprosWire) paramInt(name string) (int, error)   { return paramAs[int](w.getParam, name) }
func (w *tcprosWire) paramString(name string) (string, error) {
	return paramAs[string](w.getParam, name)
}
func (w *tcprosWire) paramFloat64(name string) (float64, error) {
	return paramNumber(w.getParam, name)
}

func (w *tcprosWire) setParam(name string, v any) error {
	switch v.(type) {
	case bool, int, float64, string:
	default:
		return fmt.Errorf("a %T cannot be set", v)
	}
	_, err := w.callMaster("setParam", name, v)
	return err
}

// msgInfo is a message type's ROS name, MD5 sum and definition.
func msgInfo(t reflect.Type) (name, md5, def string, err error) {
	v := reflect.New(t).Elem().Interface()
	if name, err = msgproc.Type(v); err != nil {
		return
	}
	if md5, err = msgproc.MD5(v); err != nil {
		return
	}
	def, err = msgproc.Definition(v)
	return
}

func (w *tcprosWire) subscribe(topic string, t reflect.Type, receive func(any)) (func(), error) {
	typ, md5, def, err := msgInfo(t)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil, errors.New("the node is closed")
	}
	s, exists := w.subs[topic]
	if exists && s.t != t {
		w.mu.Unlock()
		return nil, fmt.Errorf("topic %s is subscribed as %s already, not %s", topic, s.typ, typ)
	}
	if !exists {
		s = &tcprosSub{topic: topic, typ: typ, md5: md5, def: def, t: t, receivers: map[int]func(any){}, conns: map[string]*tcprosLink{}}
		w.subs[topic] = s
	}
	id := s.next
	s.next++
	s.rmu.Lock()
	s.receivers[id] = receive
	s.rmu.Unlock()
	w.mu.Unlock()
	unsubscribe := func() {
		w.mu.Lock()
		s.rmu.Lock()
		delete(s.receivers, id)
		last := len(s.receivers) == 0 && w.subs[topic] == s
		s.rmu.Unlock()
		var conns []*tcpros.Subscription
		if last {
			delete(w.subs, topic)
			for _, l := range s.conns {
				if l.sub != nil {
					conns = append(conns, l.sub)
				}
			}
			s.conns = map[string]*tcprosLink{}
		}
		w.mu.Unlock()
		if last {
			w.unregister("the subscriber of "+topic, "unregisterSubscriber", topic, w.uri)
			for _, c := range conns {
				c.Close()
			}
		}
	}
	if !exists {
		v, err := w.callMaster("registerSubscriber", topic, typ, w.uri)
		if err != nil {
			unsubscribe()
			return nil, err
		}
		var uris []string
		list, _ := v.([]any)
		for _, u := range list {
			if s, ok := u.(string); ok {
				uris = append(uris, s)
			}
		}
		w.update(topic, uris, false)
	}
	return unsubscribe, nil
}

// update makes the subscription of topic follow its publishers' URIs:
// connects to the new ones, closes the connections to those gone. announced
// says the URIs come from a publisherUpdate; otherwise they are the reply
// to the subscription's registration, which is ignored once an update came
// (the reply can arrive after an update that is newer than it).
func (w *tcprosWire) update(topic string, uris []string, announced bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.subs[topic]
	if !ok || w.closed {
		return
	}
	if announced {
		s.announced = true
	} else if s.announced {
		return
	}
	if len(uris) > maxPublishers {
		w.ev.log(LogWarn, fmt.Sprintf("topic %s: %d publishers announced, connecting to the first %d", topic, len(uris), maxPublishers))
		uris = uris[:maxPublishers]
	}
	want := map[string]bool{}
	for _, u := range uris {
		want[u] = true
		if _, have := s.conns[u]; !have {
			l := &tcprosLink{}
			s.conns[u] = l
			w.wg.Add(1)
			go w.connect(s, u, l)
		}
	}
	for u, l := range s.conns {
		if !want[u] {
			delete(s.conns, u)
			if l.sub != nil {
				l.sub.Close()
			}
		}
	}
}

var errDroppedAtOnce = errors.New("the publisher dropped the connection soon after it began")

// Pauses before connecting to a publisher again: after a failed attempt
// (doubling up to the longest), and after a connection that ended.
const (
	reconnectFirst   = 100 * time.Millisecond
	reconnectLongest = 2 * time.Second
)

// connect links s to the publisher at uri: asks it for a TCPROS
// connection of s's topic and reads it until it ends, then connects
// again, until the link is dropped (the publisher is no longer listed,
// the subscription ended) or the node closes. A failed attempt (the
// publisher slow to answer on a loaded machine, a handshake cut short) is
// tried again after a pause, so that a subscription does not stay without
// a publisher the master lists.
func (w *tcprosWire) connect(s *tcprosSub, uri string, l *tcprosLink) {
	defer w.wg.Done()
	// live says whether the link is still wanted (under w.mu).
	live := func() bool { return !w.closed && w.subs[s.topic] == s && s.conns[uri] == l }
	pause := reconnectFirst
	failures := 0
	for {
		sub, err := w.dial(s, uri)
		if err != nil {
			if failures == 0 {
				w.log(LogWarn, fmt.Sprintf("subscriber '%s' cannot connect to the publisher at %s (trying again): %v", s.topic, uri, err))
			}
			failures++
		} else {
			failures = 0
			began := time.Now()
			w.mu.Lock()
			if !live() {
				w.mu.Unlock()
				sub.Close()
				return
			}
			l.sub = sub
			w.mu.Unlock()
			select {
			case <-sub.Done():
			case <-w.ctx.Done():
				sub.Close()
				return
			}
			w.mu.Lock()
			l.sub = nil
			mine := live()
			w.mu.Unlock()
			if !mine {
				return // dropped: closed by update or unsubscribe
			}
			// The publisher closed its connection (its process died, or
			// it left without the master telling us yet).
			w.ev.log(LogWarn, fmt.Sprintf("%s%s%s %v", subscriberErrPrefix, s.topic, subscriberErrInfix, sub.Err()))
			w.ev.publisherLost(s.topic)
			if time.Since(began) > reconnectLongest {
				pause = reconnectFirst // it had been working
			} else {
				err = errDroppedAtOnce // waits longer each time
			}
		}
		t := time.NewTimer(pause)
		select {
		case <-w.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if err != nil {
			pause = min(2*pause, reconnectLongest)
		}
		w.mu.Lock()
		mine := live()
		w.mu.Unlock()
		if !mine {
			return
		}
	}
}

// dial asks the publisher at uri for a TCPROS connection of s's topic and
// makes it.
func (w *tcprosWire) dial(s *tcprosSub, uri string) (*tcpros.Subscription, error) {
	v, err := w.callAPI(uri, maxPeerAnswer, "requestTopic", s.topic, []any{[]any{"TCPROS"}})
	a, _ := v.([]any)
	if err == nil && (len(a) != 3 || a[0] != "TCPROS") {
		err = fmt.Errorf("requestTopic %s: %s answered %s", s.topic, uri, clipValue(v))
	}
	if err != nil {
		return nil, err
	}
	host, _ := a[1].(string)
	port, _ := a[2].(int)
	return tcpros.Subscribe(w.ctx, tcpros.SubscriberConf{
		Addr: net.JoinHostPort(host, strconv.Itoa(port)), CallerID: w.name, Topic: s.topic,
		Type: s.typ, MD5: s.md5, Definition: s.def, Msg: reflect.New(s.t).Interface(), TCPNoDelay: true,
		OnMessage: func(msg any) {
			s.deliver.Lock()
			defer s.deliver.Unlock()
			s.rmu.Lock()
			rs := make([]func(any), 0, len(s.receivers))
			for _, r := range s.receivers {
				rs = append(rs, r)
			}
			s.rmu.Unlock()
			for _, r := range rs {
				r(msg)
			}
		},
	})
}

func (p *tcprosPub) write(msg any) { p.p.Publish(msg) } //nolint:errcheck // a closed publisher drops it

func (p *tcprosPub) close() {
	p.w.mu.Lock()
	if p.w.pubs[p.topic] == p {
		delete(p.w.pubs, p.topic)
	}
	p.w.mu.Unlock()
	p.w.unregister("the publisher of "+p.topic, "unregisterPublisher", p.topic, p.w.uri)
	p.p.Close()
}

func (w *tcprosWire) publish(topic string, t reflect.Type, latch bool) (wirePublisher, error) {
	typ, md5, def, err := msgInfo(t)
	if err != nil {
		return nil, err
	}
	p, err := w.srv.Publish(tcpros.PublisherConf{Topic: topic, Type: typ, MD5: md5, Definition: def, Latch: latch})
	if err != nil {
		return nil, err
	}
	pub := &tcprosPub{w: w, topic: topic, typ: typ, p: p}
	w.mu.Lock()
	w.pubs[topic] = pub
	w.mu.Unlock()
	if _, err := w.callMaster("registerPublisher", topic, typ, w.uri); err != nil {
		pub.close()
		return nil, err
	}
	return pub, nil
}

// srvInfo is a service type's ROS name, MD5 sum and request value.
func (w *tcprosWire) srvInfo(srv reflect.Type) (name, md5 string, req, res any, err error) {
	v := reflect.New(srv).Elem().Interface()
	if md5, err = serviceproc.MD5(v); err != nil {
		return
	}
	if req, res, err = serviceproc.RequestResponse(v); err != nil {
		return
	}
	name, ok := w.conf.Messages.NameOf(srv)
	if !ok {
		name, err = msgproc.Type(v)
	}
	return
}

// tcprosCaller calls one service over a persistent connection
// ("persistent: 1", as rospy's and roscpp's persistent proxies do): a
// service called every tick costs no connection and no lookup per call.
// The provider is looked up on the first call and after a call that
// failed for a reason other than the service's own answer; a call that
// failed on a connection kept from an earlier call is tried once more
// on a new one, looked up again (the provider may have restarted or
// moved, closing the old connection).
type tcprosCaller struct {
	w         *tcprosWire
	name, md5 string

	mu    sync.Mutex // calls take turns
	sc    *tcpros.ServiceClient
	dials int // connections opened, for tests
}

func (w *tcprosWire) serviceClient(name string, srv reflect.Type) (wireCaller, error) {
	_, md5, _, _, err := w.srvInfo(srv)
	if err != nil {
		return nil, err
	}
	return &tcprosCaller{w: w, name: name, md5: md5}, nil
}

func (c *tcprosCaller) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop()
}

func (c *tcprosCaller) drop() {
	if c.sc != nil {
		c.sc.Close()
		c.sc = nil
	}
}

func (c *tcprosCaller) call(ctx context.Context, req, res any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.sc != nil
	err := c.try(ctx, req, res)
	if err != nil && kept && ctx.Err() == nil && !errors.Is(err, tcpros.ErrServiceFailed) && !errors.Is(err, ErrServiceUnavailable) {
		err = c.try(ctx, req, res)
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("call %s: %w", c.name, ctx.Err())
	case errors.Is(err, ErrServiceUnavailable):
		return err
	case errors.Is(err, tcpros.ErrServiceFailed):
		return fmt.Errorf("call %s: %w: %v", c.name, ErrServiceFailed, err)
	default:
		return fmt.Errorf("call %s: %w: %v", c.name, ErrServiceUnavailable, err)
	}
}

// try makes one call, on the kept connection or a new one; every failure
// but the service's own answer drops the connection.
func (c *tcprosCaller) try(ctx context.Context, req, res any) error {
	if c.sc == nil {
		v, err := c.w.callMaster("lookupService", c.name)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("call %s: %w: %v", c.name, ErrServiceUnavailable, err)
		}
		s, _ := v.(string)
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "rosrpc" || u.Host == "" {
			return fmt.Errorf("call %s: %w: the master gave %q", c.name, ErrServiceUnavailable, clipValue(v))
		}
		c.sc = tcpros.NewServiceClient(tcpros.ServiceClientConf{Addr: u.Host, CallerID: c.w.name, Service: c.name, MD5: c.md5, Persistent: true})
		c.dials++
	}
	err := c.sc.Call(ctx, req, res)
	if err != nil && !errors.Is(err, tcpros.ErrServiceFailed) {
		c.drop()
	}
	return err
}

func (w *tcprosWire) provide(name string, srv reflect.Type, handle func(any) (any, bool)) (func(), error) {
	typ, md5, req, res, err := w.srvInfo(srv)
	if err != nil {
		return nil, err
	}
	reqName, _ := msgproc.Type(req)
	resName, _ := msgproc.Type(res)
	svc, err := w.srv.Provide(tcpros.ServiceConf{
		Service: name, Type: typ, MD5: md5, RequestType: reqName, ResponseType: resName, Request: req,
		Handler: func(req any) (any, error) {
			r, ok := handle(req)
			if !ok || r == nil {
				return nil, errors.New("the service failed")
			}
			return r, nil
		},
	})
	if err != nil {
		return nil, err
	}
	api := "rosrpc://" + net.JoinHostPort(w.host, strconv.Itoa(w.port))
	unprovide := func() {
		w.unregister("the service "+name, "unregisterService", name, api)
		svc.Close()
	}
	if _, err := w.callMaster("registerService", name, api, w.uri); err != nil {
		svc.Close()
		return nil, err
	}
	return unprovide, nil
}

// systemState reads the master's getSystemState: publishers, subscribers
// and services, each a name and its nodes.
func (w *tcprosWire) systemState() ([3]map[string]map[string]bool, error) {
	var out [3]map[string]map[string]bool
	v, err := w.callMaster("getSystemState")
	if err != nil {
		return out, err
	}
	parts, _ := v.([]any)
	if len(parts) != 3 {
		return out, fmt.Errorf("getSystemState: the master answered %s", clipValue(v))
	}
	for i, p := range parts {
		out[i] = map[string]map[string]bool{}
		entries, _ := p.([]any)
		for _, e := range entries {
			pair, _ := e.([]any)
			if len(pair) != 2 {
				continue
			}
			name, _ := pair[0].(string)
			nodes := map[string]bool{}
			ns, _ := pair[1].([]any)
			for _, n := range ns {
				if s, ok := n.(string); ok {
					nodes[s] = true
				}
			}
			out[i][name] = nodes
		}
	}
	return out, nil
}

func (w *tcprosWire) topics() (map[string]wireTopic, error) {
	st, err := w.systemState()
	if err != nil {
		return nil, err
	}
	out := map[string]wireTopic{}
	get := func(name string) wireTopic {
		t, ok := out[name]
		if !ok {
			t = wireTopic{Publishers: map[string]bool{}, Subscribers: map[string]bool{}}
			out[name] = t
		}
		return t
	}
	for name, nodes := range st[0] {
		t := get(name)
		for n := range nodes {
			t.Publishers[n] = true
		}
	}
	for name, nodes := range st[1] {
		t := get(name)
		for n := range nodes {
			t.Subscribers[n] = true
		}
	}
	return out, nil
}

func (w *tcprosWire) services() (map[string]bool, error) {
	st, err := w.systemState()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for name := range st[2] {
		out[name] = true
	}
	return out, nil
}

// lookupNode asks the master for a node's slave URI (the master check):
// bounded by Conf.MasterTimeout, its answer by maxPeerAnswer (a URI).
func (w *tcprosWire) lookupNode(node string) (string, error) {
	v, err := w.callAPI(w.conf.MasterURI, maxPeerAnswer, "lookupNode", node)
	if err != nil {
		return "", err
	}
	uri, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("lookupNode: %s answered %s, not a URI", w.conf.MasterURI, clipValue(v))
	}
	return uri, nil
}

func (w *tcprosWire) ping(node string) error {
	v, err := w.callMaster("lookupNode", node)
	if err != nil {
		return err
	}
	uri, _ := v.(string)
	_, err = w.callAPI(uri, maxPeerAnswer, "getPid")
	return err
}

func (w *tcprosWire) bus() ([]busConn, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []busConn
	for topic, p := range w.pubs {
		for _, peer := range p.p.Subscribers() {
			out = append(out, busConn{topic: topic, peer: peer})
		}
	}
	for topic, s := range w.subs {
		for _, l := range s.conns {
			if l.sub != nil {
				out = append(out, busConn{topic: topic, peer: l.sub.Header()["callerid"], in: true})
			}
		}
	}
	return out, nil
}

func (w *tcprosWire) unacknowledged(_ string, deadline time.Time) (int, bool) {
	return unacknowledgedOnPort(w.port, deadline)
}

func (w *tcprosWire) followClock(set func(time.Time)) (func(), error) {
	return w.subscribe("/clock", reflect.TypeFor[rosgraph_msgs.Clock](), func(m any) {
		set(m.(*rosgraph_msgs.Clock).Clock)
	})
}

// close unregisters what the node still has (each call bounded by
// MasterTimeout) and closes its ports.
func (w *tcprosWire) close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	var pubs []*tcprosPub
	for _, p := range w.pubs {
		pubs = append(pubs, p)
	}
	var subs []string
	for topic := range w.subs {
		subs = append(subs, topic)
	}
	w.mu.Unlock()
	for _, topic := range subs {
		w.unregister("the subscriber of "+topic, "unregisterSubscriber", topic, w.uri)
	}
	for _, p := range pubs {
		p.close()
	}
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.teardown()
}

// teardown closes the ports and waits for every goroutine.
func (w *tcprosWire) teardown() {
	w.cancel()
	if w.http != nil {
		w.http.Close()
	}
	if w.srv != nil {
		w.srv.Close()
	}
	w.mu.Lock()
	var conns []*tcpros.Subscription
	for _, s := range w.subs {
		for _, l := range s.conns {
			if l.sub != nil {
				conns = append(conns, l.sub)
			}
		}
	}
	w.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	w.wg.Wait()
	w.client.CloseIdleConnections()
}
