package groot2

// The server side of ZMTP 3.0 (ZeroMQ's wire protocol, rfc.zeromq.org
// spec 23) with the NULL mechanism: what a REP and a PUB socket need to
// talk to libzmq's REQ, DEALER and SUB sockets (Groot2 links libzmq).
//
// It replaces github.com/go-zeromq/zmq4 here because a port is a place
// where any peer may send anything (ARCHITECTURE.md, Listeners), and zmq4
// v0.17.0 allocates whatever size a frame header declares (a fatal out of
// memory at 1 TiB), opens connections one at a time on its accept loop (a
// peer that connects and says nothing stops every later one), writes
// replies with no deadline from one goroutine (a peer that does not read
// stops every other), and takes a REP request's envelope to end at its
// last empty frame (an empty argument frame is echoed back). Every read
// here is bounded before anything is allocated for it, every connection
// has its own goroutine and deadlines, and their number is bounded.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// The bounds. Groot2's requests are tiny: a 6-byte header and an
// argument that is a blackboard name list or hooks as JSON (about 110
// bytes a hook), a few hundred bytes in practice; 64 KiB holds some 600
// hooks in one request. A REQ's request has 3 frames (the envelope's
// empty delimiter, the header, the argument); 16 leaves room for the
// routing frames a proxy adds. With maxConns connections per socket, what
// peers can make the server hold is bounded by 2 × 64 × 64 KiB = 8 MiB.
const (
	maxMessage       = 64 << 10 // bytes of a message's frames together
	maxFrames        = 16       // frames in a message
	maxCommand       = 4 << 10  // a command's body (READY: the socket type, an identity)
	maxConns         = 64       // connections a socket holds at once; one more closes the oldest
	handshakeTimeout = 5 * time.Second
	messageTimeout   = 5 * time.Second  // a message that has begun arrives whole within this
	writeTimeout     = 5 * time.Second  // a peer that reads nothing is closed after this
	repIdleTimeout   = 60 * time.Second // a REQ peer silent this long is closed (libzmq reconnects by itself)
	pubQueue         = 64               // messages waiting for one subscriber; more are dropped, as libzmq's PUB at its high-water mark
)

// ZMTP's frame flags.
const (
	flagMore    = 0x01
	flagLong    = 0x02
	flagCommand = 0x04
)

var (
	errTooLarge = errors.New("zmtp: message over the bounds")
	errProtocol = errors.New("zmtp: protocol error")
)

// greeting is ZMTP 3.0's, NULL mechanism, as-server 0 (as libzmq with NULL).
func greeting() []byte {
	g := make([]byte, 64)
	g[0], g[9] = 0xFF, 0x7F
	g[10], g[11] = 3, 0
	copy(g[12:32], "NULL")
	return g
}

// zlistener accepts ZMTP connections of one socket type.
type zlistener struct {
	ln    net.Listener
	typ   string          // this socket's type: "REP", "PUB"
	peers map[string]bool // the socket types it talks to
	serve func(c *zconn)  // runs a connection after its handshake, until it fails

	mu     sync.Mutex
	conns  map[*zconn]uint64 // by the order they came in
	seq    uint64
	closed bool
	wg     sync.WaitGroup
}

func listenZMTP(addr, typ string, peers []string, serve func(c *zconn)) (*zlistener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &zlistener{ln: ln, typ: typ, peers: map[string]bool{}, serve: serve, conns: map[*zconn]uint64{}}
	for _, p := range peers {
		l.peers[p] = true
	}
	l.wg.Add(1)
	go l.accept()
	return l, nil
}

func (l *zlistener) accept() {
	defer l.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// too many open files, and the like: wait, do not spin
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		c := &zconn{nc: nc, br: bufio.NewReaderSize(nc, 4096), done: make(chan struct{})}
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			nc.Close()
			continue
		}
		if len(l.conns) >= maxConns {
			// the oldest goes: a client that comes after a crowd of
			// stale connections gets in (a libzmq peer that was
			// dropped reconnects by itself)
			var oldest *zconn
			for o, seq := range l.conns {
				if oldest == nil || seq < l.conns[oldest] {
					oldest = o
				}
			}
			delete(l.conns, oldest)
			oldest.close()
		}
		l.seq++
		l.conns[c] = l.seq
		l.wg.Add(1)
		l.mu.Unlock()
		go func() {
			defer l.wg.Done()
			defer l.drop(c)
			if err := c.handshake(l.typ, l.peers); err != nil {
				return
			}
			l.serve(c)
		}()
	}
}

func (l *zlistener) drop(c *zconn) {
	c.close()
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

func (l *zlistener) addr() net.Addr { return l.ln.Addr() }

// open returns how many connections the socket holds now.
func (l *zlistener) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// close stops accepting, closes every connection and waits for their
// goroutines.
func (l *zlistener) close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	err := l.ln.Close()
	for c := range l.conns {
		c.close()
	}
	l.mu.Unlock()
	l.wg.Wait()
	return err
}

// zconn is one ZMTP connection.
type zconn struct {
	nc   net.Conn
	br   *bufio.Reader
	once sync.Once
	done chan struct{} // closed by close
}

func (c *zconn) close() {
	c.once.Do(func() {
		c.nc.Close()
		close(c.done)
	})
}

// handshake exchanges greetings and READY commands, within
// handshakeTimeout, and checks that the peer's socket type is one of
// peers.
func (c *zconn) handshake(typ string, peers map[string]bool) error {
	c.nc.SetDeadline(time.Now().Add(handshakeTimeout))
	if _, err := c.nc.Write(greeting()); err != nil {
		return err
	}
	var g [64]byte
	if _, err := io.ReadFull(c.br, g[:]); err != nil {
		return err
	}
	if g[0] != 0xFF || g[9] != 0x7F {
		return fmt.Errorf("%w: not a ZMTP greeting", errProtocol)
	}
	if g[10] < 3 {
		return fmt.Errorf("%w: ZMTP %d.%d, want 3.x", errProtocol, g[10], g[11])
	}
	if mech := string(bytes.TrimRight(g[12:32], "\x00")); mech != "NULL" {
		c.writeError("security mechanism not supported")
		return fmt.Errorf("%w: mechanism %q, want NULL", errProtocol, mech)
	}
	ready := commandBody("READY", property("Socket-Type", typ))
	if err := c.writeFrames(flagCommand, [][]byte{ready}); err != nil {
		return err
	}
	name, body, err := c.readCommand()
	if err != nil {
		return err
	}
	if name != "READY" {
		return fmt.Errorf("%w: %s before READY", errProtocol, name)
	}
	props, err := properties(body)
	if err != nil {
		return err
	}
	if !peers[props["socket-type"]] {
		c.writeError("invalid socket type")
		return fmt.Errorf("%w: a %q peer for a %s socket", errProtocol, props["socket-type"], typ)
	}
	c.nc.SetDeadline(time.Time{})
	return nil
}

// readCommand reads one command frame.
func (c *zconn) readCommand() (string, []byte, error) {
	flags, err := c.br.ReadByte()
	if err != nil {
		return "", nil, err
	}
	if flags&flagCommand == 0 || flags&^(flagLong|flagCommand) != 0 {
		return "", nil, fmt.Errorf("%w: want a command, flags %#x", errProtocol, flags)
	}
	body, err := c.readBody(flags, maxCommand)
	if err != nil {
		return "", nil, err
	}
	return commandName(body)
}

func commandName(body []byte) (string, []byte, error) {
	if len(body) < 1 || len(body) < 1+int(body[0]) {
		return "", nil, fmt.Errorf("%w: a command without its name", errProtocol)
	}
	return string(body[1 : 1+body[0]]), body[1+body[0]:], nil
}

// readBody reads a frame's size and body, refusing a size over limit
// before allocating anything for it.
func (c *zconn) readBody(flags byte, limit int) ([]byte, error) {
	var size uint64
	if flags&flagLong != 0 {
		var b [8]byte
		if _, err := io.ReadFull(c.br, b[:]); err != nil {
			return nil, err
		}
		size = binary.BigEndian.Uint64(b[:])
	} else {
		b, err := c.br.ReadByte()
		if err != nil {
			return nil, err
		}
		size = uint64(b)
	}
	if size > uint64(limit) {
		return nil, fmt.Errorf("%w: a frame of %d bytes, at most %d", errTooLarge, size, limit)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(c.br, body); err != nil {
		return nil, err
	}
	return body, nil
}

// readMessage reads the next message, skipping commands (ZMTP 3.0 has
// none after READY that a REP or PUB must act on; PING is 3.1's). idle is
// how long the peer may stay silent before the message starts (0: no
// limit); once it has started, it must arrive whole within messageTimeout.
func (c *zconn) readMessage(idle time.Duration) ([][]byte, error) {
	var frames [][]byte
	total := 0
	for {
		if len(frames) == 0 {
			var deadline time.Time
			if idle > 0 {
				deadline = time.Now().Add(idle)
			}
			c.nc.SetReadDeadline(deadline)
		}
		flags, err := c.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if len(frames) == 0 {
			c.nc.SetReadDeadline(time.Now().Add(messageTimeout))
		}
		if flags&^(flagMore|flagLong|flagCommand) != 0 {
			return nil, fmt.Errorf("%w: reserved frame flags %#x", errProtocol, flags)
		}
		if flags&flagCommand != 0 {
			if len(frames) > 0 || flags&flagMore != 0 {
				return nil, fmt.Errorf("%w: a command inside a message", errProtocol)
			}
			body, err := c.readBody(flags, maxCommand)
			if err != nil {
				return nil, err
			}
			if name, _, err := commandName(body); err != nil || name == "ERROR" {
				return nil, fmt.Errorf("%w: the peer sent %q", errProtocol, name)
			}
			continue
		}
		if len(frames) == maxFrames {
			return nil, fmt.Errorf("%w: more than %d frames", errTooLarge, maxFrames)
		}
		body, err := c.readBody(flags, maxMessage-total)
		if err != nil {
			return nil, err
		}
		total += len(body)
		frames = append(frames, body)
		if flags&flagMore == 0 {
			return frames, nil
		}
	}
}

// writeFrames writes a message (or, with flagCommand, one command) within
// writeTimeout.
func (c *zconn) writeFrames(kind byte, frames [][]byte) error {
	n := 0
	for _, f := range frames {
		n += 9 + len(f)
	}
	buf := make([]byte, 0, n)
	for i, f := range frames {
		flags := kind
		if i < len(frames)-1 {
			flags |= flagMore
		}
		if len(f) > 255 {
			buf = append(buf, flags|flagLong)
			buf = binary.BigEndian.AppendUint64(buf, uint64(len(f)))
		} else {
			buf = append(buf, flags, byte(len(f)))
		}
		buf = append(buf, f...)
	}
	c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := c.nc.Write(buf)
	return err
}

// writeError tells the peer why the handshake failed, as libzmq does.
func (c *zconn) writeError(reason string) {
	c.writeFrames(flagCommand, [][]byte{commandBody("ERROR", append([]byte{byte(len(reason))}, reason...))})
}

func commandBody(name string, body []byte) []byte {
	return append(append([]byte{byte(len(name))}, name...), body...)
}

func property(name, value string) []byte {
	b := append([]byte{byte(len(name))}, name...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(value)))
	return append(b, value...)
}

// properties reads a READY command's metadata; names are case-insensitive.
func properties(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for len(b) > 0 {
		n := int(b[0])
		if len(b) < 1+n+4 {
			return nil, fmt.Errorf("%w: a cut property", errProtocol)
		}
		name := strings.ToLower(string(b[1 : 1+n]))
		b = b[1+n:]
		size := binary.BigEndian.Uint32(b)
		b = b[4:]
		if uint64(size) > uint64(len(b)) {
			return nil, fmt.Errorf("%w: a cut property", errProtocol)
		}
		out[name] = string(b[:size])
		b = b[size:]
	}
	return out, nil
}
