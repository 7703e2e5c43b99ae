package master

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apislave"
)

// probeTimeout bounds the check for a master already answering.
const probeTimeout = 2 * time.Second

// Auto implements "--master auto": when a ROS master answers getPid at uri,
// it is used and the returned closer does nothing; otherwise an embedded
// master is started on uri's port and the closer stops it. uri is a
// ROS_MASTER_URI such as "http://localhost:11311/"; the URI returned is the
// one nodes should use.
//
// The master Auto starts is btrobot's own: it listens on the loopback
// interface only, whatever host uri names, so that no other machine can
// reach it. When uri names localhost or a loopback address, it is returned
// as it is; otherwise the master listens on 127.0.0.1 and its URI says so.
// A master that other machines reach is started on purpose, with New and a
// Host (btrobot master --host).
//
// The master Auto starts logs as AutoConf says (at most one AutoConf is
// read); without one, its lines (a shutdown call and who made it, a request
// refused) go to the process's standard error.
func Auto(ctx context.Context, uri string, conf ...AutoConf) (string, func() error, error) {
	host, port, err := splitMasterURI(uri)
	if err != nil {
		return "", nil, err
	}
	if Probe(ctx, uri) == nil {
		return uri, func() error { return nil }, nil
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	listen := "127.0.0.1"
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		listen = host
	}
	onLog := func(msg string) { fmt.Fprintln(os.Stderr, "btrobot's ROS master: "+msg) }
	if len(conf) > 0 && conf[0].OnLog != nil {
		onLog = conf[0].OnLog
	}
	m, err := New(Conf{Host: listen, Port: port, OnLog: onLog})
	if err != nil {
		return "", nil, err
	}
	if err := m.Start(); err != nil {
		return "", nil, fmt.Errorf("no ROS master answers at %s and one cannot be started there: %w", uri, err)
	}
	if isLoopbackName(host) {
		return uri, m.Close, nil
	}
	return m.URI(), m.Close, nil
}

// AutoConf is what Auto may be told beyond the URI.
type AutoConf struct {
	// OnLog receives the log lines of the master Auto starts, as
	// Conf.OnLog does.
	OnLog func(msg string)
}

// isLoopbackName reports whether host names the loopback interface, by name
// or by address.
func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Probe reports nil when a ROS master answers getPid at uri within ctx and
// two seconds.
func Probe(ctx context.Context, uri string) error {
	_, err := ProbePid(ctx, uri)
	return err
}

// ProbePid is Probe that also returns the process ID the master gave: a
// caller that started a master checks it reached that one.
func ProbePid(ctx context.Context, uri string) (int, error) {
	if _, _, err := splitMasterURI(uri); err != nil {
		return 0, err
	}
	u, _ := url.Parse(uri)
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: ctxTransport{ctx: ctx, next: transport}}
	return apislave.NewClient(u.Host, "/btrobot_probe", client).GetPid()
}

// ctxTransport attaches a context to requests made by clients (goroslib's)
// that do not take one.
type ctxTransport struct {
	ctx  context.Context
	next http.RoundTripper
}

func (t ctxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return t.next.RoundTrip(r.WithContext(t.ctx))
}

// splitMasterURI checks a ROS_MASTER_URI and returns its host and port.
func splitMasterURI(uri string) (string, int, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", 0, fmt.Errorf("master URI %q: %w", uri, err)
	}
	if u.Scheme != "http" {
		return "", 0, fmt.Errorf("master URI %q: want http://host:port/", uri)
	}
	host, portText, err := net.SplitHostPort(u.Host)
	if err != nil {
		return "", 0, fmt.Errorf("master URI %q: want http://host:port/: %w", uri, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("master URI %q: port %q is not 1-65535", uri, portText)
	}
	if host == "" {
		return "", 0, errors.New("master URI " + strconv.Quote(uri) + ": no host")
	}
	return host, port, nil
}
