package ros

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// callerOf returns the tcpros wire's caller behind a service client.
func callerOf(t *testing.T, s *ServiceClient) *tcprosCaller {
	t.Helper()
	c, ok := s.sc.client.(*tcprosCaller)
	require.True(t, ok, "a service client of the tcpros wire")
	return c
}

func dials(c *tcprosCaller) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dials
}

// TestPersistentServiceCalls: on btrobot's own wire, a service client
// keeps one connection for call after call (as rospy's and roscpp's
// persistent proxies do; a client called every tick must not open a
// connection and ask the master each time), against rospy's service
// server and btrobot's own; a failed call keeps it; a provider that
// restarts elsewhere is found again on the next call.
func TestPersistentServiceCalls(t *testing.T) {
	const calls = 20
	ctx := context.Background()
	trigger := func(t *testing.T, client *ServiceClient) string {
		t.Helper()
		res, err := client.Call(ctx, std_srvs.TriggerReq{})
		require.NoError(t, err)
		return res.(*std_srvs.TriggerRes).Message
	}
	cases := []struct {
		name string
		run  func(t *testing.T, uri string, caller *Conn)
	}{
		// One case for both, so one rospy server (a start costs ~0.3
		// core-s): the failed call comes after the persistent ones, on
		// the same client.
		{"rospy's server: one connection, one handler thread; a failed call keeps it usable", func(t *testing.T, uri string, caller *Conn) {
			rostest.Python(t, uri, "testdata/who_server.py").WaitLine(t, "ready", 60*time.Second)
			client, err := NewServiceClient(ServiceClientConf{Conn: caller, Name: "/who", Srv: std_srvs.Trigger{}})
			require.NoError(t, err)
			first := trigger(t, client)
			for range calls - 1 {
				assert.Equal(t, first, trigger(t, client), "the thread (connection) rospy answered on")
			}
			assert.Equal(t, 1, dials(callerOf(t, client)), "connections opened")

			require.NoError(t, caller.SetParam("/who_fail", true))
			_, err = client.Call(ctx, std_srvs.TriggerReq{})
			require.ErrorIs(t, err, ErrServiceFailed)
			assert.ErrorContains(t, err, "asked to fail")
			require.NoError(t, caller.SetParam("/who_fail", false))
			assert.Equal(t, first, trigger(t, client), "the connection of before the failure")
			assert.Equal(t, 1, dials(callerOf(t, client)), "connections opened, the failed call's included")
		}},
		{"btrobot's server: one connection", func(t *testing.T, uri string, caller *Conn) {
			provider := connectWire(t, uri, WireTCPROS, "provider")
			n := 0
			_, err := NewServiceServer(ServiceServerConf{Conn: provider, Name: "/who", Srv: std_srvs.Trigger{}, Handler: func(any) (any, error) {
				n++
				if n == 5 {
					return nil, errors.New("the fifth fails")
				}
				return std_srvs.TriggerRes{Success: true, Message: "provider"}, nil
			}})
			require.NoError(t, err)
			client, err := NewServiceClient(ServiceClientConf{Conn: caller, Name: "/who", Srv: std_srvs.Trigger{}})
			require.NoError(t, err)
			for i := range calls {
				res, err := client.Call(ctx, std_srvs.TriggerReq{})
				if i == 4 {
					require.ErrorIs(t, err, ErrServiceFailed)
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, "provider", res.(*std_srvs.TriggerRes).Message)
			}
			assert.Equal(t, 1, dials(callerOf(t, client)), "connections opened")
			open, _ := provider.wire.(*tcprosWire).srv.Conns()
			assert.Equal(t, 1, open, "connections open at the provider's port")
		}},
		{"btrobot's server restarts: the next call finds the new one", func(t *testing.T, uri string, caller *Conn) {
			serve := func(name string) *Conn {
				p := connectWire(t, uri, WireTCPROS, name)
				_, err := NewServiceServer(ServiceServerConf{Conn: p, Name: "/who", Srv: std_srvs.Trigger{}, Handler: func(any) (any, error) {
					return std_srvs.TriggerRes{Success: true, Message: name}, nil
				}})
				require.NoError(t, err)
				return p
			}
			first := serve("first")
			client, err := NewServiceClient(ServiceClientConf{Conn: caller, Name: "/who", Srv: std_srvs.Trigger{}})
			require.NoError(t, err)
			assert.Equal(t, "first", trigger(t, client))
			require.NoError(t, first.Close())
			serve("second")
			assert.Equal(t, "second", trigger(t, client), "the call after the restart")
			assert.Equal(t, "second", trigger(t, client))
			assert.Equal(t, 2, dials(callerOf(t, client)), "connections opened")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			tc.run(t, uri, connectWire(t, uri, WireTCPROS, "caller"))
		})
	}
}
