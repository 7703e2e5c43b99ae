package tcpros

// The node's TCPROS port: one listener for every topic it publishes and
// every service it provides, as in roscpp and rospy. The first thing a
// peer sends is its connection header; its "topic" or "service" field
// says which of them it wants.

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// ServerConf configures a node's TCPROS port. Zero fields take the
// defaults.
type ServerConf struct {
	// Addr is where to listen (default "127.0.0.1:0": loopback, any
	// port; ARCHITECTURE.md, Listeners).
	Addr string
	// CallerID is the node's name, sent in every header ("/btrobot").
	CallerID string
	// MaxConns bounds the connections open at once, handshakes included
	// (default 256); one more is closed at once.
	MaxConns int
	// HandshakeTimeout bounds how long a peer may take to send its header
	// (default 5 s).
	HandshakeTimeout time.Duration
	// WriteTimeout closes a subscriber that has read nothing for this long
	// while messages wait for it (default 5 s): one that keeps reading is
	// not closed, however long a message takes it. ("Nothing" as the
	// kernel counts it: a blocked write wakes once half of the
	// connection's send buffer has drained, a few MB at most.)
	WriteTimeout time.Duration
	// Header bounds the headers peers send.
	Header HeaderLimits
}

// Server defaults.
const (
	DefaultMaxConns         = 256
	DefaultHandshakeTimeout = 5 * time.Second
	DefaultWriteTimeout     = 5 * time.Second
)

// Server is a node's TCPROS port.
type Server struct {
	conf ServerConf
	ln   net.Listener

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	topics   map[string]*Publisher
	services map[string]*Service
	closed   bool
	refused  uint64
	stop     chan struct{} // closed by Close

	wg sync.WaitGroup
}

// NewServer listens on conf.Addr and serves peers until Close.
func NewServer(conf ServerConf) (*Server, error) {
	if conf.Addr == "" {
		conf.Addr = "127.0.0.1:0"
	}
	if conf.CallerID == "" {
		return nil, errors.New("tcpros: a server needs the node's name (ServerConf.CallerID)")
	}
	if conf.MaxConns <= 0 {
		conf.MaxConns = DefaultMaxConns
	}
	if conf.HandshakeTimeout <= 0 {
		conf.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if conf.WriteTimeout <= 0 {
		conf.WriteTimeout = DefaultWriteTimeout
	}
	ln, err := net.Listen("tcp", conf.Addr)
	if err != nil {
		return nil, fmt.Errorf("tcpros: %w", err)
	}
	s := &Server{conf: conf, ln: ln, conns: map[net.Conn]struct{}{}, topics: map[string]*Publisher{}, services: map[string]*Service{}, stop: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Conns is the number of connections open now, and Refused the number
// closed at once because MaxConns were open.
func (s *Server) Conns() (open int, refused uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns), s.refused
}

// Close stops listening, closes every connection and waits for their
// goroutines to end.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.stop)
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	pubs := make([]*Publisher, 0, len(s.topics))
	for _, p := range s.topics {
		pubs = append(pubs, p)
	}
	s.mu.Unlock()
	for _, p := range pubs {
		p.Close()
	}
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors (EMFILE) and the like pass: keep
			// the port, as net/http does, backing off while they last.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-s.stop:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		s.mu.Lock()
		if s.closed || len(s.conns) >= s.conf.MaxConns {
			s.refused++
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer s.forget(c)
			s.handshake(c)
		}()
	}
}

func (s *Server) forget(c net.Conn) {
	c.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// handshake reads the peer's header within the handshake timeout and
// hands the connection to the topic or service it names; it returns when
// the connection is done.
func (s *Server) handshake(c net.Conn) {
	c.SetDeadline(time.Now().Add(s.conf.HandshakeTimeout))
	h, err := ReadHeader(c, s.conf.Header)
	if err != nil {
		if errors.Is(err, ErrHeader) {
			WriteHeader(c, Header{"error": err.Error()})
		}
		return
	}
	s.mu.Lock()
	pub, svc := s.topics[h["topic"]], s.services[h["service"]]
	s.mu.Unlock()
	switch {
	case h["topic"] != "" && pub != nil:
		pub.serve(c, h)
	case h["service"] != "" && svc != nil:
		svc.serve(c, h)
	case h["topic"] != "":
		WriteHeader(c, Header{"error": fmt.Sprintf("node %s does not publish %q", s.conf.CallerID, h["topic"])})
	case h["service"] != "":
		WriteHeader(c, Header{"error": fmt.Sprintf("node %s does not provide service %q", s.conf.CallerID, h["service"])})
	default:
		WriteHeader(c, Header{"error": "the header names neither a topic nor a service"})
	}
}

// checkType compares what a peer asks for with what is served; "*" on
// either side matches anything, as in roscpp.
func checkType(what string, theirs, ours string) error {
	if theirs == "" {
		return fmt.Errorf("the header has no %s", what)
	}
	if theirs != "*" && ours != "*" && theirs != ours {
		return fmt.Errorf("%s %q, this node's is %q", what, theirs, ours)
	}
	return nil
}
