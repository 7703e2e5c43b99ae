package ros

import (
	"context"
	"errors"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestServiceServerHelper: the Go service provider against the Go client,
// with a handler error seen as a failed call.
func TestServiceServerHelper(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "provider")
	calls := 0
	_, err := NewServiceServer(ServiceServerConf{Conn: sc, Name: "reset", Srv: std_srvs.Trigger{}, Handler: func(req any) (any, error) {
		calls++
		if calls == 2 {
			return nil, errors.New("not now")
		}
		return std_srvs.TriggerRes{Success: true, Message: "reset"}, nil
	}})
	require.NoError(t, err)
	c := connect(t, uri, "caller")
	client, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "/reset", Srv: &std_srvs.Trigger{}})
	require.NoError(t, err)
	ctx := context.Background()
	res, err := client.Call(ctx, std_srvs.TriggerReq{})
	require.NoError(t, err, "first call: %v, %v", res, err)
	require.Equal(t, &std_srvs.TriggerRes{Success: true, Message: "reset"}, res, "first call")
	_, err = client.Call(ctx, &std_srvs.TriggerReq{})
	require.ErrorIs(t, err, ErrServiceFailed, "second call: %v, want ErrServiceFailed", err)
	_, err = client.Call(ctx, std_srvs.SetBoolReq{})
	require.ErrorContains(t, err, "want a request of type", "wrong request type")
	_, err = NewServiceClient(ServiceClientConf{Conn: c, Name: "/reset", Srv: std_srvs.SetBool{}})
	require.ErrorContains(t, err, "already calls it as std_srvs/Trigger", "type clash")
	other, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "/absent", Srv: std_srvs.Trigger{}})
	require.NoError(t, err)
	_, err = other.Call(ctx, std_srvs.TriggerReq{})
	require.ErrorIs(t, err, ErrServiceUnavailable, "absent service: %v, want ErrServiceUnavailable", err)

}
