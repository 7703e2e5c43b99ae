package ros

import (
	"context"
	"fmt"
	"reflect"
	"time"
)

// wire is the transport under a Conn: what a node does on a ROS graph,
// below everything the Conn does itself (names, sharing one endpoint per
// name among its users, the publish queue, latching the newest message,
// loss state, the actionlib protocol). Three implementations: btrobot's own
// TCPROS node on package tcpros (wire_tcpros.go, the default), goroslib's
// TCPROS node (wire_goroslib.go, Conf.Wire = "goroslib") and the
// in-process graph of package inproc (wire_inproc.go), chosen by
// Conf.Graph.
//
// Names given to a wire are resolved global names; message types are
// struct types (not pointers) of goroslib's conventions.
type wire interface {
	// log sends a line to /rosout (and the Conn's OnLog).
	log(level LogLevel, msg string)

	hasParam(name string) (bool, error)
	paramBool(name string) (bool, error)
	paramInt(name string) (int, error)
	paramFloat64(name string) (float64, error)
	paramString(name string) (string, error)
	// setParam sets a bool, an int, a float64 or a string.
	setParam(name string, v any) error

	// subscribe calls receive with a pointer to every message of topic,
	// on one goroutine, in order; the function returned unsubscribes.
	subscribe(topic string, t reflect.Type, receive func(msg any)) (unsubscribe func(), err error)
	// publish advertises topic.
	publish(topic string, t reflect.Type, latch bool) (wirePublisher, error)
	// serviceClient returns a caller of service name of type srv.
	serviceClient(name string, srv reflect.Type) (wireCaller, error)
	// provide serves service name: handle answers a request (a pointer of
	// the request type) with a pointer of the response type, or false for
	// a failed call.
	provide(name string, srv reflect.Type, handle func(req any) (res any, ok bool)) (unprovide func(), err error)

	// topics is what the master knows of the graph's topics; services,
	// the names of the services it knows.
	topics() (map[string]wireTopic, error)
	services() (map[string]bool, error)
	// ping says whether the node registered as name answers.
	ping(node string) error
	// bus lists the node's connections, as the node itself knows them
	// (without the master): its publishers' to subscribers, and its
	// subscriptions' to publishers.
	bus() ([]busConn, error)
	// unacknowledged waits until what the node wrote to its subscribers'
	// connections has been acknowledged, or until deadline, and returns
	// how many connections had not then; ok is false when that cannot be
	// known.
	unacknowledged(topic string, deadline time.Time) (n int, ok bool)

	// followClock subscribes to /clock (the node runs under
	// /use_sim_time) and calls set with every time received until stop is
	// called. The subscription is registered when it returns: a
	// registration still in flight after Connect returned could reach the
	// master after a later node of the same name registered, and the
	// master would shut that node down.
	followClock(set func(time.Time)) (stop func(), err error)

	// close tears the node down; the Conn bounds how long it waits.
	close()
}

// wirePublisher writes one topic's messages.
type wirePublisher interface {
	// write hands a message (a pointer of the topic's type) to the
	// subscribers' connections.
	write(msg any)
	close()
}

// wireCaller calls one service.
type wireCaller interface {
	// call sends req (a pointer of the request type) and fills res (a
	// pointer of the response type). Errors are the Conn's: they wrap
	// ErrServiceUnavailable, ErrServiceFailed or ctx's error.
	call(ctx context.Context, req, res any) error
	close()
}

// wireTopic is what the master knows of a topic.
type wireTopic struct {
	Publishers, Subscribers map[string]bool
}

// busConn is one connection of the node's: of a publisher of its to a
// subscriber (peer is the subscribing node), or, in, of a subscription of
// its to a publisher (peer is the publishing node, or "" where the wire
// knows the publisher only by its URI).
type busConn struct {
	topic, peer string
	in          bool
}

// paramAs reads a parameter through get and asserts its type: a wire's
// typed parameter getters.
func paramAs[T any](get func(name string) (any, error), name string) (T, error) {
	var zero T
	v, err := get(name)
	if err != nil {
		return zero, err
	}
	x, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("parameter %s is a %T, not a %T", name, v, zero)
	}
	return x, nil
}

// paramNumber reads a parameter through get as a float64, an int taken
// as one (XML-RPC writes 2.0 as 2 when a tool set it so).
func paramNumber(get func(name string) (any, error), name string) (float64, error) {
	v, err := get(name)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("parameter %s is a %T, not a number", name, v)
}
