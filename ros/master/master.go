// Package master is an embedded ROS1 master: the Master API, the Parameter
// Server API and the publisherUpdate and paramUpdate pushes to nodes, with
// the semantics of Debian's rosmaster, so that ROS client libraries and the
// ros* command-line tools work against it unchanged (rospy, actionlib,
// goroslib and rostopic, rosparam, rosnode and rosservice are tested against
// it and against rosmaster side by side).
//
//	m, err := master.New(master.Conf{Port: 11311})
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
//
// # On the network
//
// A ROS master takes every call from anyone who reaches it, shutdown
// included. So this one listens on the loopback interface unless Conf.Host
// names another address ("0.0.0.0" for every interface, as rosmaster
// does), and Auto, which starts a master for btrobot's own use, always
// listens on loopback. A shutdown call is logged (Conf.OnLog) with the
// caller ID it gave, the address it came from and its reason, and
// StoppedBy reports it.
//
// Nothing a client sends can hang the master or make its memory grow
// without bound, which rosmaster does not promise:
//   - a request must arrive, header and body, within Conf.RequestTimeout
//     (30 s) — a large one's body within RequestTimeout from when its share
//     of the work budget comes (below) — and its answer be read within as
//     long again from when it is ready; a client that stalls is
//     disconnected;
//   - a request body may weigh up to Conf.MaxRequestBytes (32 MiB); a larger
//     one is read through without being kept and answered with a fault
//     naming the limit;
//   - the parameters together may take up to Conf.MaxParamBytes (64 MiB); a
//     setParam that would go over is refused, changing nothing, with an
//     error naming the limit ([-1, "ERROR: parameter memory limit: ..."],
//     which rospy and rosparam raise as a MasterError);
//   - the graph (nodes, their registrations, topic types) may take up to
//     Conf.MaxGraphBytes (16 MiB); a registration that could go over is
//     refused in the same way;
//   - request bodies being decoded and copies of parameters being answered
//     share a budget of 3 × MaxRequestBytes + MaxParamBytes; a large
//     request waits for its share (RequestTimeout at most: then it is a
//     "the master is busy" fault), and an answer that
//     does not fit now is a "the master is busy" fault. Calls under 64 KiB,
//     which is every graph call, never wait;
//   - answers and pushes to nodes are written as they are encoded, never
//     held whole.
//
// With the defaults, a master process stays under 200 MB resident after any
// of the attacks in memory_test.go (8 setParams of 60 MB, 8 at once of 30
// MB, a flood of registrations, 2000 connections stalled mid-body), and
// under 400 MB at its peak.
package master

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Conf configures a Master.
type Conf struct {
	// Host is the address to listen on, and the host name put in URI().
	// Empty means the loopback interface, 127.0.0.1: only nodes on this
	// machine reach the master. "0.0.0.0" or "::" means every interface,
	// advertised under the machine's host name, which is what rosmaster
	// does without ROS_HOSTNAME or ROS_IP. A host name or address listens
	// on that interface alone.
	Host string

	// Port is the TCP port to listen on; 0 picks a free port (11311 is the
	// ROS default).
	Port int

	// OnLog, when set, receives a line for each event the operator of the
	// master should hear about: a shutdown call and who made it, a request
	// refused for a limit or cut off for its slowness. It is called from
	// the goroutine serving the request and must not block for long.
	OnLog func(msg string)

	// RequestTimeout bounds the reading of one request, header and body
	// (a large request's wait for its share of the work budget, and its
	// body from when the share comes), and, from when it is ready, the
	// writing of its response: a client
	// that stalls mid-request, or stops reading its answer, is
	// disconnected after it. Zero means DefaultRequestTimeout.
	RequestTimeout time.Duration

	// MaxRequestBytes bounds the body of one request. A larger request is
	// read to its end, not kept, and answered with a fault naming the
	// limit. Zero means DefaultMaxRequestBytes.
	MaxRequestBytes int64

	// MaxParamBytes bounds the memory of all parameters together, counted
	// as the bytes of their strings plus a small overhead per value (see
	// ParamBytes). A setParam that would go over it changes nothing and
	// is answered with an error naming the limit. Zero means
	// DefaultMaxParamBytes.
	MaxParamBytes int64

	// MaxGraphBytes bounds the memory of the graph: nodes, their
	// registrations as publishers, subscribers, service providers and
	// parameter subscribers, and topic types, counted as the bytes of their
	// names and URIs plus a small overhead each. A registration that could
	// go over it is refused with an error naming the limit. Zero means
	// DefaultMaxGraphBytes.
	MaxGraphBytes int64

	// MaxConnections bounds the connections served at once. Past it, a new
	// connection is made room for by closing one idle between requests, or
	// else the one longest in its request (a stalled client: a node's call
	// takes milliseconds). Zero means DefaultMaxConnections.
	MaxConnections int
}

// Defaults of Conf's limits. A robot description (URDF), the largest
// parameter in common use, weighs a few hundred kilobytes; a whole robot's
// parameters a few megabytes. The limits leave ten times that and keep the
// master's memory well under 200 MB whatever its clients send.
const (
	DefaultRequestTimeout  = 30 * time.Second
	DefaultMaxRequestBytes = 32 << 20
	DefaultMaxParamBytes   = 64 << 20
	// A graph of 300 nodes with 30 registrations each takes about 2 MiB.
	DefaultMaxGraphBytes = 16 << 20
	// Nodes hold a connection or two to the master, most of the time idle.
	DefaultMaxConnections = 1024
)

// headerTimeout bounds the reading of a request's header, which is small;
// RequestTimeout, when shorter, bounds it too.
const headerTimeout = 10 * time.Second

// decodeCost is how many bytes of memory decoding takes per byte of request
// body, at most: encoding/xml's buffer grows by doubling to hold a long
// string, which is then copied out.
const decodeCost = 3

// reclaimAfter is the share of the work budget after which a request, once
// answered, has the garbage collector give memory back to the system when
// no other large request is in work. An idle process collects no garbage
// for two minutes, and decoding leaves several times the body behind.
const reclaimAfter = 4 << 20

// smallRequest is the size up to which a request body, or a copy of
// parameters made for an answer, takes no share of the work budget: the
// graph calls every node makes are far smaller, so they never wait on a
// large setParam or getParam.
const smallRequest = 64 << 10

// Master is an embedded ROS master. Its methods are safe for concurrent use.
type Master struct {
	conf Conf
	pid  int

	mu    sync.Mutex // guards graph, params and stoppedBy
	graph *graph
	// leaving lists, by topic, the slave APIs of publishers that another
	// node took the name of and that have not answered their shutdown
	// call yet (afterBump).
	leaving map[string]map[string]bool
	params  *paramTree

	// work bounds the request bodies being decoded and the copies of
	// parameters being answered, across all requests at once.
	work *budget

	started   bool
	closing   bool
	uri       string
	ln        net.Listener
	srv       *http.Server
	ctx       context.Context
	cancel    context.CancelFunc
	slaves    *slaveCaller
	serving   sync.WaitGroup
	stoppedBy *ShutdownCall

	closeOnce sync.Once
	done      chan struct{}
	methods   map[string]method
}

// method is one method of the XML-RPC API: it takes the caller and the
// call's parameters and returns the response, or a *fault.
type method func(from *peer, params []any) any

// peer is what the master knows of the client making a call, beyond what
// the call says.
type peer struct {
	// addr is the client's address, host:port; unlike a caller ID, which
	// any client may claim, it is where the call came from.
	addr string
	// reserved is the share of the work budget the request holds, given
	// back when its answer has been written.
	reserved int64
}

// ShutdownCall is a shutdown request the master received from the network.
type ShutdownCall struct {
	// CallerID is the caller ID the request gave; any client may give any.
	CallerID string
	// Addr is the address the request came from, host:port.
	Addr string
	// Reason is the reason the request gave, possibly empty.
	Reason string
}

func (c ShutdownCall) String() string {
	s := fmt.Sprintf("%s from %s", c.CallerID, c.Addr)
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	return s
}

// New checks conf and returns a Master that is not yet listening.
func New(conf Conf) (*Master, error) {
	if conf.Port < 0 || conf.Port > 65535 {
		return nil, fmt.Errorf("master: port %d is out of range 0-65535", conf.Port)
	}
	if conf.RequestTimeout < 0 || conf.MaxRequestBytes < 0 || conf.MaxParamBytes < 0 || conf.MaxGraphBytes < 0 || conf.MaxConnections < 0 {
		return nil, errors.New("master: RequestTimeout, MaxRequestBytes, MaxParamBytes, MaxGraphBytes and MaxConnections cannot be negative")
	}
	if conf.Host == "" {
		conf.Host = "127.0.0.1"
	}
	if conf.RequestTimeout == 0 {
		conf.RequestTimeout = DefaultRequestTimeout
	}
	if conf.MaxRequestBytes == 0 {
		conf.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if conf.MaxParamBytes == 0 {
		conf.MaxParamBytes = DefaultMaxParamBytes
	}
	if conf.MaxGraphBytes == 0 {
		conf.MaxGraphBytes = DefaultMaxGraphBytes
	}
	if conf.MaxConnections == 0 {
		conf.MaxConnections = DefaultMaxConnections
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Master{
		conf:    conf,
		pid:     os.Getpid(),
		graph:   newGraph(),
		leaving: map[string]map[string]bool{},
		params:  newParamTree(conf.MaxParamBytes),
		// One request of the largest size, being decoded, and one copy of
		// every parameter may be in work at once.
		work:   newBudget(decodeCost*conf.MaxRequestBytes + conf.MaxParamBytes),
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
	if host == "0.0.0.0" || host == "::" {
		if host, err = os.Hostname(); err != nil || host == "" {
			host = "localhost"
		}
	}
	limited := newConnLimit(ln, m.conf.MaxConnections, m.logf)
	m.started = true
	m.ln = ln
	m.uri = "http://" + net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)) + "/"
	m.srv = &http.Server{
		Handler:           http.HandlerFunc(m.serveHTTP),
		ReadHeaderTimeout: min(headerTimeout, m.conf.RequestTimeout),
		ReadTimeout:       m.conf.RequestTimeout,
		WriteTimeout:      m.conf.RequestTimeout,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return m.ctx },
		ConnState:         limited.connState,
		ConnContext:       limited.connContext,
		ErrorLog:          log.New(logWriter{m}, "", 0),
	}
	m.serving.Add(1)
	go func() {
		defer m.serving.Done()
		m.srv.Serve(limited) //nolint:errcheck // always ErrServerClosed after Close
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
// request from the network (see StoppedBy).
func (m *Master) Done() <-chan struct{} {
	return m.done
}

// StoppedBy returns the shutdown request that stopped the master, and
// false when none did (it is running, or Close stopped it).
func (m *Master) StoppedBy() (ShutdownCall, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stoppedBy == nil {
		return ShutdownCall{}, false
	}
	return *m.stoppedBy, true
}

// ParamBytes returns the memory the parameters take, as MaxParamBytes
// counts it.
func (m *Master) ParamBytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.params.bytes
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

// logWriter passes what net/http logs (failures to accept connections, for
// one) to Conf.OnLog.
type logWriter struct{ m *Master }

func (w logWriter) Write(p []byte) (int, error) {
	w.m.logf("%s", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// logf sends a line to Conf.OnLog.
func (m *Master) logf(format string, args ...any) {
	if m.conf.OnLog != nil {
		m.conf.OnLog(fmt.Sprintf(format, args...))
	}
}

// serveHTTP answers one XML-RPC request. The server's deadlines bound the
// time it takes; MaxRequestBytes and the work budget bound the memory.
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
	from := &peer{addr: r.RemoteAddr}
	defer func() {
		m.work.release(from.reserved)
		if from.reserved >= reclaimAfter && m.work.idle() {
			http.NewResponseController(w).Flush() //nolint:errcheck // the answer first
			debug.FreeOSMemory()
		}
	}()
	w.Header().Set("Content-Type", "text/xml")
	limit := m.conf.MaxRequestBytes
	if r.ContentLength > limit {
		m.respond(w, m.refuseLarge(r, from, r.ContentLength))
		return
	}
	if size := r.ContentLength; size < 0 || size > smallRequest {
		if size < 0 { // unknown length: it may be as large as allowed
			size = limit
		}
		need := min(decodeCost*size, m.work.size)
		// The request may wait for its share as long as its body could
		// take to arrive.
		ctx, cancel := context.WithTimeout(r.Context(), m.conf.RequestTimeout)
		err := m.work.acquire(ctx, need)
		cancel()
		if err != nil {
			m.logf("refused a request of %s from %s: the master is busy with %s of other requests",
				formatBytes(need), from.addr, formatBytes(m.work.size))
			w.Header().Set("Connection", "close")
			m.respond(w, &fault{Code: 1, Message: "the master is busy with other large requests; try again"})
			return
		}
		from.reserved += need
		// Its body is read from now on, and gets RequestTimeout from
		// now: its client was not read while the request waited, and a
		// body that then took its time (30 MB on a loaded machine) was
		// cut off for the time the master kept it waiting.
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(m.conf.RequestTimeout))
	}
	body := &cappedReader{r: r.Body, left: limit}
	call, err := decodeMethodCall(body)
	var res any
	switch {
	case body.over:
		res = m.refuseLarge(r, from, -1)
	case isTimeout(err):
		m.logf("cut off a request from %s: its body did not arrive within %v", from.addr, m.conf.RequestTimeout)
		// The connection is past its deadline: nothing can be answered.
		panic(http.ErrAbortHandler)
	case err != nil:
		res = &fault{Code: 1, Message: "bad XML-RPC request: " + err.Error()}
	default:
		res = m.dispatch(from, call.Method, call.Params)
	}
	m.respond(w, res)
}

// refuseLarge answers a request whose body is over MaxRequestBytes, size
// bytes long when known (-1 otherwise). It reads the rest of the body
// without keeping it, until the request's deadline at most, so that the
// client, still sending, gets the fault rather than a reset connection.
func (m *Master) refuseLarge(r *http.Request, from *peer, size int64) any {
	n, _ := io.Copy(io.Discard, r.Body)
	if size < 0 {
		size = m.conf.MaxRequestBytes + n
	}
	msg := fmt.Sprintf("request of %s refused: the master takes requests of at most %s (MaxRequestBytes)",
		formatBytes(size), formatBytes(m.conf.MaxRequestBytes))
	m.logf("%s, from %s", msg, from.addr)
	return &fault{Code: 1, Message: msg}
}

// cappedReader reads at most left bytes of r and notes when r holds more.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
}

var errRequestTooLarge = errors.New("request body over the size limit")

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a body of exactly the limit from a larger one.
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			c.over = true
			return 0, errRequestTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// respond writes a handler's result, or the fault it returned, as the
// response. It encodes twice, to count the bytes and then to send them, so
// that an answer of any size is never held in memory whole.
func (m *Master) respond(w http.ResponseWriter, res any) {
	// The answer gets RequestTimeout from when it is ready: the server's
	// WriteTimeout runs from the request's header, and a large request
	// that waited for its share of the budget and took its time to
	// arrive (within its own RequestTimeout) would otherwise have its
	// answer cut off unwritten — the client saw the connection end with
	// no answer.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(m.conf.RequestTimeout))
	encode := func(out xmlWriter) error {
		if f, ok := res.(*fault); ok {
			encodeFault(out, f)
			return nil
		}
		return encodeMethodResponse(out, res)
	}
	size, err := encodedSize(encode)
	if err != nil {
		res = &fault{Code: 1, Message: "cannot encode response: " + err.Error()}
		size, _ = encodedSize(encode)
	}
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	out := bufio.NewWriterSize(w, 32<<10)
	encode(out) //nolint:errcheck // it succeeded when counted
	out.Flush() //nolint:errcheck // the client went away
}

// dispatch runs one method and returns its response, or a *fault.
func (m *Master) dispatch(from *peer, method string, params []any) any {
	if method == "system.multicall" {
		return m.multicall(from, params)
	}
	fn, ok := m.methods[method]
	if !ok {
		return &fault{Code: 1, Message: fmt.Sprintf("method %q is not supported", method)}
	}
	return fn(from, params)
}

// multicall runs the calls of a system.multicall in order; rospy
// unregisters everything in one multicall when a node shuts down.
func (m *Master) multicall(from *peer, params []any) any {
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
			res = m.dispatch(from, method, args)
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
