package tcpros

// Services over TCPROS: the client sends its header, then a request frame;
// the server answers a one-byte ok flag and a frame, the response when ok
// is 1 and an error text when it is 0. A persistent connection carries
// request after request; otherwise the server closes it after one.

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"sync"
	"time"
)

// ServiceConf describes a service this node provides.
type ServiceConf struct {
	// Service is the service's resolved name; Type, MD5, RequestType and
	// ResponseType its type's ROS names and MD5 sum.
	Service, Type, MD5, RequestType, ResponseType string
	// Request is a value of the request struct (or a pointer to one).
	Request any
	// Handler answers a request (a pointer to a new request struct) with
	// a response struct (or pointer), or an error whose text the client
	// gets. Calls on one connection come one at a time.
	Handler func(req any) (res any, err error)
	// MaxRequest bounds a request's declared size (default 1 MiB).
	MaxRequest int
}

// DefaultMaxRequest bounds a service request unless ServiceConf says
// otherwise.
const DefaultMaxRequest = 1 << 20

// Service is a service provided on a Server.
type Service struct {
	srv  *Server
	conf ServiceConf
	req  reflect.Type

	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]struct{} // its clients' connections, persistent ones held between calls
}

// Provide serves conf.Service on s.
func (s *Server) Provide(conf ServiceConf) (*Service, error) {
	if conf.Service == "" || conf.MD5 == "" || conf.Handler == nil {
		return nil, errors.New("tcpros: a service needs Service, MD5 and Handler")
	}
	if err := Check(conf.Request); err != nil {
		return nil, err
	}
	if conf.MaxRequest <= 0 {
		conf.MaxRequest = DefaultMaxRequest
	}
	t := reflect.TypeOf(conf.Request)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	svc := &Service{srv: s, conf: conf, req: t, conns: map[net.Conn]struct{}{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("tcpros: the server is closed")
	}
	if _, dup := s.services[conf.Service]; dup {
		return nil, fmt.Errorf("tcpros: service %s is provided already", conf.Service)
	}
	s.services[conf.Service] = svc
	return svc, nil
}

// Close stops providing the service: new connections are refused, and
// the connections of its clients (a persistent client's held between
// calls) are closed, so that no call reaches a handler after Close.
func (svc *Service) Close() {
	svc.srv.mu.Lock()
	if svc.srv.services[svc.conf.Service] == svc {
		delete(svc.srv.services, svc.conf.Service)
	}
	svc.srv.mu.Unlock()
	svc.mu.Lock()
	svc.closed = true
	for c := range svc.conns {
		c.Close()
	}
	svc.mu.Unlock()
}

// hold records a client's connection until the function returned is
// called; false when the service is closed.
func (svc *Service) hold(c net.Conn) (release func(), ok bool) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	if svc.closed {
		return nil, false
	}
	svc.conns[c] = struct{}{}
	return func() {
		svc.mu.Lock()
		delete(svc.conns, c)
		svc.mu.Unlock()
	}, true
}

func (svc *Service) serve(c net.Conn, h Header) {
	s := svc.srv
	ours := Header{
		"callerid": s.conf.CallerID, "md5sum": svc.conf.MD5, "type": svc.conf.Type,
		"request_type": svc.conf.RequestType, "response_type": svc.conf.ResponseType,
	}
	if h["probe"] == "1" { // rosservice asks for the type this way
		WriteHeader(c, ours)
		return
	}
	err := checkType("md5sum", h["md5sum"], svc.conf.MD5)
	if err == nil && h["callerid"] == "" {
		err = errors.New("the header has no callerid")
	}
	if err != nil {
		WriteHeader(c, Header{"error": fmt.Sprintf("service %s: %v", svc.conf.Service, err)})
		return
	}
	release, open := svc.hold(c)
	if !open {
		WriteHeader(c, Header{"error": fmt.Sprintf("node %s does not provide service %q", s.conf.CallerID, svc.conf.Service)})
		return
	}
	defer release()
	if err := WriteHeader(c, ours); err != nil {
		return
	}
	persistent := h["persistent"] == "1"
	r := bufio.NewReader(c) // the header was read exactly: what follows is requests
	for {
		// A persistent client may stay idle between requests (it holds
		// one of MaxConns); a request that has begun arrives whole within
		// the handshake timeout, and so does the one request of a client
		// that is not persistent.
		var frame []byte
		var err error
		if persistent {
			frame, err = readBegunFrame(c, r, svc.conf.MaxRequest, s.conf.HandshakeTimeout)
		} else {
			c.SetReadDeadline(time.Now().Add(s.conf.HandshakeTimeout))
			frame, err = ReadFrame(r, svc.conf.MaxRequest)
		}
		if err != nil {
			return
		}
		reply := svc.answer(frame)
		c.SetWriteDeadline(time.Now().Add(s.conf.WriteTimeout))
		if _, err := c.Write(reply); err != nil || !persistent {
			return
		}
	}
}

// answer decodes a request, calls the handler and returns the reply: the
// ok flag and the response's frame, or 0 and the error's text.
func (svc *Service) answer(frame []byte) []byte {
	req := reflect.New(svc.req).Interface()
	err := Unmarshal(frame, req)
	var res any
	if err == nil {
		res, err = svc.handle(req)
	}
	if err == nil {
		reply, err := AppendFrame([]byte{1}, res)
		if err == nil {
			return reply
		}
		return errorReply(fmt.Errorf("the response: %w", err))
	}
	return errorReply(err)
}

// handle calls the handler, turning a panic into an error for the client.
func (svc *Service) handle(req any) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("service %s: the handler panicked: %v", svc.conf.Service, r)
		}
	}()
	return svc.conf.Handler(req)
}

func errorReply(err error) []byte {
	msg := err.Error()
	b := append([]byte{0}, binary.LittleEndian.AppendUint32(nil, uint32(len(msg)))...)
	return append(b, msg...)
}

// ServiceClientConf describes a connection to a service.
type ServiceClientConf struct {
	// Addr is the service's TCPROS address ("host:port"), as the master's
	// lookupService answers it (without "rosrpc://").
	Addr string
	// CallerID is this node's name; Service the service's resolved name,
	// MD5 its type's sum ("*" takes any).
	CallerID, Service, MD5 string
	// Persistent keeps the connection for the next call.
	Persistent bool
	// MaxResponse bounds a response's declared size (DefaultMaxFrame when
	// 0).
	MaxResponse int
	// HandshakeTimeout bounds the dial and the header exchange.
	HandshakeTimeout time.Duration
	// Header bounds the server's header.
	Header HeaderLimits
}

// ErrServiceFailed wraps the error text a service's handler answered.
var ErrServiceFailed = errors.New("the service failed")

// ServiceClient calls one service, one call at a time.
type ServiceClient struct {
	conf ServiceClientConf
	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader // conn's, made with it: a response's ok byte, length and body in one read
}

// NewServiceClient returns a client; it connects on the first call.
func NewServiceClient(conf ServiceClientConf) *ServiceClient {
	if conf.HandshakeTimeout <= 0 {
		conf.HandshakeTimeout = DefaultHandshakeTimeout
	}
	return &ServiceClient{conf: conf}
}

// Call sends req and decodes the response into res (a pointer to the
// response struct), within ctx. A service's own failure wraps
// ErrServiceFailed with its text.
func (sc *ServiceClient) Call(ctx context.Context, req, res any) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if err := sc.call(ctx, req, res); err != nil {
		if !errors.Is(err, ErrServiceFailed) {
			sc.disconnect()
		}
		return fmt.Errorf("tcpros: service %s: %w", sc.conf.Service, err)
	}
	return nil
}

func (sc *ServiceClient) call(ctx context.Context, req, res any) error {
	if sc.conn == nil {
		hctx, cancel := context.WithTimeout(ctx, sc.conf.HandshakeTimeout)
		defer cancel()
		var d net.Dialer
		c, err := d.DialContext(hctx, "tcp", sc.conf.Addr)
		if err != nil {
			return err
		}
		h, err := handshake(hctx, c, Header{
			"callerid": sc.conf.CallerID, "service": sc.conf.Service, "md5sum": sc.conf.MD5,
			"persistent": boolField(sc.conf.Persistent),
		}, sc.conf.Header)
		if err == nil {
			err = checkType("md5sum", h["md5sum"], sc.conf.MD5)
		}
		if err != nil {
			c.Close()
			return err
		}
		sc.conn, sc.r = c, bufio.NewReader(c)
	}
	c, r := sc.conn, sc.r
	if !sc.conf.Persistent {
		defer sc.disconnect()
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	} else {
		c.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	frame, err := AppendFrame(nil, req)
	if err != nil {
		return err
	}
	if _, err := c.Write(frame); err != nil {
		return err
	}
	var ok [1]byte
	if _, err := io.ReadFull(r, ok[:]); err != nil {
		return err
	}
	body, err := ReadFrame(r, sc.conf.MaxResponse)
	if err != nil {
		return err
	}
	if ok[0] != 1 {
		return fmt.Errorf("%w: %s", ErrServiceFailed, clipText(body))
	}
	return Unmarshal(body, res)
}

// Close closes a persistent connection.
func (sc *ServiceClient) Close() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.disconnect()
}

// disconnect closes the connection, if there is one, and forgets it with
// its buffer; the next call connects anew. sc.mu is held.
func (sc *ServiceClient) disconnect() {
	if sc.conn != nil {
		sc.conn.Close()
		sc.conn, sc.r = nil, nil
	}
}
