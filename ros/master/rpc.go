package master

// The XML-RPC codec exported for a node's side of ROS (package ros's own
// TCPROS wire): a bounded call to a master or a slave API, and the reading
// and answering of calls on a node's own slave API. The codec is the
// master's (xmlrpc.go), bounded the same way: nesting depth, and the sizes
// the callers give.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Call makes one XML-RPC call of method with params to uri through client
// (whose Timeout, with ctx, bounds it) and returns the single value of the
// answer; a fault is an error. At most maxResponse bytes of the answer are
// read: a longer one is an error.
func Call(ctx context.Context, client *http.Client, uri, method string, maxResponse int64, params ...any) (any, error) {
	var body bytes.Buffer
	if err := encodeMethodCall(&body, method, params...); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, uri, &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/xml")
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(res.Body, maxResponse)) //nolint:errcheck
		return nil, fmt.Errorf("%s: %s answered HTTP %d", method, uri, res.StatusCode)
	}
	answer := &cappedReader{r: res.Body, left: maxResponse}
	v, err := decodeMethodResponse(answer)
	if answer.over {
		err = fmt.Errorf("longer than %d bytes", maxResponse)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the answer of %s: %w", method, uri, err)
	}
	return v, nil
}

// ReadCall decodes one XML-RPC request; the caller bounds r.
func ReadCall(r io.Reader) (method string, params []any, err error) {
	c, err := decodeMethodCall(r)
	if err != nil {
		return "", nil, err
	}
	return c.Method, c.Params, nil
}

// WriteResponse writes the answer v (a bool, an integer, a float64, a
// string, a slice, a struct written as an array of its fields, a map with
// string keys) as an XML-RPC response to w, with its Content-Length.
func WriteResponse(w http.ResponseWriter, v any) {
	var body bytes.Buffer
	if err := encodeMethodResponse(&body, v); err != nil {
		body.Reset()
		encodeFault(&body, &fault{Code: 1, Message: err.Error()})
	}
	writeXML(w, body.Bytes())
}

// WriteFault writes an XML-RPC fault, the answer to a call that cannot be
// dispatched.
func WriteFault(w http.ResponseWriter, code int, msg string) {
	var body bytes.Buffer
	encodeFault(&body, &fault{Code: code, Message: msg})
	writeXML(w, body.Bytes())
}

func writeXML(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "text/xml")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	bw := bufio.NewWriter(w)
	bw.Write(b) //nolint:errcheck
	bw.Flush()  //nolint:errcheck
}

// LimitConns bounds the connections srv serves from ln at once to n, the
// master's way (conns.go): when every slot is taken, an idle connection,
// else the one longest in its request, is closed to make room. It sets
// srv's ConnState and ConnContext hooks; serve the listener it returns.
func LimitConns(srv *http.Server, ln net.Listener, n int, logf func(format string, args ...any)) net.Listener {
	l := newConnLimit(ln, n, logf)
	srv.ConnState = l.connState
	srv.ConnContext = l.connContext
	return l
}
