// Package master is an embedded ROS1 master: the Master API, the Parameter
// Server API and the publisherUpdate and paramUpdate pushes to nodes, with
// the semantics of Debian's rosmaster, so that ROS client libraries and the
// ros* command-line tools work against it unchanged (rospy, actionlib,
// goroslib and rostopic, rosparam, rosnode and rosservice are tested against
// it and against rosmaster side by side).
//
//	m, err := master.New(master.Conf{Host: "127.0.0.1", Port: 11311})
//	if err != nil { ... }
//	if err := m.Start(); err != nil { ... }
//	defer m.Close()
//	fmt.Println("ROS_MASTER_URI=" + m.URI())
//
// Like rosmaster, it answers system.multicall (rospy unregisters through
// it), tells a node to shut down when another registers under its name,
// keeps a node that died without unregistering (lookups return its stale
// URI), and stops on a "shutdown" call from the network (see Done).
//
// It differs from rosmaster on purpose in two places: the lists of
// getSystemState, getPublishedTopics and getTopicTypes are sorted by name,
// and when a node is replaced by a new node of the same name, the
// subscribers of the old node's topics get a publisherUpdate at once
// (rosmaster waits until the new node registers those topics again).
package master

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// Conf configures a Master.
type Conf struct {
	// Host is the interface to listen on, and the host name put in URI().
	// Empty means every interface, advertised under the machine's host
	// name, as rosmaster does without ROS_HOSTNAME or ROS_IP.
	Host string

	// Port is the TCP port to listen on; 0 picks a free port (11311 is the
	// ROS default).
	Port int
}

// maxRequestBody bounds one XML-RPC request; a robot description (URDF) is
// the largest parameter in common use and weighs well under this.
const maxRequestBody = 64 << 20

// Master is an embedded ROS master. Its methods are safe for concurrent use.
type Master struct {
	conf Conf
	pid  int

	mu     sync.Mutex // guards graph and params
	graph  *graph
	params *paramTree

	started bool
	closing bool
	uri     string
	ln      net.Listener
	srv     *http.Server
	ctx     context.Context
	cancel  context.CancelFunc
	slaves  *slaveCaller
	serving sync.WaitGroup

	closeOnce sync.Once
	done      chan struct{}
	methods   map[string]func([]any) any
}

// New checks conf and returns a Master that is not yet listening.
func New(conf Conf) (*Master, error) {
	if conf.Port < 0 || conf.Port > 65535 {
		return nil, fmt.Errorf("master: port %d is out of range 0-65535", conf.Port)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Master{
		conf:   conf,
		pid:    os.Getpid(),
		graph:  newGraph(),
		params: newParamTree(),
		ctx:    ctx,
		cancel: cancel,
		done:   make(chan struct{}),
	}
	m.slaves = newSlaveCaller(ctx)
	m.methods = m.masterMethods()
	for name, fn := range m.paramMethods() {
		m.methods[name] = fn
	}
	return m, nil
}

// Start listens on the configured address and serves in the background. It
// fails if the address is taken (by another master, say).
func (m *Master) Start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return errors.New("master: already started")
	}
	if m.closing {
		return errors.New("master: closed")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(m.conf.Host, strconv.Itoa(m.conf.Port)))
	if err != nil {
		return fmt.Errorf("master: %w", err)
	}
	host := m.conf.Host
	if host == "" || host == "0.0.0.0" || host == "::" {
		if host, err = os.Hostname(); err != nil || host == "" {
			host = "localhost"
		}
	}
	m.started = true
	m.ln = ln
	m.uri = "http://" + net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)) + "/"
	m.srv = &http.Server{
		Handler:           http.HandlerFunc(m.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return m.ctx },
	}
	m.serving.Add(1)
	go func() {
		defer m.serving.Done()
		m.srv.Serve(ln) //nolint:errcheck // always ErrServerClosed after Close
	}()
	return nil
}

// URI returns the master's XML-RPC URI, the value for ROS_MASTER_URI, e.g.
// "http://127.0.0.1:11311/". It is empty before Start.
func (m *Master) URI() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.uri
}

// Done is closed when the master has stopped, by Close or by a shutdown
// request from the network.
func (m *Master) Done() <-chan struct{} {
	return m.done
}

// Close stops the master: it stops accepting calls, lets calls in progress
// finish (for up to 5 seconds), abandons pushes to nodes that are still
// queued, and returns when every goroutine it started has ended. It may be
// called more than once and from several goroutines; the error is always
// nil (Close has the shape of io.Closer).
func (m *Master) Close() error {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		m.closing = true
		srv := m.srv
		m.mu.Unlock()
		if srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := srv.Shutdown(ctx); err != nil {
				srv.Close() //nolint:errcheck
			}
			cancel()
			m.serving.Wait()
		}
		m.cancel()
		m.slaves.close()
		close(m.done)
	})
	<-m.done
	return nil
}

// serveHTTP answers one XML-RPC request.
func (m *Master) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "XML-RPC takes POST requests", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path != "/" && r.URL.Path != "/RPC2" {
		http.NotFound(w, r)
		return
	}
	var out bytes.Buffer
	call, err := decodeMethodCall(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		encodeFault(&out, &fault{Code: 1, Message: "bad XML-RPC request: " + err.Error()})
	} else {
		m.respond(&out, m.dispatch(call.Method, call.Params))
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Content-Length", strconv.Itoa(out.Len()))
	w.Write(out.Bytes()) //nolint:errcheck // the client went away
}

// respond encodes a handler's result, or the fault it returned.
func (m *Master) respond(out *bytes.Buffer, res any) {
	if f, ok := res.(*fault); ok {
		encodeFault(out, f)
		return
	}
	if err := encodeMethodResponse(out, res); err != nil {
		out.Reset()
		encodeFault(out, &fault{Code: 1, Message: "cannot encode response: " + err.Error()})
	}
}

// dispatch runs one method and returns its response, or a *fault.
func (m *Master) dispatch(method string, params []any) any {
	if method == "system.multicall" {
		return m.multicall(params)
	}
	fn, ok := m.methods[method]
	if !ok {
		return &fault{Code: 1, Message: fmt.Sprintf("method %q is not supported", method)}
	}
	return fn(params)
}

// multicall runs the calls of a system.multicall in order; rospy
// unregisters everything in one multicall when a node shuts down.
func (m *Master) multicall(params []any) any {
	if len(params) != 1 {
		return &fault{Code: 1, Message: "system.multicall takes one array of calls"}
	}
	calls, ok := params[0].([]any)
	if !ok {
		return &fault{Code: 1, Message: "system.multicall takes an array of calls, got " + typeName(params[0])}
	}
	results := make([]any, 0, len(calls))
	for i, c := range calls {
		spec, _ := c.(map[string]any)
		method, _ := spec["methodName"].(string)
		args, argsOK := spec["params"].([]any)
		var res any
		switch {
		case method == "" || !argsOK:
			res = &fault{Code: 1, Message: fmt.Sprintf("call %d is not {methodName, params}", i)}
		case method == "system.multicall":
			res = &fault{Code: 1, Message: "system.multicall cannot be nested"}
		default:
			res = m.dispatch(method, args)
		}
		if f, ok := res.(*fault); ok {
			results = append(results, map[string]any{"faultCode": f.Code, "faultString": f.Message})
		} else {
			results = append(results, []any{res})
		}
	}
	return results
}

// bind decodes params into a request struct; on failure it returns the
// error response that rosmaster gives for invalid arguments.
func bind[Req any](params []any, req *Req, invalid func(msg string) any) (any, bool) {
	if err := bindParams(params, req); err != nil {
		return invalid(err.Error()), false
	}
	return nil, true
}
