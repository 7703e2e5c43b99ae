package inproc

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type setBoolReq struct {
	Data  bool
	Notes []string
}

type setBoolRes struct {
	Success bool
	Message string
	Echo    []string
}

var setBoolType = ServiceType{Name: "std_srvs/SetBool", MD5: "09fb03525b03e7ea1fd3992bafd87e16",
	Req: reflect.TypeFor[setBoolReq](), Res: reflect.TypeFor[setBoolRes]()}

func TestServices(t *testing.T) {
	type other struct{ X int }
	cases := []struct {
		name string
		// provide registers the provider, when set.
		provide func(req any) (any, error)
		// node ends the provider's node after registering, when set.
		end    func(*Node)
		client ServiceType
		want   *setBoolRes
		err    error
		msg    string
	}{
		{name: "answered, request and response copied",
			provide: func(req any) (any, error) {
				r := req.(*setBoolReq)
				r.Notes[0] = "changed by the provider"
				return &setBoolRes{Success: r.Data, Message: "ok", Echo: r.Notes}, nil
			},
			want: &setBoolRes{Success: true, Message: "ok", Echo: []string{"changed by the provider"}}},
		{name: "a value response", provide: func(any) (any, error) { return setBoolRes{Message: "v"}, nil }, want: &setBoolRes{Message: "v"}},
		{name: "no provider", err: ErrServiceUnavailable, msg: "call /enable: service unavailable: no provider of /enable is registered"},
		{name: "the provider fails", provide: func(any) (any, error) { return nil, errors.New("motors off") },
			err: ErrServiceFailed, msg: "call /enable: the service call failed: motors off"},
		{name: "the provider answers the wrong type", provide: func(any) (any, error) { return &other{}, nil },
			err: ErrServiceFailed, msg: "the provider answered a *inproc.other, not a inproc.setBoolRes"},
		{name: "the provider died", provide: func(any) (any, error) { return &setBoolRes{}, nil }, end: (*Node).Kill,
			err: ErrServiceUnavailable, msg: "its provider /provider does not answer (it died)"},
		{name: "the provider closed", provide: func(any) (any, error) { return &setBoolRes{}, nil }, end: func(n *Node) { n.Close() },
			err: ErrServiceUnavailable, msg: "no provider of /enable is registered"},
		{name: "another service type", provide: func(any) (any, error) { return &setBoolRes{}, nil },
			client: ServiceType{Name: "std_srvs/Trigger", MD5: "*", Req: setBoolType.Req, Res: setBoolType.Res},
			err:    ErrTypeMismatch, msg: "/provider provides it as std_srvs/SetBool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			if tc.provide != nil {
				p := newNode(t, g, "/provider")
				_, err := p.NewServiceServer(ServiceServerConf{Service: "/enable", Type: setBoolType, Handler: tc.provide})
				require.NoError(t, err)
				assert.Equal(t, map[string]string{"/enable": "/provider"}, g.Services())
				if tc.end != nil {
					tc.end(p)
				}
			}
			ct := tc.client
			if ct.Name == "" {
				ct = setBoolType
			}
			c, err := newNode(t, g, "/caller").NewServiceClient(ServiceClientConf{Service: "/enable", Type: ct})
			require.NoError(t, err)
			req := &setBoolReq{Data: true, Notes: []string{"mine"}}
			res, err := c.Call(context.Background(), req)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.ErrorContains(t, err, tc.msg)
				assert.Nil(t, res)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tc.want, res)
			}
			assert.Equal(t, []string{"mine"}, req.Notes, "the caller's request is its own")
		})
	}
}

func TestServiceCallAbandoned(t *testing.T) {
	g := NewGraph()
	in, release, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	_, err := newNode(t, g, "/provider").NewServiceServer(ServiceServerConf{Service: "/slow", Type: setBoolType,
		Handler: func(any) (any, error) {
			defer close(finished)
			close(in)
			<-release
			return &setBoolRes{}, nil
		}})
	require.NoError(t, err)
	c, err := newNode(t, g, "/caller").NewServiceClient(ServiceClientConf{Service: "/slow", Type: setBoolType})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-in; cancel() }()
	_, err = c.Call(ctx, &setBoolReq{})
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "call /slow: context canceled")
	close(release)
	<-finished
}

func TestServiceErrors(t *testing.T) {
	g := NewGraph()
	n := newNode(t, g, "/a")
	ok := func(any) (any, error) { return &setBoolRes{}, nil }
	c, err := n.NewServiceClient(ServiceClientConf{Service: "/s", Type: setBoolType})
	require.NoError(t, err)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"no handler", errOf(n.NewServiceServer(ServiceServerConf{Service: "/s", Type: setBoolType})), "service /s: no handler"},
		{"relative name", errOf(n.NewServiceServer(ServiceServerConf{Service: "s", Type: setBoolType, Handler: ok})), "not a global name"},
		{"no request type", errOf(n.NewServiceClient(ServiceClientConf{Service: "/s", Type: ServiceType{Name: "a/B"}})), "its request and response are structs"},
		{"a request of another type", errOf(c.Call(context.Background(), &setBoolRes{})), "call /s: want a request of type inproc.setBoolReq, got *inproc.setBoolRes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			assert.Contains(t, tc.err.Error(), tc.want)
		})
	}
	t.Run("a closed caller", func(t *testing.T) {
		require.NoError(t, n.Close())
		_, err := c.Call(context.Background(), &setBoolReq{})
		require.ErrorIs(t, err, ErrNodeClosed)
	})
}
