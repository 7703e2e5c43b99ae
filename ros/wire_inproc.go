package ros

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"

	"github.com/btrobot/btrobot/ros/inproc"
)

// inprocWire is the in-process transport: a node of an inproc.Graph. Types
// are declared to the graph by goroslib's conventions (the same ROS names
// and md5sums TCPROS would check).
type inprocWire struct {
	g    *inproc.Graph
	node *inproc.Node
	ev   wireEvents

	mu   sync.Mutex
	pubs map[*inproc.Publisher]struct{}
	subs map[*inproc.Subscriber]struct{}
}

func newInprocWire(g *inproc.Graph, name string, ev wireEvents) (*inprocWire, error) {
	w := &inprocWire{g: g, ev: ev, pubs: map[*inproc.Publisher]struct{}{}, subs: map[*inproc.Subscriber]struct{}{}}
	n, err := g.NewNode(inproc.NodeConf{Name: name, OnShutdown: ev.shutdown})
	if err != nil {
		return nil, fmt.Errorf("join the in-process graph as %s: %w", name, err)
	}
	w.node = n
	return w, nil
}

// inprocTypes caches the graph types of Go types (md5sums are computed from
// the message text).
var inprocTypes sync.Map // reflect.Type -> inproc.Type or inproc.ServiceType

func messageGraphType(t reflect.Type) (inproc.Type, error) {
	if v, ok := inprocTypes.Load(t); ok {
		return v.(inproc.Type), nil
	}
	zero := reflect.New(t).Elem().Interface()
	name, err := msgproc.Type(zero)
	if err != nil {
		return inproc.Type{}, err
	}
	md5, err := msgproc.MD5(zero)
	if err != nil {
		return inproc.Type{}, err
	}
	gt := inproc.Type{Name: name, MD5: md5, Go: t}
	inprocTypes.Store(t, gt)
	return gt, nil
}

func serviceGraphType(t reflect.Type) (inproc.ServiceType, error) {
	if v, ok := inprocTypes.Load(t); ok {
		return v.(inproc.ServiceType), nil
	}
	zero := reflect.New(t).Elem().Interface()
	req, res, err := serviceproc.RequestResponse(zero)
	if err != nil {
		return inproc.ServiceType{}, err
	}
	name, err := serviceproc.Type(zero)
	if err != nil {
		return inproc.ServiceType{}, err
	}
	md5, err := serviceproc.MD5(zero)
	if err != nil {
		return inproc.ServiceType{}, err
	}
	st := inproc.ServiceType{Name: name, MD5: md5, Req: reflect.TypeOf(req), Res: reflect.TypeOf(res)}
	inprocTypes.Store(t, st)
	return st, nil
}

func (w *inprocWire) log(level LogLevel, msg string) { w.ev.log(level, msg) }

func (w *inprocWire) hasParam(name string) (bool, error) { return w.g.HasParam(name), nil }

func (w *inprocWire) param(name string) (any, error) {
	v, ok := w.g.Param(name)
	if !ok {
		return nil, fmt.Errorf("parameter %s is not set", name)
	}
	return v, nil
}

func (w *inprocWire) paramBool(name string) (bool, error)     { return paramAs[bool](w.param, name) }
func (w *inprocWire) paramInt(name string) (int, error)       { return paramAs[int](w.param, name) }
func (w *inprocWire) paramString(name string) (string, error) { return paramAs[string](w.param, name) }
func (w *inprocWire) paramFloat64(name string) (float64, error) {
	return paramNumber(w.param, name)
}

func (w *inprocWire) setParam(name string, v any) error { return w.g.SetParam(name, v) }

func (w *inprocWire) subscribe(topic string, t reflect.Type, receive func(any)) (func(), error) {
	gt, err := messageGraphType(t)
	if err != nil {
		return nil, err
	}
	s, err := w.node.NewSubscriber(inproc.SubscriberConf{Topic: topic, Type: gt, Callback: receive,
		OnPublisherLost: func(string) { w.ev.publisherLost(topic) }})
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.subs[s] = struct{}{}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.subs, s)
		w.mu.Unlock()
		s.Close()
	}, nil
}

type inprocPublisher struct {
	w *inprocWire
	p *inproc.Publisher
}

func (p inprocPublisher) write(msg any) { p.p.Publish(msg) } //nolint:errcheck // a closed publisher drops, as goroslib's does

func (p inprocPublisher) close() {
	p.w.mu.Lock()
	delete(p.w.pubs, p.p)
	p.w.mu.Unlock()
	p.p.Close()
}

func (w *inprocWire) publish(topic string, t reflect.Type, latch bool) (wirePublisher, error) {
	gt, err := messageGraphType(t)
	if err != nil {
		return nil, err
	}
	p, err := w.node.NewPublisher(inproc.PublisherConf{Topic: topic, Type: gt, Latch: latch})
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.pubs[p] = struct{}{}
	w.mu.Unlock()
	return inprocPublisher{w, p}, nil
}

type inprocCaller struct {
	name string
	c    *inproc.ServiceClient
}

func (w *inprocWire) serviceClient(name string, srv reflect.Type) (wireCaller, error) {
	st, err := serviceGraphType(srv)
	if err != nil {
		return nil, err
	}
	c, err := w.node.NewServiceClient(inproc.ServiceClientConf{Service: name, Type: st})
	if err != nil {
		return nil, err
	}
	return inprocCaller{name, c}, nil
}

func (c inprocCaller) close() {}

func (c inprocCaller) call(ctx context.Context, req, res any) error {
	out, err := c.c.Call(ctx, req)
	switch {
	case err == nil:
		reflect.ValueOf(res).Elem().Set(reflect.ValueOf(out).Elem())
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("call %s: %w", c.name, ctx.Err())
	case errors.Is(err, inproc.ErrServiceFailed):
		return fmt.Errorf("call %s: %w", c.name, ErrServiceFailed)
	default:
		return fmt.Errorf("call %s: %w: %v", c.name, ErrServiceUnavailable, err)
	}
}

// errHandlerFailed is what the provider's side says of a failed call; the
// caller sees ErrServiceFailed.
var errHandlerFailed = errors.New("the provider failed")

func (w *inprocWire) provide(name string, srv reflect.Type, handle func(any) (any, bool)) (func(), error) {
	st, err := serviceGraphType(srv)
	if err != nil {
		return nil, err
	}
	s, err := w.node.NewServiceServer(inproc.ServiceServerConf{Service: name, Type: st, Handler: func(req any) (any, error) {
		res, ok := handle(req)
		if !ok {
			return nil, errHandlerFailed
		}
		return res, nil
	}})
	if err != nil {
		return nil, err
	}
	return s.Close, nil
}

func (w *inprocWire) topics() (map[string]wireTopic, error) {
	ts := w.g.Topics()
	out := make(map[string]wireTopic, len(ts))
	for name, t := range ts {
		wt := wireTopic{Publishers: map[string]bool{}, Subscribers: map[string]bool{}}
		for _, n := range t.Publishers {
			wt.Publishers[n] = true
		}
		for _, n := range t.Subscribers {
			wt.Subscribers[n] = true
		}
		out[name] = wt
	}
	return out, nil
}

func (w *inprocWire) services() (map[string]bool, error) {
	out := map[string]bool{}
	for name := range w.g.Services() {
		out[name] = true
	}
	return out, nil
}

func (w *inprocWire) ping(node string) error { return w.g.Ping(node) }

func (w *inprocWire) bus() ([]busConn, error) {
	w.mu.Lock()
	pubs := make([]*inproc.Publisher, 0, len(w.pubs))
	for p := range w.pubs {
		pubs = append(pubs, p)
	}
	subs := make([]*inproc.Subscriber, 0, len(w.subs))
	for s := range w.subs {
		subs = append(subs, s)
	}
	w.mu.Unlock()
	var out []busConn
	for _, p := range pubs {
		for _, peer := range p.Peers() {
			out = append(out, busConn{topic: p.Topic(), peer: peer})
		}
	}
	for _, s := range subs {
		for _, peer := range s.Peers() {
			out = append(out, busConn{topic: s.Topic(), peer: peer, in: true})
		}
	}
	return out, nil
}

// unacknowledged: a message is in the subscribers' queues once written.
func (w *inprocWire) unacknowledged(string, time.Time) (int, bool) { return 0, true }

func (w *inprocWire) followClock(set func(time.Time)) (func(), error) {
	return w.subscribe("/clock", reflect.TypeFor[rosgraph_msgs.Clock](), func(m any) { set(m.(*rosgraph_msgs.Clock).Clock) })
}

func (w *inprocWire) close() { w.node.Close() }
