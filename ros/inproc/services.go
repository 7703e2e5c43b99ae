package inproc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
)

// Errors of service calls, for errors.Is.
var (
	// ErrServiceUnavailable: no provider is registered for the service, or
	// its node does not answer (it died), or it serves another type.
	ErrServiceUnavailable = errors.New("service unavailable")
	// ErrServiceFailed: the provider's handler returned an error.
	ErrServiceFailed = errors.New("the service call failed")
)

// ServiceType is a ROS service type as an endpoint declares it.
type ServiceType struct {
	// Name is the ROS type name, such as "std_srvs/SetBool".
	Name string
	// MD5 is the service's md5sum; "*" matches any.
	MD5 string
	// Req and Res are the struct types of the request and the response.
	Req, Res reflect.Type
}

func (t ServiceType) String() string { return Type{Name: t.Name, MD5: t.MD5}.String() }

func (t ServiceType) check() error {
	if t.Name == "" {
		return errors.New("no ROS service type name")
	}
	for _, x := range []reflect.Type{t.Req, t.Res} {
		if x == nil || x.Kind() != reflect.Struct {
			return fmt.Errorf("service type %s: its request and response are structs, not %v", t.Name, x)
		}
		if _, err := planOf(x); err != nil {
			return fmt.Errorf("service type %s: %w", t.Name, err)
		}
	}
	return nil
}

func (t ServiceType) matches(u ServiceType) bool {
	return t.Name == u.Name && (t.MD5 == u.MD5 || t.MD5 == "*" || u.MD5 == "*") && t.Req == u.Req && t.Res == u.Res
}

// ServiceServerConf configures Node.NewServiceServer.
type ServiceServerConf struct {
	// Service is the global service name.
	Service string
	Type    ServiceType
	// Handler answers a request (a pointer to the provider's own copy)
	// with a response (a value or a pointer of the response type), or an
	// error, which the caller sees as ErrServiceFailed. Calls run on the
	// callers' goroutines' behalf, concurrently.
	Handler func(req any) (res any, err error)
}

// ServiceServer provides a service until closed.
type ServiceServer struct {
	node *Node
	svc  *service
}

type service struct {
	name    string
	typ     ServiceType
	handler func(any) (any, error)
	node    string
	dead    atomic.Bool // its node was killed
}

// NewServiceServer registers a provider of a service. A provider
// registered earlier under the name is replaced, as the ROS master does.
func (n *Node) NewServiceServer(conf ServiceServerConf) (*ServiceServer, error) {
	if err := checkGlobal("service", conf.Service); err != nil {
		return nil, err
	}
	if err := conf.Type.check(); err != nil {
		return nil, fmt.Errorf("service %s: %w", conf.Service, err)
	}
	if conf.Handler == nil {
		return nil, fmt.Errorf("service %s: no handler", conf.Service)
	}
	g := n.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if n.state != nodeLive {
		return nil, fmt.Errorf("service %s: %s: %w", conf.Service, n.conf.Name, ErrNodeClosed)
	}
	s := &ServiceServer{node: n, svc: &service{name: conf.Service, typ: conf.Type, handler: conf.Handler, node: n.conf.Name}}
	g.services[conf.Service] = s.svc
	n.servers[s] = struct{}{}
	return s, nil
}

// Close unregisters the service. It may be called more than once.
func (s *ServiceServer) Close() {
	n := s.node
	n.g.dropIfLive(n, func() bool { _, ok := n.servers[s]; return ok }, func() { n.g.unprovideLocked(s) })
}

func (g *Graph) unprovideLocked(s *ServiceServer) {
	delete(s.node.servers, s)
	if g.services[s.svc.name] == s.svc {
		delete(g.services, s.svc.name)
	}
}

// Services returns the registered services and the nodes that provide them.
func (g *Graph) Services() map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]string, len(g.services))
	for name, s := range g.services {
		out[name] = s.node
	}
	return out
}

// ServiceClientConf configures Node.NewServiceClient.
type ServiceClientConf struct {
	// Service is the global service name.
	Service string
	Type    ServiceType
}

// ServiceClient calls a service; it finds the provider at each call.
type ServiceClient struct {
	node *Node
	conf ServiceClientConf
}

// NewServiceClient returns a client of a service; nothing happens until
// Call.
func (n *Node) NewServiceClient(conf ServiceClientConf) (*ServiceClient, error) {
	if err := checkGlobal("service", conf.Service); err != nil {
		return nil, err
	}
	if err := conf.Type.check(); err != nil {
		return nil, fmt.Errorf("service %s: %w", conf.Service, err)
	}
	return &ServiceClient{node: n, conf: conf}, nil
}

// Call hands a copy of req (a value or a pointer of the request type) to
// the provider and returns a pointer to a copy of its response. It gives up
// when ctx ends (the handler finishes unheard). Errors wrap
// ErrServiceUnavailable, ErrServiceFailed, ErrNodeClosed or ctx's error.
func (c *ServiceClient) Call(ctx context.Context, req any) (any, error) {
	name := c.conf.Service
	v := reflect.ValueOf(req)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() || v.Type() != c.conf.Type.Req {
		return nil, fmt.Errorf("call %s: want a request of type %v, got %T", name, c.conf.Type.Req, req)
	}
	g := c.node.g
	g.mu.Lock()
	live := c.node.state == nodeLive
	svc := g.services[name]
	g.mu.Unlock()
	switch {
	case !live:
		return nil, fmt.Errorf("call %s: %s: %w", name, c.node.conf.Name, ErrNodeClosed)
	case svc == nil:
		return nil, fmt.Errorf("call %s: %w: no provider of %s is registered", name, ErrServiceUnavailable, name)
	case svc.dead.Load():
		return nil, fmt.Errorf("call %s: %w: its provider %s does not answer (it died)", name, ErrServiceUnavailable, svc.node)
	case !svc.typ.matches(c.conf.Type):
		return nil, fmt.Errorf("call %s as %s: %w: %w: %s provides it as %s", name, c.conf.Type, ErrServiceUnavailable, ErrTypeMismatch, svc.node, svc.typ)
	}
	rq, err := copyValue(v)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	type answer struct {
		res any
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := svc.handler(rq)
		if err != nil {
			done <- answer{nil, fmt.Errorf("call %s: %w: %v", name, ErrServiceFailed, err)}
			return
		}
		rv := reflect.ValueOf(res)
		if rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv = rv.Elem()
		}
		if !rv.IsValid() || rv.Type() != svc.typ.Res {
			done <- answer{nil, fmt.Errorf("call %s: %w: the provider answered a %T, not a %v", name, ErrServiceFailed, res, svc.typ.Res)}
			return
		}
		out, err := copyValue(rv)
		done <- answer{out, err}
	}()
	select {
	case a := <-done:
		return a.res, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("call %s: %w", name, ctx.Err())
	}
}
