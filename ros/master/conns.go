package master

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimit bounds the connections a master serves at once, so that a
// flood of connections cannot exhaust its memory (each costs some 16 KiB)
// or its file descriptors. When every slot is taken, a new connection is
// made room for by closing another: one idle between requests (HTTP
// keep-alive) if there is one, else the one that has been in its request
// the longest — a call from a node takes milliseconds, so that is a client
// that stalls, which RequestTimeout would cut off anyway.
type connLimit struct {
	net.Listener
	slots  chan struct{} // one element per connection being served
	closed chan struct{}
	once   sync.Once
	onLog  func(format string, args ...any)

	mu    sync.Mutex
	conns map[net.Conn]connInfo
}

// connInfo is what connLimit knows of a connection being served.
type connInfo struct {
	idle   bool
	since  time.Time          // of its current state
	cancel context.CancelFunc // of the connection's context, which its requests' derive from
}

func newConnLimit(ln net.Listener, n int, logf func(format string, args ...any)) *connLimit {
	return &connLimit{
		Listener: ln,
		slots:    make(chan struct{}, n),
		closed:   make(chan struct{}),
		onLog:    logf,
		conns:    map[net.Conn]connInfo{},
	}
}

// Accept waits for a free slot, making one if need be, then for a
// connection.
func (l *connLimit) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.makeRoom()
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return c, nil
}

func (l *connLimit) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// makeRoom closes an idle connection, or else the one longest in its
// request, and gives its slot back.
func (l *connLimit) makeRoom() {
	l.mu.Lock()
	defer l.mu.Unlock()
	var victim net.Conn
	var oldest connInfo
	for c, info := range l.conns {
		if info.idle {
			victim, oldest = c, info
			break
		}
		if victim == nil || info.since.Before(oldest.since) {
			victim, oldest = c, info
		}
	}
	if victim == nil {
		return // every slot is being given back already
	}
	info := l.conns[victim]
	delete(l.conns, victim)
	if !oldest.since.IsZero() {
		l.onLog("closed the connection from %s, in a request for %v, to make room for another (MaxConnections %d)",
			victim.RemoteAddr(), time.Since(oldest.since).Round(time.Millisecond), cap(l.slots))
	}
	victim.Close()
	// A request waiting for its share of the work budget stops waiting.
	if info.cancel != nil {
		info.cancel()
	}
	// The slot is given back now rather than when the server has unwound
	// the connection, which can take milliseconds under load.
	<-l.slots
}

// connContext is the server's http.Server.ConnContext hook: it gives each
// connection a context that makeRoom can cancel.
func (l *connLimit) connContext(ctx context.Context, c net.Conn) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.conns[c] = connInfo{since: time.Now(), cancel: cancel}
	return ctx
}

// connState is the server's http.Server.ConnState hook: it follows the
// state of each connection, and gives back the slot of one that ended.
func (l *connLimit) connState(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	info, ok := l.conns[c]
	switch state {
	case http.StateActive:
		if ok && info.idle {
			l.conns[c] = connInfo{since: time.Now(), cancel: info.cancel}
		}
	case http.StateIdle:
		if ok {
			l.conns[c] = connInfo{idle: true, cancel: info.cancel}
		}
	case http.StateClosed, http.StateHijacked:
		if ok { // not closed by makeRoom, which gave its slot back
			info.cancel()
			delete(l.conns, c)
			<-l.slots
		}
	}
}
