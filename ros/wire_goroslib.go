package ros

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/apislave"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"
)

// rosWire is the TCPROS transport: a goroslib node registered with the
// master at Conf.MasterURI.
type rosWire struct {
	node     *goroslib.Node
	name     string // the node's full name
	slaveURI string // the node's own slave API, as the master knows it

	mu     sync.Mutex
	tcpros int // the node's TCPROS port once known (tcprosPort)
}

// wireEvents are what a wire tells its Conn of the graph.
type wireEvents struct {
	// log receives every log line of the node, for Conf.OnLog.
	log func(level LogLevel, msg string)
	// publisherLost: a publisher of topic closed its connection to the
	// node's subscriber (its process died, or it left).
	publisherLost func(topic string)
	// shutdown: the master (or a tool) shut the node down; the wire's
	// teardown waits until it returns.
	shutdown func(caller, reason string)
	// unregisterSilent: the master did not answer an unregistration
	// within bound (the tcpros wire's, whose every call is bounded);
	// masterSilent says whether it is known silent, so that no more
	// unregistrations wait for it.
	unregisterSilent func(what string, bound time.Duration)
	masterSilent     func() bool
}

// newRosWire creates the goroslib node. The node's log callback is where
// goroslib shows what it tells nobody else (lost.go): a shutdown call from
// the master, and a publisher's broken connection.
func newRosWire(conf Conf, ns string, ev wireEvents) (*rosWire, error) {
	addr, err := masterAddress(conf.MasterURI)
	if err != nil {
		return nil, err
	}
	w := &rosWire{name: JoinName(ns, conf.Name)}
	nc := goroslib.NodeConf{
		MasterAddress:   addr,
		Namespace:       ns,
		Name:            conf.Name,
		Host:            conf.Host,
		LogDestinations: goroslib.LogDestinationRosout | goroslib.LogDestinationCallback,
		OnLog:           func(l goroslib.LogLevel, msg string) { w.onNodeLog(LogLevel(l), msg, ev) },
	}
	if w.node, err = newNode(nc); err != nil {
		return nil, fmt.Errorf("join the ROS graph as %s through the master at %s: %w", w.name, conf.MasterURI, err)
	}
	return w, nil
}

// onNodeLog reads goroslib's log lines for what it tells nobody else.
func (w *rosWire) onNodeLog(level LogLevel, msg string, ev wireEvents) {
	ev.log(level, msg)
	if t, ok := strings.CutPrefix(msg, subscriberErrPrefix); ok {
		if topic, _, ok := strings.Cut(t, subscriberErrInfix); ok {
			ev.publisherLost(topic)
		}
	}
	if rest, ok := strings.CutPrefix(msg, shutdownLogPrefix); ok {
		caller, reason, _ := strings.Cut(rest, ": ")
		ev.shutdown(caller, reason)
	}
}

// newNode creates the goroslib node. goroslib v2.1.5 lets ROS_NAMESPACE win
// over the namespace it is given, while ROS gives __ns:= precedence: the
// variable is set to the namespace asked for while the node is created.
func newNode(nc goroslib.NodeConf) (*goroslib.Node, error) {
	env := os.Getenv("ROS_NAMESPACE")
	if env == "" || env == nc.Namespace {
		return goroslib.NewNode(nc)
	}
	namespaceEnvMu.Lock()
	defer namespaceEnvMu.Unlock()
	os.Setenv("ROS_NAMESPACE", nc.Namespace)
	defer os.Setenv("ROS_NAMESPACE", env)
	return goroslib.NewNode(nc)
}

func (w *rosWire) log(level LogLevel, msg string) {
	w.node.Log(goroslib.LogLevel(level), "%s", msg)
}

func (w *rosWire) hasParam(name string) (bool, error)      { return w.node.ParamIsSet(name) }
func (w *rosWire) paramBool(name string) (bool, error)     { return w.node.ParamGetBool(name) }
func (w *rosWire) paramInt(name string) (int, error)       { return w.node.ParamGetInt(name) }
func (w *rosWire) paramString(name string) (string, error) { return w.node.ParamGetString(name) }

func (w *rosWire) paramFloat64(name string) (float64, error) {
	f, err := w.node.ParamGetFloat64(name)
	if err != nil {
		if i, ierr := w.node.ParamGetInt(name); ierr == nil {
			return float64(i), nil
		}
	}
	return f, err
}

func (w *rosWire) setParam(name string, v any) error {
	switch x := v.(type) {
	case bool:
		return w.node.ParamSetBool(name, x)
	case int:
		return w.node.ParamSetInt(name, x)
	case float64:
		return w.node.ParamSetFloat64(name, x)
	case string:
		return w.node.ParamSetString(name, x)
	}
	return fmt.Errorf("a %T cannot be set", v)
}

func (w *rosWire) subscribe(topic string, t reflect.Type, receive func(any)) (func(), error) {
	fn := reflect.MakeFunc(reflect.FuncOf([]reflect.Type{reflect.PointerTo(t)}, nil, false),
		func(in []reflect.Value) []reflect.Value {
			receive(in[0].Interface())
			return nil
		})
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: w.node, Topic: topic, Callback: fn.Interface()})
	if err != nil {
		return nil, err
	}
	return sub.Close, nil
}

type rosPublisher struct{ pub *goroslib.Publisher }

func (p rosPublisher) write(msg any) { p.pub.Write(msg) }
func (p rosPublisher) close()        { p.pub.Close() }

func (w *rosWire) publish(topic string, t reflect.Type, latch bool) (wirePublisher, error) {
	pub, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: w.node, Topic: topic, Msg: reflect.New(t).Interface(), Latch: latch})
	if err != nil {
		return nil, err
	}
	return rosPublisher{pub}, nil
}

type rosCaller struct {
	name   string
	client *goroslib.ServiceClient
}

func (w *rosWire) serviceClient(name string, srv reflect.Type) (wireCaller, error) {
	client, err := goroslib.NewServiceClient(goroslib.ServiceClientConf{Node: w.node, Name: name, Srv: reflect.New(srv).Interface()})
	if err != nil {
		return nil, err
	}
	return rosCaller{name, client}, nil
}

func (c rosCaller) close() { c.client.Close() }

func (c rosCaller) call(ctx context.Context, req, res any) error {
	err := c.client.CallContext(ctx, req, res)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("call %s: %w", c.name, ctx.Err())
	case strings.Contains(err.Error(), "failure state"):
		return fmt.Errorf("call %s: %w", c.name, ErrServiceFailed)
	default:
		return fmt.Errorf("call %s: %w: %v", c.name, ErrServiceUnavailable, err)
	}
}

func (w *rosWire) provide(name string, srv reflect.Type, handle func(any) (any, bool)) (func(), error) {
	req, res, err := serviceproc.RequestResponse(reflect.New(srv).Elem().Interface())
	if err != nil {
		return nil, err
	}
	resT := reflect.TypeOf(res)
	cb := reflect.MakeFunc(
		reflect.FuncOf([]reflect.Type{reflect.PointerTo(reflect.TypeOf(req))}, []reflect.Type{reflect.PointerTo(resT), reflect.TypeFor[bool]()}, false),
		func(in []reflect.Value) []reflect.Value {
			r, ok := handle(in[0].Interface())
			if !ok || r == nil {
				return []reflect.Value{reflect.New(resT), reflect.ValueOf(false)}
			}
			return []reflect.Value{reflect.ValueOf(r), reflect.ValueOf(true)}
		})
	sp, err := goroslib.NewServiceProvider(goroslib.ServiceProviderConf{Node: w.node, Name: name, Srv: reflect.New(srv).Interface(), Callback: cb.Interface()})
	if err != nil {
		return nil, err
	}
	return sp.Close, nil
}

func (w *rosWire) topics() (map[string]wireTopic, error) {
	ts, err := w.node.MasterGetTopics()
	if err != nil {
		return nil, err
	}
	out := make(map[string]wireTopic, len(ts))
	for name, t := range ts {
		wt := wireTopic{Publishers: map[string]bool{}, Subscribers: map[string]bool{}}
		for n := range t.Publishers {
			wt.Publishers[n] = true
		}
		for n := range t.Subscribers {
			wt.Subscribers[n] = true
		}
		out[name] = wt
	}
	return out, nil
}

func (w *rosWire) services() (map[string]bool, error) {
	ss, err := w.node.MasterGetServices()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ss))
	for name := range ss {
		out[name] = true
	}
	return out, nil
}

func (w *rosWire) ping(node string) error {
	_, err := w.node.NodePing(node)
	return err
}

// bus reads the node's connections from its own slave API (getBusInfo),
// which answers without the master.
func (w *rosWire) bus() ([]busConn, error) {
	u, err := url.Parse(w.slaveURI)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("the node's own slave URI %q: %v", w.slaveURI, err)
	}
	info, err := apislave.NewClient(u.Host, w.name, &http.Client{Timeout: time.Second}).GetBusInfo()
	if err != nil {
		return nil, fmt.Errorf("bus information of %s: %w", w.name, err)
	}
	var out []busConn
	for _, e := range info {
		// [id, peer, direction, transport, topic, connected]
		if len(e) < 6 {
			continue
		}
		peer, _ := e[1].(string)
		dir, _ := e[2].(string)
		t, _ := e[4].(string)
		connected, _ := e[5].(bool)
		switch {
		case !connected:
		case dir == "o":
			out = append(out, busConn{topic: t, peer: peer})
		case dir == "i": // goroslib names the publisher by its URI
			out = append(out, busConn{topic: t, in: true})
		}
	}
	return out, nil
}

// followClock follows the /clock subscription goroslib keeps for a node
// under /use_sim_time (a node can subscribe to a topic only once, so the
// Conn cannot have its own). A zero-length sleep on goroslib's sim clock
// fires at the next /clock message: registering the next sleep before
// reading the time means no message is missed between the two.
func (w *rosWire) followClock(set func(time.Time)) (func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		next := w.node.TimeSleepChan(0)
		for {
			select {
			case <-ctx.Done():
				return
			case <-next:
			}
			next = w.node.TimeSleepChan(0)
			set(w.node.TimeNow())
		}
	}()
	return func() { cancel(); <-done }, nil
}

func (w *rosWire) close() { w.node.Close() }
