package ros

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/ros/inproc"
	"github.com/btrobot/btrobot/runtime"
)

// DefaultMasterURI is where ROS nodes look for the master when
// ROS_MASTER_URI is not set.
const DefaultMasterURI = "http://localhost:11311/"

// LogLevel is the severity of a log line sent to /rosout.
type LogLevel int

// The ROS log levels.
const (
	LogDebug LogLevel = LogLevel(goroslib.LogLevelDebug)
	LogInfo  LogLevel = LogLevel(goroslib.LogLevelInfo)
	LogWarn  LogLevel = LogLevel(goroslib.LogLevelWarn)
	LogError LogLevel = LogLevel(goroslib.LogLevelError)
	LogFatal LogLevel = LogLevel(goroslib.LogLevelFatal)
)

// Conf says how a btrobot node joins a ROS graph. ConfFromArgs fills it from
// a command line and the environment the way every ROS node does.
type Conf struct {
	// MasterURI is the master's XML-RPC URI (ROS_MASTER_URI, __master:=);
	// DefaultMasterURI when empty.
	MasterURI string
	// Host is the address other nodes reach this one at (ROS_IP,
	// ROS_HOSTNAME, __ip:=, __hostname:=); empty picks the address of the
	// interface that faces the master.
	Host string
	// Namespace is the node's namespace (ROS_NAMESPACE, __ns:=); relative
	// names resolve in it. "/" when empty.
	Namespace string
	// Name is the node's name without its namespace (__name:=); "btrobot"
	// when empty.
	Name string
	// Remap maps names to names, as "from:=to" arguments do. Both sides
	// resolve like any name (relative to the namespace, '~' to the node).
	Remap map[string]string
	// Params are the node's private parameters ("_rate:=20"), set under
	// the node's name when it connects.
	Params map[string]any
	// Messages resolves ROS type names; BuiltinMessages when nil.
	Messages *Messages
	// OnLog, when set, receives every log line of the node (goroslib's own
	// included) besides /rosout; nothing is printed otherwise.
	OnLog func(level LogLevel, msg string)
	// Graph, when set, is the in-process graph the node joins instead of a
	// ROS master: no sockets, the same semantics (package inproc).
	// MasterURI and Host are then unused, and so are MasterCheck and
	// MasterTimeout (an in-process master cannot die on its own).
	Graph *inproc.Graph
	// MasterCheck is how often (wall time) the node asks the master whether
	// it still knows the node, so that a master that died or restarted is
	// noticed (Conn.Lost) [DefaultMasterCheck; < 0: never].
	// MasterTimeout bounds each question [DefaultMasterTimeout].
	MasterCheck, MasterTimeout time.Duration
	// Wire is the TCPROS implementation the node runs on when it joins a
	// master (Graph unset): WireTCPROS ("tcpros", the default when empty),
	// btrobot's own (package tcpros), whose every read of what a peer
	// sends is bounded (a peer cannot push the node into an out-of-memory
	// crash), and every call to the master bounded in time and size; or
	// WireGoroslib ("goroslib"), goroslib's node, which allocates what a
	// peer declares (up to 16 MiB per header field or string, connections
	// unbounded), kept for comparison and as a fallback.
	Wire string
}

// ConfFromArgs reads the ROS arguments of a command line (every argument
// with ":=": remappings, "_param:=value", "__name:=", "__ns:=", "__master:=",
// "__ip:=", "__hostname:=", "__log:=") and the ROS_* environment variables
// through getenv (os.Getenv when nil), arguments taking precedence. It
// returns the configuration, the other arguments in order, and every
// problem found at once.
func ConfFromArgs(name string, args []string, getenv func(string) string) (Conf, []string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := Conf{
		Name:      name,
		MasterURI: getenv("ROS_MASTER_URI"),
		Namespace: getenv("ROS_NAMESPACE"),
		Host:      getenv("ROS_IP"),
	}
	if c.Host == "" {
		c.Host = getenv("ROS_HOSTNAME")
	}
	var rest []string
	var errs []error
	var ip, hostname string
	for _, a := range args {
		key, value, ok := strings.Cut(a, ":=")
		if !ok {
			rest = append(rest, a)
			continue
		}
		bad := func(format string, v ...any) {
			errs = append(errs, fmt.Errorf("argument %q: %s", a, fmt.Sprintf(format, v...)))
		}
		switch {
		case key == "__name":
			if value == "" || strings.ContainsAny(value, "/~") || CheckName(value) != nil {
				bad("a node name is a plain name without '/' or '~'")
				continue
			}
			c.Name = value
		case key == "__ns":
			c.Namespace = value
		case key == "__master":
			c.MasterURI = value
		case key == "__ip":
			ip = value
		case key == "__hostname":
			hostname = value
		case key == "__log":
			// Log files are rospy's; btrobot logs to /rosout only.
		case strings.HasPrefix(key, "__"):
			bad("unknown special argument %s (known: __name, __ns, __master, __ip, __hostname, __log)", key)
		case strings.HasPrefix(key, "_"):
			pname := key[1:]
			if err := CheckName(pname); err != nil || strings.HasPrefix(pname, "~") {
				bad("private parameter name %q is not a valid ROS name", pname)
				continue
			}
			v, err := parseParamValue(value)
			if err != nil {
				bad("%v", err)
				continue
			}
			if c.Params == nil {
				c.Params = map[string]any{}
			}
			c.Params[pname] = v
		default:
			if err := CheckName(key); err != nil {
				bad("remapping from %v", err)
				continue
			}
			if err := CheckName(value); err != nil {
				bad("remapping to %v", err)
				continue
			}
			if c.Remap == nil {
				c.Remap = map[string]string{}
			}
			c.Remap[key] = value
		}
	}
	switch {
	case ip != "":
		c.Host = ip
	case hostname != "":
		c.Host = hostname
	}
	return c, rest, errors.Join(errs...)
}

// parseParamValue reads a "_name:=value" the way rosparam does: YAML, so
// 20 is an int, 0.5 a double, true a bool, anything else a string.
func parseParamValue(s string) (any, error) {
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return s, nil
	}
	switch x := v.(type) {
	case nil:
		return s, nil
	case bool, string, float64:
		return x, nil
	case int:
		return x, nil
	default:
		return nil, fmt.Errorf("parameter value %q: only a bool, an integer, a number or a string can be set from the command line", s)
	}
}

// Conn is a btrobot node joined to a ROS graph: it resolves names, keeps one
// subscriber, publisher, service client and action client per name that
// every user of the node shares, and gives the clock (ROS time under
// /use_sim_time). Its methods are safe for concurrent use.
type Conn struct {
	conf   Conf
	wire   wire
	ns     string
	name   string // full name of the node
	remap  map[string]string
	msgs   *Messages
	clock  runtime.Clock
	sim    *SimClock
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	// closing is closed when Close begins: waits that a live connection
	// would see out (a cancel waiting for its goal's acknowledgement) end.
	closing chan struct{}
	// cancels are closed once their halted goal's server acknowledged the
	// cancel (or CancelAckPatience passed); Close waits for them.
	cancels []chan struct{}
	// goals are the cancel functions of the action goals in flight
	// (TrackGoal), for CancelGoals.
	goals   map[*goalEntry]struct{}
	subs    map[string]*topicSub
	pubs    map[string]*topicPub
	svcs    map[string]*serviceClient
	actions map[string]*actionClient
	// actionMu serialises making action clients, which subscribes and
	// advertises outside mu.
	actionMu sync.Mutex
	servers  []func() // closers of providers and action servers

	slaveURI string // the node's own slave API, as the master knows it (TCPROS)
	lost     lostState

	observer   atomic.Pointer[observerBox] // SetActionObserver
	goalsEnded atomic.Uint64               // GoalsEnded
}

// namespaceEnvMu serialises Connect when ROS_NAMESPACE must be overridden.
var namespaceEnvMu sync.Mutex

// Connect registers the node with the master and returns the connection.
// It goes by conf alone (ConfFromArgs is what reads the environment). With
// /use_sim_time set on the master, the connection's clock follows /clock
// (see SimClock).
func Connect(conf Conf) (*Conn, error) {
	if conf.Name == "" {
		conf.Name = "btrobot"
	}
	if conf.MasterURI == "" {
		conf.MasterURI = DefaultMasterURI
	}
	if conf.Messages == nil {
		conf.Messages = BuiltinMessages()
	}
	if conf.MasterCheck == 0 {
		conf.MasterCheck = DefaultMasterCheck
	}
	if conf.MasterTimeout <= 0 {
		conf.MasterTimeout = DefaultMasterTimeout
	}
	ns, err := CleanNamespace(conf.Namespace)
	if err != nil {
		return nil, err
	}
	if strings.ContainsAny(conf.Name, "/~") || CheckName(conf.Name) != nil {
		return nil, fmt.Errorf("node name %q: a node name is a plain name without '/' or '~'", conf.Name)
	}
	c := &Conn{
		conf: conf, ns: ns, name: JoinName(ns, conf.Name), msgs: conf.Messages,
		remap:   map[string]string{},
		subs:    map[string]*topicSub{},
		pubs:    map[string]*topicPub{},
		svcs:    map[string]*serviceClient{},
		actions: map[string]*actionClient{},
		lost:    lostState{ch: make(chan struct{}), silent: make(chan struct{})},
		closing: make(chan struct{}),
	}
	for from, to := range conf.Remap {
		c.remap[resolveName(ns, c.name, from)] = resolveName(ns, c.name, to)
	}
	ev := wireEvents{log: c.onLog, publisherLost: c.onPublisherLost, shutdown: c.onShutdown,
		unregisterSilent: c.onUnregisterSilent, masterSilent: c.masterSilent}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if conf.Graph != nil {
		if c.wire, err = newInprocWire(conf.Graph, c.name, ev); err != nil {
			c.cancel()
			return nil, err
		}
	} else {
		switch conf.Wire {
		case "", WireTCPROS:
			tw, err := newTcprosWire(conf, ns, ev)
			if err != nil {
				c.cancel()
				return nil, err
			}
			c.wire = tw
			c.slaveURI = tw.uri
		case WireGoroslib:
			rw, err := newRosWire(conf, ns, ev)
			if err != nil {
				c.cancel()
				return nil, err
			}
			c.wire = rw
			if c.slaveURI, err = c.masterClient().LookupNode(c.name); err != nil {
				c.Close()
				return nil, fmt.Errorf("look up %s on the master at %s: %w", c.name, conf.MasterURI, err)
			}
			rw.slaveURI = c.slaveURI
		default:
			c.cancel()
			return nil, fmt.Errorf("wire %q: the wires are %q (the default) and %q", conf.Wire, WireTCPROS, WireGoroslib)
		}
		if conf.MasterCheck > 0 {
			c.wg.Add(1)
			go c.watchMaster()
		}
	}
	if err := c.setPrivateParams(); err != nil {
		c.Close()
		return nil, err
	}
	sim, err := c.wire.hasParam("/use_sim_time")
	if err == nil && sim {
		sim, err = c.wire.paramBool("/use_sim_time")
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("read /use_sim_time: %w", err)
	}
	if sim {
		c.sim = newSimClock()
		c.clock = c.sim
		if err := c.followClock(); err != nil {
			c.Close()
			return nil, fmt.Errorf("subscribe /clock (/use_sim_time is set): %w", err)
		}
	} else {
		c.clock = runtime.WallClock{}
	}
	return c, nil
}

// masterAddress turns a ROS_MASTER_URI into goroslib's host:port.
func masterAddress(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "http" || u.Hostname() == "" {
		return "", fmt.Errorf("master URI %q: write it as http://HOST:PORT/, like %s", uri, DefaultMasterURI)
	}
	port := u.Port()
	if port == "" {
		port = "11311"
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("master URI %q: port %q is not a TCP port", uri, port)
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

func (c *Conn) setPrivateParams() error {
	keys := make([]string, 0, len(c.conf.Params))
	for k := range c.conf.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := c.SetParam("~"+k, c.conf.Params[k]); err != nil {
			return err
		}
	}
	return nil
}

// Name returns the node's full name, such as /robot1/btrobot.
func (c *Conn) Name() string { return c.name }

// Namespace returns the node's namespace, such as /robot1 or /.
func (c *Conn) Namespace() string { return c.ns }

// MasterURI returns the URI of the master the node registered with.
func (c *Conn) MasterURI() string { return c.conf.MasterURI }

// SlaveURI returns the URI of the node's own slave API (XML-RPC), as the
// master knows it.
func (c *Conn) SlaveURI() string { return c.slaveURI }

// Messages returns the type registry the connection resolves names with.
func (c *Conn) Messages() *Messages { return c.msgs }

// Resolve turns a topic, service, action or parameter name as written
// (relative, private or global) into the global name the node uses, after
// remapping.
func (c *Conn) Resolve(name string) string {
	r := resolveName(c.ns, c.name, name)
	if to, ok := c.remap[r]; ok {
		return to
	}
	return r
}

// Clock returns the node's clock: ROS time, which is the wall clock unless
// /use_sim_time was set when the node connected.
func (c *Conn) Clock() runtime.Clock { return c.clock }

// SimClock returns the clock that follows /clock, or nil when the node runs
// on wall time.
func (c *Conn) SimClock() *SimClock { return c.sim }

// Logf sends a log line to /rosout (and OnLog).
func (c *Conn) Logf(level LogLevel, format string, args ...any) {
	c.wire.log(level, fmt.Sprintf(format, args...))
}

// HasParam reports whether parameter name is set on the master.
func (c *Conn) HasParam(name string) (bool, error) { return c.wire.hasParam(c.Resolve(name)) }

// ParamBool reads a boolean parameter.
func (c *Conn) ParamBool(name string) (bool, error) { return c.wire.paramBool(c.Resolve(name)) }

// ParamInt reads an integer parameter.
func (c *Conn) ParamInt(name string) (int, error) { return c.wire.paramInt(c.Resolve(name)) }

// ParamFloat64 reads a floating-point parameter (an integer one reads too).
func (c *Conn) ParamFloat64(name string) (float64, error) {
	return c.wire.paramFloat64(c.Resolve(name))
}

// ParamString reads a string parameter.
func (c *Conn) ParamString(name string) (string, error) {
	return c.wire.paramString(c.Resolve(name))
}

// SetParam sets parameter name to a bool, an integer, a float64 or a string.
func (c *Conn) SetParam(name string, v any) error {
	r := c.Resolve(name)
	switch x := v.(type) {
	case int32:
		v = int(x)
	case int64:
		v = int(x)
	case float32:
		v = float64(x)
	case bool, int, float64, string:
	default:
		return fmt.Errorf("set parameter %s: a %T cannot be set (only bool, int, float64 and string)", r, v)
	}
	if err := c.wire.setParam(r, v); err != nil {
		return fmt.Errorf("set parameter %s: %w", r, err)
	}
	return nil
}

type goalEntry struct{ cancel context.CancelCauseFunc }

// TrackGoal registers an action goal in flight, which CancelGoals cancels;
// the function returned unregisters it.
func (c *Conn) TrackGoal(cancel context.CancelCauseFunc) (untrack func()) {
	e := &goalEntry{cancel}
	c.mu.Lock()
	if c.goals == nil {
		c.goals = map[*goalEntry]struct{}{}
	}
	c.goals[e] = struct{}{}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		delete(c.goals, e)
		c.mu.Unlock()
	}
}

// CancelGoals cancels every action goal in flight with cause (their
// cancels are sent to the servers, as a halt's are), and returns how many
// there were.
func (c *Conn) CancelGoals(cause error) int {
	c.mu.Lock()
	goals := make([]*goalEntry, 0, len(c.goals))
	for e := range c.goals {
		goals = append(goals, e)
	}
	c.mu.Unlock()
	for _, e := range goals {
		e.cancel(cause)
	}
	return len(goals)
}

// trackCancel registers a halted goal's cancel, whose done is closed once
// the server acknowledged it; false when the connection is closed already.
func (c *Conn) trackCancel(done chan struct{}) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	live := c.cancels[:0]
	for _, ch := range c.cancels {
		select {
		case <-ch:
		default:
			live = append(live, ch)
		}
	}
	c.cancels = append(live, done)
	return true
}

// Close unregisters every subscriber, publisher, service and action of the
// node, then the node itself. It first waits, at most CancelAckPatience
// (half a second), for the servers of goals halted earlier to acknowledge
// their cancels, so that no cancel is lost with its connection. Every
// unregistration from the master is bounded (unregister), and so is
// goroslib's teardown of the node's own servers (a second; half a second
// after the node lost ROS), which then ends in the background. It may be
// called more than once.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.closing)
	cancels := c.cancels
	c.cancels = nil
	c.mu.Unlock()
	// The cancels of halted goals leave before their connections close.
	deadline := time.After(CancelAckPatience)
wait:
	for _, ch := range cancels {
		select {
		case <-ch:
		case <-deadline:
			break wait
		}
	}
	c.mu.Lock()
	subs, pubs, svcs, actions, servers := c.subs, c.pubs, c.svcs, c.actions, c.servers
	c.subs, c.pubs, c.svcs, c.actions, c.servers = nil, nil, nil, nil, nil
	c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
	for i := len(servers) - 1; i >= 0; i-- {
		c.unregister("a service or an action server", servers[i])
	}
	for name, a := range actions {
		c.unregister("the action client of "+name, a.close)
	}
	for _, s := range svcs {
		s.close()
	}
	for _, s := range subs {
		s.close()
	}
	for _, p := range pubs {
		p.close()
	}
	// What is left of goroslib's teardown is the node's own: its slave
	// API's http.Server.Shutdown, which waits for a connection a peer
	// opened and has not used (net/http gives such a connection five
	// seconds), the TCPROS connections, and /rosout's unregistration. It
	// says nothing to a subscriber that matters to the robot: the
	// program's exit is not held for it beyond nodeCloseMax (less after
	// the node lost ROS); the rest ends in the background.
	bound := nodeCloseMax
	if c.Err() != nil {
		bound = lostNodeCloseMax
	}
	closed := make(chan struct{})
	go func() {
		if c.wire != nil {
			c.wire.close()
		}
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(bound):
	}
	c.wg.Wait()
	return nil
}

// nodeCloseMax and lostNodeCloseMax bound how long Close waits for
// goroslib to tear down the node, once its topics, services and actions
// are closed: a live node, and one that lost ROS.
const (
	nodeCloseMax     = time.Second
	lostNodeCloseMax = 500 * time.Millisecond
)

var errClosed = errors.New("the ROS connection is closed")
