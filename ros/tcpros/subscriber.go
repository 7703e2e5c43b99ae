package tcpros

// The subscriber's side of a topic connection: dial a publisher's TCPROS
// port, exchange headers, then read framed messages, each bounded.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"sync"
	"time"
)

// SubscriberConf describes a connection to one publisher of a topic.
type SubscriberConf struct {
	// Addr is the publisher's TCPROS address ("host:port"), as its
	// requestTopic answers.
	Addr string
	// CallerID is this node's name; Topic the topic's resolved name.
	CallerID, Topic string
	// Type, MD5 and Definition are the message type's, as the publisher
	// checks them ("*" for MD5 takes any type).
	Type, MD5, Definition string
	// Msg is a value of the message struct (or a pointer to one): each
	// message is decoded into a new one of its type.
	Msg any
	// OnMessage gets each message, a pointer to a new struct, from the
	// subscription's goroutine, one at a time.
	OnMessage func(msg any)
	// TCPNoDelay asks the publisher to send without Nagle's delay.
	TCPNoDelay bool
	// MaxFrame bounds a message's declared size (DefaultMaxFrame when 0).
	MaxFrame int
	// FrameTimeout bounds how long a message may take to arrive once its
	// first byte has (default DefaultFrameTimeout): a publisher that
	// trickles a frame is closed. Between messages there is no bound (a
	// topic may be quiet).
	FrameTimeout time.Duration
	// HandshakeTimeout bounds the dial and the header exchange (default
	// DefaultHandshakeTimeout).
	HandshakeTimeout time.Duration
	// Header bounds the publisher's header.
	Header HeaderLimits
}

// DefaultFrameTimeout bounds how long a message may take once begun: 64
// MiB at 10 Mbit/s take about 54 s.
const DefaultFrameTimeout = 60 * time.Second

// Subscription is a connection to one publisher.
type Subscription struct {
	conn   net.Conn
	header Header
	done   chan struct{}
	once   sync.Once
	err    error
}

// Subscribe connects to the publisher at conf.Addr and starts reading its
// messages. It returns when the headers are exchanged: an error then says
// what the publisher refused or sent wrong.
func Subscribe(ctx context.Context, conf SubscriberConf) (*Subscription, error) {
	if conf.HandshakeTimeout <= 0 {
		conf.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if conf.FrameTimeout <= 0 {
		conf.FrameTimeout = DefaultFrameTimeout
	}
	t := reflect.TypeOf(conf.Msg)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if err := Check(conf.Msg); err != nil {
		return nil, err
	}
	if conf.OnMessage == nil {
		return nil, errors.New("tcpros: a subscriber needs OnMessage")
	}
	ctx, cancel := context.WithTimeout(ctx, conf.HandshakeTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", conf.Addr)
	if err != nil {
		return nil, fmt.Errorf("tcpros: topic %s: %w", conf.Topic, err)
	}
	h, err := handshake(ctx, c, Header{
		"callerid": conf.CallerID, "topic": conf.Topic, "type": conf.Type, "md5sum": conf.MD5,
		"message_definition": conf.Definition, "tcp_nodelay": boolField(conf.TCPNoDelay),
	}, conf.Header)
	if err == nil {
		err = checkType("md5sum", h["md5sum"], conf.MD5)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("tcpros: topic %s from %s: %w", conf.Topic, conf.Addr, err)
	}
	s := &Subscription{conn: c, header: h, done: make(chan struct{})}
	go s.read(t, conf)
	return s, nil
}

// handshake sends our header and reads the peer's, within ctx's deadline.
func handshake(ctx context.Context, c net.Conn, ours Header, lim HeaderLimits) (Header, error) {
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := WriteHeader(c, ours); err != nil {
		return nil, err
	}
	h, err := ReadHeader(c, lim)
	if err != nil {
		return nil, err
	}
	if e, ok := h["error"]; ok {
		return nil, fmt.Errorf("refused: %s", e)
	}
	c.SetDeadline(time.Time{})
	return h, nil
}

func boolField(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (s *Subscription) read(t reflect.Type, conf SubscriberConf) {
	defer close(s.done)
	// The handshake read exactly the header: what follows is frames.
	r := bufio.NewReader(s.conn)
	for {
		frame, err := readBegunFrame(s.conn, r, conf.MaxFrame, conf.FrameTimeout)
		if err != nil {
			s.fail(fmt.Errorf("tcpros: topic %s from %s: %w", conf.Topic, conf.Addr, err))
			return
		}
		m := reflect.New(t)
		if err := Unmarshal(frame, m.Interface()); err != nil {
			s.fail(fmt.Errorf("tcpros: topic %s from %s: %w", conf.Topic, conf.Addr, err))
			return
		}
		conf.OnMessage(m.Interface())
	}
}

func (s *Subscription) fail(err error) {
	s.once.Do(func() { s.err = err })
	s.conn.Close()
}

// Header is the publisher's connection header (its "latching", its
// "callerid").
func (s *Subscription) Header() Header { return s.header }

// Done is closed when the connection has ended; Err then says why.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err is why the connection ended (net.ErrClosed after Close, io.EOF
// when the publisher closed it), or nil while it lasts.
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Close ends the connection and waits for its goroutine.
func (s *Subscription) Close() {
	s.fail(net.ErrClosed)
	<-s.done
}
