package master

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sync"
	"time"
)

// slaveCallTimeout bounds one call to a node's slave API, so a hung node
// delays only the calls queued for it.
const slaveCallTimeout = 5 * time.Second

// maxSlaveResponse bounds what the master reads back from a node.
const maxSlaveResponse = 1 << 20

// slaveCall is one queued call to a node's slave API (publisherUpdate,
// paramUpdate, shutdown). params is one of goroslib's apislave request
// structs or a struct from defs.go, its fields being the call's parameters.
type slaveCall struct {
	method string
	params any
	// supersedes, when set, names what the call reports the full state of
	// (a topic's publishers, a parameter's value). A queued call with the
	// same supersedes is dropped when this one is queued, since its effect
	// would be overwritten anyway, so a hung node's queue holds at most one
	// update per topic or parameter.
	supersedes string
	// done, when set, runs once the call has been answered or has failed
	// (not when it is dropped because the master closes).
	done func()
}

// slaveCaller pushes calls to nodes without ever blocking the master: every
// node API gets its own FIFO queue and at most one goroutine working on it,
// so calls to one node arrive in the order they were made, and a slow or
// dead node delays no other.
type slaveCaller struct {
	ctx    context.Context
	client *http.Client

	mu     sync.Mutex
	queues map[string][]slaveCall
	closed bool
	wg     sync.WaitGroup
}

func newSlaveCaller(ctx context.Context) *slaveCaller {
	return &slaveCaller{
		ctx: ctx,
		client: &http.Client{
			Timeout:   slaveCallTimeout,
			Transport: &http.Transport{MaxIdleConnsPerHost: 1, IdleConnTimeout: 30 * time.Second},
		},
		queues: map[string][]slaveCall{},
	}
}

// send queues a call to the node whose slave API is at api.
func (s *slaveCaller) send(api string, call slaveCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	q, busy := s.queues[api]
	if call.supersedes != "" {
		for i := range q {
			if q[i].supersedes == call.supersedes {
				q = append(q[:i], q[i+1:]...)
				break
			}
		}
	}
	s.queues[api] = append(q, call)
	if !busy {
		s.wg.Add(1)
		go s.work(api)
	}
}

// work drains the queue of one node, then exits.
func (s *slaveCaller) work(api string) {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		q := s.queues[api]
		if len(q) == 0 || s.closed {
			delete(s.queues, api)
			s.mu.Unlock()
			return
		}
		call := q[0]
		s.queues[api] = q[1:]
		s.mu.Unlock()

		// A node that cannot be reached or refuses is not the master's
		// problem: rosmaster, too, only logs it.
		s.do(api, call) //nolint:errcheck
		if call.done != nil {
			call.done()
		}
	}
}

// do performs one call; it fails when the node cannot be reached or does
// not answer [1, ...]. A large body is encoded as it is sent, never held
// whole: a paramUpdate may carry a large parameter to many nodes at once.
func (s *slaveCaller) do(api string, call slaveCall) error {
	rv := reflect.ValueOf(call.params)
	params := make([]any, rv.NumField())
	for i := range params {
		params[i] = rv.Field(i).Interface()
	}
	encode := func(w xmlWriter) error { return encodeMethodCall(w, call.method, params...) }
	size, err := encodedSize(encode)
	if err != nil {
		return err
	}
	req, err := s.request(api, encode, size)
	if err != nil {
		return err
	}
	defer req.Body.Close()
	req.Header.Set("Content-Type", "text/xml")
	res, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(res.Body, maxSlaveResponse)) //nolint:errcheck
		return fmt.Errorf("%s answered HTTP %d", api, res.StatusCode)
	}
	v, err := decodeMethodResponse(io.LimitReader(res.Body, maxSlaveResponse))
	if err != nil {
		return err
	}
	if items, ok := v.([]any); ok && len(items) > 0 && items[0] == 1 {
		return nil
	}
	return fmt.Errorf("%s answered %v to %s", api, v, call.method)
}

// request builds the POST of a call's body to api. A small body is encoded
// into memory, so that the transport can send it again on a fresh
// connection when a kept-alive one turns out closed; a large one is encoded
// while it is sent, by a goroutine that ends when the body is closed.
func (s *slaveCaller) request(api string, encode func(xmlWriter) error, size int64) (*http.Request, error) {
	if size <= smallRequest {
		var body bytes.Buffer
		encode(&body) //nolint:errcheck // it succeeded when counted
		return http.NewRequestWithContext(s.ctx, http.MethodPost, api, &body)
	}
	pr, pw := io.Pipe()
	encoded := make(chan struct{})
	go func() {
		defer close(encoded)
		out := bufio.NewWriterSize(pw, 32<<10)
		encode(out) //nolint:errcheck // it succeeded when counted
		pw.CloseWithError(out.Flush())
	}()
	body := &pipeBody{PipeReader: pr, encoded: encoded}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, api, body)
	if err != nil {
		body.Close()
		return nil, err
	}
	req.ContentLength = size
	return req, nil
}

// pipeBody is a request body encoded by a goroutine; closing it stops the
// goroutine and waits for it.
type pipeBody struct {
	*io.PipeReader
	encoded chan struct{}
}

func (b *pipeBody) Close() error {
	b.PipeReader.Close()
	<-b.encoded
	return nil
}

// close drops queued calls, cancels calls in flight (through the master's
// context, cancelled by the caller first) and waits for every worker.
func (s *slaveCaller) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
	s.client.CloseIdleConnections()
}
