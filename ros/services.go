package ros

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"
)

// Errors of service calls, for errors.Is.
var (
	// ErrServiceUnavailable: no provider is registered for the service, or
	// it cannot be reached.
	ErrServiceUnavailable = errors.New("service unavailable")
	// ErrServiceFailed: the provider answered that the call failed.
	ErrServiceFailed = errors.New("the service call failed")
)

// ServiceClientConf configures NewServiceClient.
type ServiceClientConf struct {
	Conn *Conn
	// Name of the service as written: relative, private or global.
	Name string
	// Srv is the service type: a value, a pointer or a MessageType.
	Srv any
}

// ServiceClient calls one service. Clients of one service share a
// persistent connection to its provider, and their calls take turns.
type ServiceClient struct{ sc *serviceClient }

type serviceClient struct {
	conn     *Conn
	name     string
	typ      reflect.Type
	req, res reflect.Type
	client   wireCaller
}

// NewServiceClient returns a client of a service; nothing is sent until Call.
func NewServiceClient(conf ServiceClientConf) (*ServiceClient, error) {
	if conf.Conn == nil {
		return nil, fmt.Errorf("service %s: no ROS connection", conf.Name)
	}
	t, err := MessageGoType(conf.Srv)
	if err != nil {
		return nil, fmt.Errorf("service %s: %v", conf.Name, err)
	}
	sc, err := conf.Conn.serviceClient(conf.Name, t)
	if err != nil {
		return nil, err
	}
	return &ServiceClient{sc: sc}, nil
}

func (c *Conn) serviceClient(name string, t reflect.Type) (*serviceClient, error) {
	if err := CheckName(name); err != nil {
		return nil, fmt.Errorf("service: %v", err)
	}
	r := c.Resolve(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("service %s: %w", r, errClosed)
	}
	if sc := c.svcs[r]; sc != nil {
		if sc.typ != t {
			return nil, fmt.Errorf("service %s as %s: the node already calls it as %s", r, c.typeName(t), c.typeName(sc.typ))
		}
		return sc, nil
	}
	req, res, err := serviceproc.RequestResponse(reflect.New(t).Elem().Interface())
	if err != nil {
		return nil, fmt.Errorf("service %s: %s is not a service type: %v", r, c.typeName(t), err)
	}
	client, err := c.wire.serviceClient(r, t)
	if err != nil {
		return nil, fmt.Errorf("service %s: %w", r, err)
	}
	sc := &serviceClient{conn: c, name: r, typ: t, req: reflect.TypeOf(req), res: reflect.TypeOf(res), client: client}
	c.svcs[r] = sc
	return sc, nil
}

func (sc *serviceClient) close() { sc.client.close() }

// Name returns the resolved service name.
func (s *ServiceClient) Name() string { return s.sc.name }

// Call sends req (a value or pointer of the request type) and returns a
// pointer to the response. It gives up when ctx ends, abandoning the call:
// the connection to the provider is closed, and the next call opens another.
// Errors wrap ErrServiceUnavailable, ErrServiceFailed or ctx's error.
func (s *ServiceClient) Call(ctx context.Context, req any) (any, error) {
	sc := s.sc
	v := reflect.ValueOf(req)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || v.Type() != sc.req {
		return nil, fmt.Errorf("call %s: want a request of type %s, got %T", sc.name, sc.req, req)
	}
	rq := reflect.New(sc.req)
	rq.Elem().Set(v)
	res := reflect.New(sc.res)
	if err := sc.client.call(ctx, rq.Interface(), res.Interface()); err != nil {
		return nil, err
	}
	return res.Interface(), nil
}

// ServiceServerConf configures NewServiceServer.
type ServiceServerConf struct {
	Conn *Conn
	// Name of the service as written: relative, private or global.
	Name string
	// Srv is the service type: a value, a pointer or a MessageType.
	Srv any
	// Handler answers a request (a pointer to the request type) with a
	// response (a value or pointer of the response type), or an error,
	// which the caller sees as a failed call.
	Handler func(req any) (res any, err error)
}

// ServiceServer provides a service until closed.
type ServiceServer struct {
	close func()
	once  sync.Once
}

// NewServiceServer registers a service provider.
func NewServiceServer(conf ServiceServerConf) (*ServiceServer, error) {
	c := conf.Conn
	if c == nil {
		return nil, fmt.Errorf("service %s: no ROS connection", conf.Name)
	}
	if conf.Handler == nil {
		return nil, fmt.Errorf("service %s: no handler", conf.Name)
	}
	if err := CheckName(conf.Name); err != nil {
		return nil, fmt.Errorf("service: %v", err)
	}
	t, err := MessageGoType(conf.Srv)
	if err != nil {
		return nil, fmt.Errorf("service %s: %v", conf.Name, err)
	}
	req, res, err := serviceproc.RequestResponse(reflect.New(t).Elem().Interface())
	if err != nil {
		return nil, fmt.Errorf("service %s: %s is not a service type: %v", conf.Name, t, err)
	}
	resT := reflect.TypeOf(res)
	name := c.Resolve(conf.Name)
	handle := func(req any) (any, bool) {
		r, err := conf.Handler(req)
		if err != nil {
			c.Logf(LogWarn, "service %s: %v", name, err)
			return nil, false
		}
		v := reflect.ValueOf(r)
		if v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if !v.IsValid() || v.Type() != resT {
			c.Logf(LogError, "service %s: the handler returned a %T, not a %s", name, r, resT)
			return nil, false
		}
		out := reflect.New(resT)
		out.Elem().Set(v)
		return out.Interface(), true
	}
	_ = req
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("service %s: %w", name, errClosed)
	}
	unprovide, err := c.wire.provide(name, t, handle)
	if err != nil {
		return nil, fmt.Errorf("service %s: %w", name, err)
	}
	s := &ServiceServer{close: unprovide}
	c.servers = append(c.servers, s.Close)
	return s, nil
}

// Close unregisters the service.
func (s *ServiceServer) Close() { s.once.Do(s.close) }
